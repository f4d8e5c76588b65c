/**
 * LSAS (Liebowitz 1987), INSTRUMENTS.md §5: 24 situations, each rated for fear/anxiety 0–3 and
 * avoidance 0–3 (past week), stored as `item<n>_fear` and `item<n>_avoidance`. Licence needed:
 * situations are numbered only. Performance/social membership is unverified configuration.
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { integerScale, range } from '../scales';
import type { ItemDefinition } from '../types';

export interface LsasConfig {
  readonly performanceItems: readonly number[];
  readonly socialItems: readonly number[];
  /** Research cut-offs on the total: social anxiety disorder (Mennin 2002) and generalized subtype. */
  readonly sadCutOff: number;
  readonly generalizedCutOff: number;
}

const FEAR = integerScale(0, 3, [anchor(0, 'none', 'keine', 'لا يوجد'), anchor(1, 'mild', 'leicht', 'خفيف'), anchor(2, 'moderate', 'mittel', 'متوسط'), anchor(3, 'severe', 'schwer', 'شديد')]);
const AVOIDANCE = integerScale(0, 3, [
  anchor(0, 'never (0 %)', 'nie (0 %)', 'أبداً (0٪)'),
  anchor(1, 'occasionally (1–33 %)', 'gelegentlich (1–33 %)', 'أحياناً (1–33٪)'),
  anchor(2, 'often (33–67 %)', 'oft (33–67 %)', 'غالباً (33–67٪)'),
  anchor(3, 'usually (67–100 %)', 'meistens (67–100 %)', 'عادةً (67–100٪)'),
]);

function situationItems(n: number): ItemDefinition[] {
  return [
    { id: `item${n}_fear`, labels: labels(`Situation ${n}: fear or anxiety`, `Situation ${n}: Angst`, `الموقف ${n}: الخوف أو القلق`), scale: FEAR, required: true },
    { id: `item${n}_avoidance`, labels: labels(`Situation ${n}: avoidance`, `Situation ${n}: Vermeidung`, `الموقف ${n}: التجنب`), scale: AVOIDANCE, required: true },
  ];
}

const fear = (numbers: readonly number[]) => numbers.map((n) => `item${n}_fear`);
const avoidance = (numbers: readonly number[]) => numbers.map((n) => `item${n}_avoidance`);

export const LSAS = defineInstrument<LsasConfig>(
  { performanceItems: [1, 2, 3, 4, 6, 8, 9, 13, 14, 16, 17, 20, 21], socialItems: [5, 7, 10, 11, 12, 15, 18, 19, 22, 23, 24], sadCutOff: 30, generalizedCutOff: 60 },
  (config) => {
    const all = range(1, 24);
    const sum = (id: string, name: ReturnType<typeof labels>, items: string[]) => ({ id, labels: name, items, aggregate: 'sum' as const });
    return {
      code: 'lsas',
      version: 'LSAS self-report, 24 situations × fear and avoidance',
      kind: 'questionnaire',
      labels: labels('Liebowitz Social Anxiety Scale (LSAS)', 'Liebowitz-Soziale-Angst-Skala (LSAS)', 'مقياس ليبوفيتز للقلق الاجتماعي (LSAS)'),
      verification: 'partly_verified',
      licence: { class: 'commercial', itemText: 'never', note: 'Copyright Liebowitz; permission or licence needed ⚠️. Do not ship text until licensed. German: Stangier & Heidenreich (⚠️); an Arabic version was used in Oman.' },
      items: all.flatMap(situationItems),
      subscales: [
        sum('fear', labels('fear/anxiety total (0–72)', 'Angst gesamt (0–72)', 'مجموع الخوف/القلق (0–72)'), fear(all)),
        sum('avoidance', labels('avoidance total (0–72)', 'Vermeidung gesamt (0–72)', 'مجموع التجنب (0–72)'), avoidance(all)),
        sum('performance_fear', labels('performance: fear', 'Leistung: Angst', 'الأداء: الخوف'), fear(config.performanceItems)),
        sum('performance_avoidance', labels('performance: avoidance', 'Leistung: Vermeidung', 'الأداء: التجنب'), avoidance(config.performanceItems)),
        sum('social_fear', labels('social interaction: fear', 'soziale Interaktion: Angst', 'التفاعل الاجتماعي: الخوف'), fear(config.socialItems)),
        sum('social_avoidance', labels('social interaction: avoidance', 'soziale Interaktion: Vermeidung', 'التفاعل الاجتماعي: التجنب'), avoidance(config.socialItems)),
        sum('performance', labels('performance (fear + avoidance)', 'Leistung (Angst + Vermeidung)', 'الأداء (الخوف + التجنب)'), [...fear(config.performanceItems), ...avoidance(config.performanceItems)]),
        sum('social', labels('social interaction (fear + avoidance)', 'soziale Interaktion (Angst + Vermeidung)', 'التفاعل الاجتماعي (الخوف + التجنب)'), [...fear(config.socialItems), ...avoidance(config.socialItems)]),
      ],
      total: { labels: labels('LSAS total (0–144)', 'LSAS gesamt (0–144)', 'مجموع LSAS (0–144)'), items: [...fear(all), ...avoidance(all)], aggregate: 'sum' },
      bands: [
        { code: 'minimal', min: 0, labels: labels('none or minimal', 'keine oder minimal', 'لا يوجد أو حد أدنى') },
        { code: 'mild', min: 40, labels: labels('mild', 'leicht', 'خفيف') },
        { code: 'moderate', min: 55, labels: labels('moderate', 'mittel', 'متوسط') },
        { code: 'marked', min: 65, labels: labels('marked', 'ausgeprägt', 'ملحوظ') },
        { code: 'severe', min: 80, labels: labels('severe', 'schwer', 'شديد') },
        { code: 'very_severe', min: 95, labels: labels('very severe', 'sehr schwer', 'شديد جداً') },
      ],
      flags: [
        { code: 'sad_cutoff', kind: 'clinical', labels: labels('total at or above the social-anxiety cut-off (30)', 'Summenwert am oder über dem Cut-off für soziale Angst (30)', 'المجموع عند حد القلق الاجتماعي (30) أو أعلى'), when: { score: 'total', atLeast: config.sadCutOff } },
        { code: 'generalized_sad_cutoff', kind: 'clinical', labels: labels('total at or above the generalized-subtype cut-off (60)', 'Summenwert am oder über dem Cut-off für den generalisierten Subtyp (60)', 'المجموع عند حد النوع المعمم (60) أو أعلى'), when: { score: 'total', atLeast: config.generalizedCutOff } },
      ],
      diagnoses: [],
      assumptions: [
        'Performance (1, 2, 3, 4, 6, 8, 9, 13, 14, 16, 17, 20, 21) and social interaction (5, 7, 10, 11, 12, 15, 18, 19, 22, 23, 24) membership ⚠️ from secondary sources (config performanceItems, socialItems).',
        'Research cut-offs ≥30 (social anxiety disorder) and ≥60 (generalized) ⚠️ are configuration; the severity bands (0–39 minimal, 40–54 mild, 55–64 moderate, 65–79 marked, 80–94 severe, ≥95 very severe) are the commonly cited ones.',
        'Self-report administration assumed (the clinician version has the same scoring).',
      ],
    };
  },
);
