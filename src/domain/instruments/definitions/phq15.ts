/**
 * PHQ-15 somatic symptom severity (Kroenke 2002), INSTRUMENTS.md §2. Item 4 (menstrual
 * problems) concerns women only, so it is optional: a person who leaves it empty is scored on
 * the other 14 items (maximum 28), without proration, because no source prescribes one.
 */
import { defineInstrument } from '../define';
import { anchor, itemLabels, labels } from '../labels';
import { integerScale, itemIds, range } from '../scales';

export interface Phq15Config {
  /** Whether item 4 must be answered (a trial that shows it to women only keeps it optional). */
  readonly item4Required: boolean;
}

const SCALE = integerScale(0, 2, [
  anchor(0, 'not bothered', 'nicht beeinträchtigt', 'لم يزعجني'),
  anchor(1, 'bothered a little', 'wenig beeinträchtigt', 'أزعجني قليلاً'),
  anchor(2, 'bothered a lot', 'stark beeinträchtigt', 'أزعجني كثيراً'),
]);

const TOPICS = [
  labels('stomach pain', 'Bauchschmerzen', 'ألم في المعدة'),
  labels('back pain', 'Rückenschmerzen', 'ألم في الظهر'),
  labels('pain in arms, legs or joints', 'Schmerzen in Armen, Beinen oder Gelenken', 'ألم في الذراعين أو الساقين أو المفاصل'),
  labels('menstrual problems (women only)', 'Menstruationsbeschwerden (nur Frauen)', 'مشاكل الدورة الشهرية (للنساء فقط)'),
  labels('headaches', 'Kopfschmerzen', 'صداع'),
  labels('chest pain', 'Schmerzen im Brustbereich', 'ألم في الصدر'),
  labels('dizziness', 'Schwindel', 'دوخة'),
  labels('fainting spells', 'Ohnmachtsanfälle', 'نوبات إغماء'),
  labels('heart pounding or racing', 'Herzklopfen oder Herzrasen', 'خفقان أو تسارع ضربات القلب'),
  labels('shortness of breath', 'Kurzatmigkeit', 'ضيق في التنفس'),
  labels('problems during sex', 'Probleme beim Geschlechtsverkehr', 'مشاكل أثناء العلاقة الجنسية'),
  labels('constipation or diarrhoea', 'Verstopfung oder Durchfall', 'إمساك أو إسهال'),
  labels('nausea or indigestion', 'Übelkeit oder Verdauungsbeschwerden', 'غثيان أو عسر هضم'),
  labels('tiredness or low energy', 'Müdigkeit oder Energiemangel', 'التعب أو قلة الطاقة'),
  labels('trouble sleeping', 'Schlafstörungen', 'صعوبات في النوم'),
];

export const PHQ15 = defineInstrument<Phq15Config>({ item4Required: false }, (config) => ({
  code: 'phq15',
  version: 'PHQ-15 (2002)',
  kind: 'questionnaire',
  labels: labels('Somatic symptom scale (PHQ-15)', 'Somatische Symptome (PHQ-15)', 'مقياس الأعراض الجسدية (PHQ-15)'),
  verification: 'partly_verified',
  licence: { class: 'free', itemText: 'may_ship', note: 'Free like the PHQ (keep the attribution). German and Arabic versions exist (⚠️ source not checked).' },
  items: range(1, 15).map((n) => ({ id: `item${n}`, labels: itemLabels(n, TOPICS[n - 1]), scale: SCALE, required: n !== 4 || config.item4Required })),
  subscales: [],
  total: { labels: labels('PHQ-15 total', 'PHQ-15 Summenwert', 'مجموع PHQ-15'), items: itemIds(range(1, 15)), aggregate: 'sum' },
  bands: [
    { code: 'minimal', min: 0, labels: labels('minimal', 'minimal', 'حد أدنى') },
    { code: 'low', min: 5, labels: labels('low', 'niedrig', 'منخفض') },
    { code: 'medium', min: 10, labels: labels('medium', 'mittel', 'متوسط') },
    { code: 'high', min: 15, labels: labels('high', 'hoch', 'مرتفع') },
  ],
  flags: [],
  diagnoses: [],
  assumptions: [
    'Item 4 (menstrual problems, women only ⚠️) is optional by default (config item4Required): left empty it is treated as not applicable and the total is the sum of the other 14 items (maximum 28), not prorated; the bands are applied to that sum unchanged.',
  ],
}));
