/**
 * AUDIT (Babor et al. 2001, WHO), INSTRUMENTS.md §5: an interview-report module (spec §3
 * "AUDIT items 1 to 10 with total score"). Items 1–8 score 0–4; items 9–10 have three answers
 * coded '0', '2', '4' that score their code. Exceeding the cut-off suggests rejection reason 15
 * (spec §4); the interviewer confirms. Sex- and age-specific thresholds need the person, so
 * they are applied from the scoring context.
 */
import { defineInstrument } from '../define';
import { anchor, itemLabels, labels, option } from '../labels';
import { integerScale, itemIds, optionsScale, range } from '../scales';
import type { DeriveInput, Derived, ItemDefinition, ScoringContext } from '../types';

export interface AuditConfig {
  /** WHO general cut-off (hazardous use): total ≥ 8. */
  readonly cutOff: number;
  /** Lower cut-off for women and people older than `lowerCutOffAgeAbove` ⚠️ (7). */
  readonly lowerCutOff: number;
  readonly lowerCutOffAgeAbove: number;
  /** Genders given the women's thresholds; DIVERSE and unknown get the general ones by default. */
  readonly lowerThresholdGenders: readonly ('FEMALE' | 'MALE' | 'DIVERSE')[];
  /** Likely dependence: ≥15 men, ≥13 women. */
  readonly dependenceCutOff: number;
  readonly dependenceCutOffLower: number;
  /** AUDIT-C (items 1–3) positive: ≥4 men, ≥3 women. */
  readonly auditCCutOff: number;
  readonly auditCCutOffLower: number;
}

const FREQUENCY = integerScale(0, 4, [
  anchor(0, 'never', 'nie', 'أبداً'),
  anchor(1, 'monthly or less', 'einmal im Monat oder seltener', 'مرة في الشهر أو أقل'),
  anchor(2, '2–4 times a month', '2–4 Mal im Monat', '2–4 مرات في الشهر'),
  anchor(3, '2–3 times a week', '2–3 Mal pro Woche', '2–3 مرات في الأسبوع'),
  anchor(4, '4 or more times a week', '4 Mal oder öfter pro Woche', '4 مرات أو أكثر في الأسبوع'),
]);
const QUANTITY = integerScale(0, 4, [
  anchor(0, '1 or 2', '1 oder 2', '1 أو 2'),
  anchor(1, '3 or 4', '3 oder 4', '3 أو 4'),
  anchor(2, '5 or 6', '5 oder 6', '5 أو 6'),
  anchor(3, '7 to 9', '7 bis 9', 'من 7 إلى 9'),
  anchor(4, '10 or more', '10 oder mehr', '10 أو أكثر'),
]);
const HOW_OFTEN = integerScale(0, 4, [
  anchor(0, 'never', 'nie', 'أبداً'),
  anchor(1, 'less than monthly', 'seltener als einmal im Monat', 'أقل من مرة في الشهر'),
  anchor(2, 'monthly', 'einmal im Monat', 'شهرياً'),
  anchor(3, 'weekly', 'einmal pro Woche', 'أسبوعياً'),
  anchor(4, 'daily or almost daily', 'täglich oder fast täglich', 'يومياً أو شبه يومي'),
]);
const EVER = optionsScale([
  option('0', 'no', 'nein', 'لا', { points: 0 }),
  option('2', 'yes, but not in the past year', 'ja, aber nicht im letzten Jahr', 'نعم، ولكن ليس في السنة الماضية', { points: 2 }),
  option('4', 'yes, during the past year', 'ja, im letzten Jahr', 'نعم، خلال السنة الماضية', { points: 4 }),
]);

const TOPICS = [
  labels('how often alcohol is drunk', 'Häufigkeit des Trinkens', 'تكرار شرب الكحول'),
  labels('drinks on a typical drinking day', 'Getränke an einem typischen Trinktag', 'عدد المشروبات في يوم الشرب المعتاد'),
  labels('six or more drinks on one occasion', 'sechs oder mehr Getränke bei einer Gelegenheit', 'ستة مشروبات أو أكثر في مناسبة واحدة'),
  labels('unable to stop once started', 'nicht aufhören können', 'عدم القدرة على التوقف بعد البدء'),
  labels('failing expectations because of drinking', 'Pflichten wegen Trinkens nicht erfüllt', 'الإخفاق في الواجبات بسبب الشرب'),
  labels('drinking in the morning', 'Trinken am Morgen', 'الشرب في الصباح'),
  labels('guilt or remorse after drinking', 'Schuldgefühle oder Reue nach dem Trinken', 'الشعور بالذنب أو الندم بعد الشرب'),
  labels('memory loss after drinking', 'Erinnerungslücken nach dem Trinken', 'فقدان الذاكرة بعد الشرب'),
  labels('injury because of drinking', 'Verletzung durch das Trinken', 'إصابة بسبب الشرب'),
  labels('others concerned about the drinking', 'andere sind wegen des Trinkens besorgt', 'قلق الآخرين بشأن الشرب'),
];

const ITEMS: ItemDefinition[] = range(1, 10).map((n) => ({
  id: `item${n}`,
  labels: itemLabels(n, TOPICS[n - 1]),
  scale: n === 1 ? FREQUENCY : n === 2 ? QUANTITY : n <= 8 ? HOW_OFTEN : EVER,
  required: true,
}));

/** Whether the lower (women's / older people's) thresholds apply to this person. */
export function auditLowerThresholds(config: AuditConfig, context: ScoringContext): { total: boolean; sex: boolean } {
  const sex = context.gender !== undefined && config.lowerThresholdGenders.includes(context.gender);
  const older = context.age !== undefined && context.age > config.lowerCutOffAgeAbove;
  return { total: sex || older, sex };
}

function contextCutOffs({ config, context, total, subscales }: DeriveInput<AuditConfig>): Derived {
  const lower = auditLowerThresholds(config, context);
  const flags: string[] = [];
  if (total !== undefined && total >= (lower.total ? config.lowerCutOff : config.cutOff)) flags.push('cutoff_exceeded');
  if (total !== undefined && total >= (lower.sex ? config.dependenceCutOffLower : config.dependenceCutOff)) flags.push('likely_dependence');
  const auditC = subscales.consumption;
  if (auditC !== undefined && auditC >= (lower.sex ? config.auditCCutOffLower : config.auditCCutOff)) flags.push('audit_c_positive');
  return { flags };
}

export const AUDIT = defineInstrument<AuditConfig>(
  {
    cutOff: 8,
    lowerCutOff: 7,
    lowerCutOffAgeAbove: 65,
    lowerThresholdGenders: ['FEMALE'],
    dependenceCutOff: 15,
    dependenceCutOffLower: 13,
    auditCCutOff: 4,
    auditCCutOffLower: 3,
  },
  () => ({
    code: 'audit',
    version: 'AUDIT (WHO 2001), interview module, past 12 months',
    kind: 'interview_module',
    labels: labels('Alcohol Use Disorders Identification Test (AUDIT)', 'Test zur Erkennung von Störungen durch Alkoholkonsum (AUDIT)', 'اختبار تحديد اضطرابات تعاطي الكحول (AUDIT)'),
    verification: 'partly_verified',
    licence: {
      class: 'free_non_commercial',
      itemText: 'conditional',
      note: 'WHO: may be freely reviewed, reproduced and translated, but not sold or used for commercial purposes; ship text only in a separately licensed content package or with WHO permission.',
    },
    items: ITEMS,
    subscales: [
      { id: 'consumption', labels: labels('AUDIT-C: consumption (items 1–3)', 'AUDIT-C: Konsum (Items 1–3)', 'AUDIT-C: الاستهلاك (البنود 1–3)'), items: itemIds([1, 2, 3]), aggregate: 'sum' },
      { id: 'dependence', labels: labels('dependence symptoms (items 4–6)', 'Abhängigkeitssymptome (Items 4–6)', 'أعراض الاعتماد (البنود 4–6)'), items: itemIds([4, 5, 6]), aggregate: 'sum' },
      { id: 'harm', labels: labels('alcohol-related harm (items 7–10)', 'alkoholbedingte Schäden (Items 7–10)', 'الأضرار المرتبطة بالكحول (البنود 7–10)'), items: itemIds([7, 8, 9, 10]), aggregate: 'sum' },
    ],
    total: { labels: labels('AUDIT total (0–40)', 'AUDIT Summenwert (0–40)', 'مجموع AUDIT (0–40)'), items: itemIds(range(1, 10)), aggregate: 'sum' },
    bands: [
      { code: 'zone_1', min: 0, labels: labels('zone I: low risk', 'Zone I: geringes Risiko', 'المنطقة I: خطر منخفض') },
      { code: 'zone_2', min: 8, labels: labels('zone II: hazardous use', 'Zone II: riskanter Konsum', 'المنطقة II: استهلاك خطر') },
      { code: 'zone_3', min: 16, labels: labels('zone III: harmful use', 'Zone III: schädlicher Konsum', 'المنطقة III: استهلاك ضار') },
      { code: 'zone_4', min: 20, labels: labels('zone IV: possible dependence', 'Zone IV: mögliche Abhängigkeit', 'المنطقة IV: اعتماد محتمل') },
    ],
    flags: [
      { code: 'cutoff_exceeded', kind: 'clinical', labels: labels('cut-off reached: suggests rejection reason 15', 'Cut-off erreicht: legt Ablehnungsgrund 15 nahe', 'تم بلوغ الحد: يُقترح سبب الرفض 15') },
      { code: 'likely_dependence', kind: 'clinical', labels: labels('likely dependence', 'wahrscheinliche Abhängigkeit', 'اعتماد محتمل') },
      { code: 'audit_c_positive', kind: 'clinical', labels: labels('AUDIT-C positive', 'AUDIT-C positiv', 'AUDIT-C إيجابي') },
      {
        code: 'dependence_signal',
        kind: 'clinical',
        labels: labels('item 4, 5 or 6 scored 2 or more', 'Item 4, 5 oder 6 mit 2 oder mehr', 'البند 4 أو 5 أو 6 بدرجة 2 أو أكثر'),
        when: { any: [4, 5, 6].map((n) => ({ item: `item${n}`, atLeast: 2 })) },
      },
      {
        code: 'next_intervention_level',
        kind: 'clinical',
        labels: labels('next-higher intervention level (items 4–6 ≥ 2 or item 9/10 = 4)', 'nächsthöhere Interventionsstufe (Items 4–6 ≥ 2 oder Item 9/10 = 4)', 'مستوى التدخل الأعلى التالي (البنود 4–6 ≥ 2 أو البند 9/10 = 4)'),
        when: { any: [...[4, 5, 6].map((n) => ({ item: `item${n}`, atLeast: 2 })), { item: 'item9', atLeast: 4 }, { item: 'item10', atLeast: 4 }] },
      },
    ],
    diagnoses: [],
    assumptions: [
      'The cut-off is "reached" at total ≥ 8 (WHO: "8 or more"); the spec’s "AUDIT cut-off exceeded" is read the same way.',
      'Lower cut-off 7 for women and people older than 65 ⚠️ (WHO manual text, not re-verified), applied from the scoring context (gender, age); without a context the general cut-off 8 applies.',
      'Sex-specific thresholds (dependence ≥13 women / ≥15 men; AUDIT-C ≥3 women / ≥4 men) use the women’s values for FEMALE only; DIVERSE and unknown gender get the general (men’s) values by default (config lowerThresholdGenders).',
      'Items 2–3 assume a 10 g standard drink; a trial adjusts the response wording to local drink sizes, not the scoring.',
    ],
    derive: contextCutOffs,
  }),
);
