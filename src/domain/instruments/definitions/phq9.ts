/**
 * PHQ-9 (Kroenke, Spitzer & Williams 2001), INSTRUMENTS.md §2. Item 9 is the suicide item of
 * spec §3: any value ≥ 1 raises the safety flag whatever the total. PHQ-2 (items 1–2) is a
 * subscale with its own cut-off, so one record answers both.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { DIFFICULTY_LABELS, DIFFICULTY_OPTIONS, FREQUENCY_0_3, itemIds, numberedItems, optionsScale, range } from '../scales';
import type { DeriveInput, Derived } from '../types';

export interface Phq9Config {
  /** Total at which the screen is positive (≥10: sensitivity and specificity 88 %). */
  readonly screenCutOff: number;
  /** PHQ-2 cut-off (≥3; ≥2 is more sensitive, Arroll 2010). */
  readonly phq2CutOff: number;
  /** Diagnostic algorithm ⚠️ (PHQ instructions): points at which items 1–8 count as present. */
  readonly symptomPresentAt: number;
  /** … and item 9. */
  readonly item9PresentAt: number;
  /** Major depressive syndrome: at least this many present symptoms, one of them item 1 or 2. */
  readonly majorMinSymptoms: number;
  /** Other depressive syndrome: this many present symptoms (from–to), one of them item 1 or 2. */
  readonly otherMinSymptoms: number;
  readonly otherMaxSymptoms: number;
}

const TOPICS = [
  labels('interest or pleasure', 'Interesse oder Freude', 'الاهتمام أو المتعة'),
  labels('low mood', 'Niedergeschlagenheit', 'المزاج المنخفض'),
  labels('sleep', 'Schlaf', 'النوم'),
  labels('tiredness or low energy', 'Müdigkeit oder Energiemangel', 'التعب أو قلة الطاقة'),
  labels('appetite', 'Appetit', 'الشهية'),
  labels('view of oneself', 'Selbstbild', 'النظرة إلى الذات'),
  labels('concentration', 'Konzentration', 'التركيز'),
  labels('slowness or restlessness', 'Verlangsamung oder Unruhe', 'البطء أو التململ'),
  labels('thoughts of death or self-harm', 'Gedanken an den Tod oder Selbstverletzung', 'أفكار الموت أو إيذاء النفس'),
];

/** The PHQ's diagnostic algorithm over items 1–9; undefined until every item is answered. */
function depressiveSyndromes({ config, points }: DeriveInput<Phq9Config>): Derived {
  const values = range(1, 9).map((n) => points(`item${n}`));
  if (values.some((v) => v === undefined)) return { diagnoses: {} };
  const present = values.map((v, index) => v! >= (index === 8 ? config.item9PresentAt : config.symptomPresentAt));
  const count = present.filter(Boolean).length;
  const core = present[0]! || present[1]!;
  return {
    diagnoses: {
      major_depressive_syndrome: core && count >= config.majorMinSymptoms,
      other_depressive_syndrome: core && count >= config.otherMinSymptoms && count <= config.otherMaxSymptoms,
    },
  };
}

export const PHQ9 = defineInstrument<Phq9Config>(
  { screenCutOff: 10, phq2CutOff: 3, symptomPresentAt: 2, item9PresentAt: 1, majorMinSymptoms: 5, otherMinSymptoms: 2, otherMaxSymptoms: 4 },
  (config) => ({
    code: 'phq9',
    version: 'PHQ-9 (2001), 9 scored items + difficulty item',
    kind: 'questionnaire',
    labels: labels('Patient Health Questionnaire (PHQ-9)', 'Gesundheitsfragebogen für Patienten (PHQ-9)', 'استبيان صحة المريض (PHQ-9)'),
    verification: 'partly_verified',
    licence: { class: 'free', itemText: 'may_ship', note: 'No permission needed to reproduce, translate, display or distribute (phqscreeners); keep the attribution. German and Arabic translations exist (⚠️ source not checked).' },
    items: [...numberedItems(9, FREQUENCY_0_3, TOPICS), { id: 'item10', labels: DIFFICULTY_LABELS, scale: optionsScale(DIFFICULTY_OPTIONS), required: false }],
    subscales: [{ id: 'phq2', labels: labels('PHQ-2 (items 1–2)', 'PHQ-2 (Items 1–2)', 'PHQ-2 (البندان 1–2)'), items: itemIds([1, 2]), aggregate: 'sum' }],
    total: { labels: labels('PHQ-9 total', 'PHQ-9 Summenwert', 'مجموع PHQ-9'), items: itemIds(range(1, 9)), aggregate: 'sum' },
    bands: [
      { code: 'minimal', min: 0, labels: labels('minimal or none', 'minimal oder keine', 'حد أدنى أو لا يوجد') },
      { code: 'mild', min: 5, labels: labels('mild', 'mild', 'خفيف') },
      { code: 'moderate', min: 10, labels: labels('moderate', 'mittelgradig', 'متوسط') },
      { code: 'moderately_severe', min: 15, labels: labels('moderately severe', 'mittelschwer', 'متوسط الشدة') },
      { code: 'severe', min: 20, labels: labels('severe', 'schwer', 'شديد') },
    ],
    flags: [
      { code: 'suicide_item', kind: 'safety', labels: labels('item 9 (thoughts of death or self-harm) answered ≥ 1', 'Item 9 (Gedanken an Tod oder Selbstverletzung) ≥ 1', 'البند 9 (أفكار الموت أو إيذاء النفس) ≥ 1'), when: { item: 'item9', atLeast: 1 } },
      { code: 'screen_positive', kind: 'clinical', labels: labels('total at or above the screening cut-off', 'Summenwert am oder über dem Screening-Cut-off', 'المجموع عند حد الفحص أو أعلى'), when: { score: 'total', atLeast: config.screenCutOff } },
      { code: 'phq2_positive', kind: 'clinical', labels: labels('PHQ-2 at or above its cut-off', 'PHQ-2 am oder über dem Cut-off', 'PHQ-2 عند حده أو أعلى'), when: { score: 'phq2', atLeast: config.phq2CutOff } },
    ],
    diagnoses: [
      { code: 'major_depressive_syndrome', labels: labels('major depressive syndrome (PHQ algorithm)', 'Major-Depression-Syndrom (PHQ-Algorithmus)', 'متلازمة الاكتئاب الرئيسي (خوارزمية PHQ)') },
      { code: 'other_depressive_syndrome', labels: labels('other depressive syndrome (PHQ algorithm)', 'anderes depressives Syndrom (PHQ-Algorithmus)', 'متلازمة اكتئابية أخرى (خوارزمية PHQ)') },
    ],
    assumptions: [
      'Diagnostic algorithm ⚠️ from the PHQ instructions: items 1–8 count as present at ≥2, item 9 at ≥1; major depressive syndrome ≥5 present incl. item 1 or 2; other depressive syndrome 2–4 present incl. item 1 or 2 (config). The algorithm ignores the difficulty item and the rule-outs (bereavement, mania) of the full PHQ: it is a provisional screening result.',
      'The difficulty item (item10) is optional, always shown (the paper form shows it when any problem is ticked) and never scored.',
      'Screening cut-off 10 and PHQ-2 cut-off 3 are configuration (PHQ-2 ≥2 is the more sensitive alternative).',
    ],
    derive: depressiveSyndromes,
  }),
);
