/**
 * ITQ (Cloitre et al. 2018; ICD-11), INSTRUMENTS.md §3. Items keep the ITQ's own numbering:
 * P1–P6 PTSD symptoms, P7–P9 PTSD functional impairment, C1–C6 DSO symptoms, C7–C9 DSO
 * impairment. A person receives PTSD or CPTSD, never both; DSO alone is no diagnosis. The
 * score names follow spec §3 (reexperience, avoidance, threat, affective disturbance,
 * negative self-concept, disturbance in relationships, PTSD and DSO).
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { INTENSITY_0_4 } from '../scales';
import type { DeriveInput, Derived, ItemDefinition, Labels } from '../types';

export interface ItqConfig {
  /** Points at which a symptom or impairment item counts as endorsed. */
  readonly endorsedAt: number;
}

function item(id: string, topic: Labels): ItemDefinition {
  const code = id.toUpperCase();
  return { id, labels: labels(`${code}: ${topic.en}`, `${code}: ${topic.de}`, `${code}: ${topic.ar}`), scale: INTENSITY_0_4, required: true };
}

const IMPAIRMENT = [
  labels('impairment in relationships and social life', 'Beeinträchtigung in Beziehungen und sozialem Leben', 'التأثر في العلاقات والحياة الاجتماعية'),
  labels('impairment at work or study', 'Beeinträchtigung bei Arbeit oder Ausbildung', 'التأثر في العمل أو الدراسة'),
  labels('impairment in other important areas', 'Beeinträchtigung in anderen wichtigen Bereichen', 'التأثر في مجالات مهمة أخرى'),
];

const ITEMS: ItemDefinition[] = [
  item('p1', labels('upsetting dreams', 'belastende Träume', 'أحلام مزعجة')),
  item('p2', labels('reliving in the here and now', 'Wiedererleben im Hier und Jetzt', 'معايشة الحدث كأنه يحدث الآن')),
  item('p3', labels('avoiding internal reminders', 'Vermeiden innerer Erinnerungen', 'تجنب الذكريات والأفكار')),
  item('p4', labels('avoiding external reminders', 'Vermeiden äußerer Erinnerungsreize', 'تجنب ما يذكّر بالحدث')),
  item('p5', labels('being on guard', 'übermäßige Wachsamkeit', 'الحذر المفرط')),
  item('p6', labels('being easily startled', 'Schreckhaftigkeit', 'سرعة الفزع')),
  item('p7', IMPAIRMENT[0]!),
  item('p8', IMPAIRMENT[1]!),
  item('p9', IMPAIRMENT[2]!),
  item('c1', labels('slow to calm down when upset', 'braucht lange, um sich zu beruhigen', 'البطء في الهدوء عند الانزعاج')),
  item('c2', labels('emotional numbness', 'Gefühlstaubheit', 'الخدر العاطفي')),
  item('c3', labels('feeling a failure', 'sich als Versager fühlen', 'الشعور بالفشل')),
  item('c4', labels('feeling worthless', 'sich wertlos fühlen', 'الشعور بانعدام القيمة')),
  item('c5', labels('feeling distant from others', 'sich anderen fern fühlen', 'الشعور بالبعد عن الآخرين')),
  item('c6', labels('difficulty staying close to others', 'Schwierigkeiten, anderen nahe zu bleiben', 'صعوبة البقاء قريباً من الآخرين')),
  item('c7', IMPAIRMENT[0]!),
  item('c8', IMPAIRMENT[1]!),
  item('c9', IMPAIRMENT[2]!),
];

const CLUSTERS = {
  reexperience: ['p1', 'p2'],
  avoidance: ['p3', 'p4'],
  threat: ['p5', 'p6'],
  affective_disturbance: ['c1', 'c2'],
  negative_self_concept: ['c3', 'c4'],
  disturbed_relationships: ['c5', 'c6'],
} as const;

/** The ITQ diagnostic algorithm; undefined until every item is answered. */
function diagnoses({ config, points, complete }: DeriveInput<ItqConfig>): Derived {
  if (!complete) return { diagnoses: {} };
  const endorsed = (id: string) => (points(id) ?? 0) >= config.endorsedAt;
  const met = (ids: readonly string[]) => ids.some(endorsed);
  const ptsd = met(CLUSTERS.reexperience) && met(CLUSTERS.avoidance) && met(CLUSTERS.threat) && met(['p7', 'p8', 'p9']);
  const dso = met(CLUSTERS.affective_disturbance) && met(CLUSTERS.negative_self_concept) && met(CLUSTERS.disturbed_relationships) && met(['c7', 'c8', 'c9']);
  return { diagnoses: { ptsd: ptsd && !dso, cptsd: ptsd && dso } };
}

export const ITQ = defineInstrument<ItqConfig>({ endorsedAt: 2 }, () => ({
  code: 'itq',
  version: 'ITQ (2018), 18 items',
  kind: 'questionnaire',
  labels: labels('International Trauma Questionnaire (ITQ)', 'Internationaler Trauma-Fragebogen (ITQ)', 'الاستبيان الدولي للصدمة (ITQ)'),
  verification: 'verified',
  licence: { class: 'free_ask_authors', itemText: 'ask', note: 'Freely available; no formal licence stated: ask the authors before shipping text. German version on the ITQ site (⚠️); Arabic used with Syrian refugees (Vallières 2018).' },
  items: ITEMS,
  subscales: [
    { id: 'reexperience', labels: labels('re-experiencing in the here and now', 'Wiedererleben im Hier und Jetzt', 'إعادة المعايشة'), items: CLUSTERS.reexperience, aggregate: 'sum' },
    { id: 'avoidance', labels: labels('avoidance', 'Vermeidung', 'التجنب'), items: CLUSTERS.avoidance, aggregate: 'sum' },
    { id: 'threat', labels: labels('sense of current threat', 'Gefühl aktueller Bedrohung', 'الشعور بالتهديد الحالي'), items: CLUSTERS.threat, aggregate: 'sum' },
    { id: 'affective_disturbance', labels: labels('affective dysregulation', 'affektive Dysregulation', 'اضطراب تنظيم الانفعالات'), items: CLUSTERS.affective_disturbance, aggregate: 'sum' },
    { id: 'negative_self_concept', labels: labels('negative self-concept', 'negatives Selbstkonzept', 'المفهوم السلبي للذات'), items: CLUSTERS.negative_self_concept, aggregate: 'sum' },
    { id: 'disturbed_relationships', labels: labels('disturbances in relationships', 'Beziehungsstörungen', 'اضطراب العلاقات'), items: CLUSTERS.disturbed_relationships, aggregate: 'sum' },
    { id: 'ptsd', labels: labels('PTSD severity (P1–P6)', 'PTBS-Schwere (P1–P6)', 'شدة اضطراب ما بعد الصدمة (P1–P6)'), items: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'], aggregate: 'sum' },
    { id: 'dso', labels: labels('DSO severity (C1–C6)', 'DSO-Schwere (C1–C6)', 'شدة اضطرابات التنظيم الذاتي (C1–C6)'), items: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], aggregate: 'sum' },
  ],
  flags: [],
  diagnoses: [
    { code: 'ptsd', labels: labels('PTSD (ICD-11, ITQ algorithm)', 'PTBS (ICD-11, ITQ-Algorithmus)', 'اضطراب ما بعد الصدمة (ICD-11، خوارزمية ITQ)') },
    { code: 'cptsd', labels: labels('complex PTSD (ICD-11, ITQ algorithm)', 'komplexe PTBS (ICD-11, ITQ-Algorithmus)', 'اضطراب ما بعد الصدمة المعقد (ICD-11، خوارزمية ITQ)') },
  ],
  assumptions: ['No total and no severity bands: the ITQ has none; PTSD and DSO severities are reported separately.'],
  derive: diagnoses,
}));
