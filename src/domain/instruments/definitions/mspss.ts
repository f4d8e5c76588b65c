/**
 * MSPSS (Zimet et al. 1988), INSTRUMENTS.md §5: 12 items 1–7, no reverse items; total and
 * subscales are means (significant other, family, friends: the scores spec §3 names).
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { integerScale, itemIds, numberedItems, range } from '../scales';

export interface MspssConfig {
  /** Zimet's fixed bands on the mean: low below 3, moderate 3–5, high above 5. */
  readonly moderateFrom: number;
  readonly highAbove: number;
}

const SCALE = integerScale(1, 7, [
  anchor(1, 'very strongly disagree', 'stimme überhaupt nicht zu', 'أعارض بشدة كبيرة'),
  anchor(2, 'strongly disagree', 'stimme nicht zu', 'أعارض بشدة'),
  anchor(3, 'mildly disagree', 'stimme eher nicht zu', 'أعارض قليلاً'),
  anchor(4, 'neutral', 'neutral', 'محايد'),
  anchor(5, 'mildly agree', 'stimme eher zu', 'أوافق قليلاً'),
  anchor(6, 'strongly agree', 'stimme zu', 'أوافق بشدة'),
  anchor(7, 'very strongly agree', 'stimme voll und ganz zu', 'أوافق بشدة كبيرة'),
]);

const TOPICS = [
  labels('special person there when needed', 'besondere Person ist da, wenn nötig', 'شخص مميز موجود عند الحاجة'),
  labels('special person shares joys and sorrows', 'besondere Person teilt Freud und Leid', 'شخص مميز يشاركني أفراحي وأحزاني'),
  labels('family tries to help', 'Familie versucht zu helfen', 'العائلة تحاول المساعدة'),
  labels('emotional help from family', 'emotionale Hilfe von der Familie', 'الدعم العاطفي من العائلة'),
  labels('special person as a source of comfort', 'besondere Person spendet Trost', 'شخص مميز مصدر للراحة'),
  labels('friends try to help', 'Freunde versuchen zu helfen', 'الأصدقاء يحاولون المساعدة'),
  labels('can count on friends', 'kann auf Freunde zählen', 'يمكنني الاعتماد على الأصدقاء'),
  labels('can talk about problems with family', 'kann mit der Familie über Probleme sprechen', 'يمكنني التحدث عن مشاكلي مع العائلة'),
  labels('friends share joys and sorrows', 'Freunde teilen Freud und Leid', 'أصدقاء يشاركونني أفراحي وأحزاني'),
  labels('special person cares about feelings', 'besondere Person achtet auf meine Gefühle', 'شخص مميز يهتم بمشاعري'),
  labels('family helps with decisions', 'Familie hilft bei Entscheidungen', 'العائلة تساعدني في اتخاذ القرارات'),
  labels('can talk about problems with friends', 'kann mit Freunden über Probleme sprechen', 'يمكنني التحدث عن مشاكلي مع الأصدقاء'),
];

export const MSPSS = defineInstrument<MspssConfig>({ moderateFrom: 3, highAbove: 5 }, (config) => ({
  code: 'mspss',
  version: 'MSPSS (1988), 12 items',
  kind: 'questionnaire',
  labels: labels('Multidimensional Scale of Perceived Social Support (MSPSS)', 'Multidimensionale Skala wahrgenommener sozialer Unterstützung (MSPSS)', 'المقياس متعدد الأبعاد للدعم الاجتماعي المدرك (MSPSS)'),
  verification: 'verified',
  licence: { class: 'free', itemText: 'ask', note: 'Free, no permission needed (cite). German version not found (❓); Arabic: Merhi & Kazarian 2012.' },
  items: numberedItems(12, SCALE, TOPICS),
  subscales: [
    { id: 'significant_other', labels: labels('significant other (mean)', 'besondere Person (Mittelwert)', 'الشخص المميز (المتوسط)'), items: itemIds([1, 2, 5, 10]), aggregate: 'mean' },
    { id: 'family', labels: labels('family (mean)', 'Familie (Mittelwert)', 'العائلة (المتوسط)'), items: itemIds([3, 4, 8, 11]), aggregate: 'mean' },
    { id: 'friends', labels: labels('friends (mean)', 'Freunde (Mittelwert)', 'الأصدقاء (المتوسط)'), items: itemIds([6, 7, 9, 12]), aggregate: 'mean' },
  ],
  total: { labels: labels('MSPSS total (mean)', 'MSPSS gesamt (Mittelwert)', 'مجموع MSPSS (المتوسط)'), items: itemIds(range(1, 12)), aggregate: 'mean' },
  bands: [
    { code: 'low', min: 1, labels: labels('low support', 'geringe Unterstützung', 'دعم منخفض') },
    { code: 'moderate', min: config.moderateFrom, labels: labels('moderate support', 'mittlere Unterstützung', 'دعم متوسط') },
    { code: 'high', min: config.highAbove, minExclusive: true, labels: labels('high support', 'hohe Unterstützung', 'دعم مرتفع') },
  ],
  flags: [],
  diagnoses: [],
  assumptions: [
    'Bands are Zimet’s optional fixed bands on the total mean (1–2.9 low, 3–5 moderate, 5.1–7 high). Means of 12 items fall between the printed bounds (e.g. 2.92, 5.08), so "low" is below 3 and "high" is above 5 (config). Tertile splits are a study-level alternative and not computed here.',
  ],
}));
