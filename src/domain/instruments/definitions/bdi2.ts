/**
 * BDI-II (Beck, Steer & Brown 1996), INSTRUMENTS.md §2. Pearson's commercial instrument: no
 * item or option wording here, ever; the options are "Statement 0"…"Statement 3". Items 16
 * (sleep) and 18 (appetite) have seven options 0, 1a, 1b, 2a, 2b, 3a, 3b: the stored code keeps
 * the direction for clinicians, the score is the number. Item 9 is the suicide item.
 */
import { defineInstrument } from '../define';
import { itemLabels, labels, option } from '../labels';
import { integerScale, itemIds, numberedAnchors, optionsScale, range } from '../scales';
import type { ItemDefinition } from '../types';

export interface Bdi2Config {
  /** Total ≥ this is the screening exclusion of spec §9 (reported as a flag as well). */
  readonly exclusionAtLeast: number;
}

const STATEMENT = labels('Statement', 'Aussage', 'العبارة');
const SCALE = integerScale(0, 3, numberedAnchors(0, 3, STATEMENT));

/** Options of items 16 and 18: points are the number, the letter only says which direction. */
const SEVEN_OPTIONS = optionsScale(
  ['0', '1a', '1b', '2a', '2b', '3a', '3b'].map((code) => option(code, `Statement ${code}`, `Aussage ${code}`, `العبارة ${code}`, { points: Number(code[0]) })),
);

const TOPICS = [
  labels('sadness', 'Traurigkeit', 'الحزن'),
  labels('outlook on the future', 'Blick in die Zukunft', 'النظرة إلى المستقبل'),
  labels('sense of failure', 'Gefühl des Versagens', 'الشعور بالفشل'),
  labels('loss of pleasure', 'Verlust an Freude', 'فقدان المتعة'),
  labels('guilt', 'Schuldgefühle', 'الشعور بالذنب'),
  labels('feeling punished', 'Gefühl, bestraft zu werden', 'الشعور بالعقاب'),
  labels('attitude towards oneself', 'Einstellung zu sich selbst', 'الموقف من الذات'),
  labels('self-criticism', 'Selbstkritik', 'انتقاد الذات'),
  labels('suicidal thoughts or wishes', 'Suizidgedanken oder -wünsche', 'أفكار أو رغبات انتحارية'),
  labels('crying', 'Weinen', 'البكاء'),
  labels('agitation', 'Unruhe', 'الهياج'),
  labels('loss of interest', 'Interessenverlust', 'فقدان الاهتمام'),
  labels('indecisiveness', 'Entschlusslosigkeit', 'التردد'),
  labels('worthlessness', 'Wertlosigkeit', 'انعدام القيمة'),
  labels('loss of energy', 'Energieverlust', 'فقدان الطاقة'),
  labels('changes in sleep', 'Veränderungen im Schlaf', 'تغيرات في النوم'),
  labels('irritability', 'Reizbarkeit', 'سرعة الانفعال'),
  labels('changes in appetite', 'Veränderungen des Appetits', 'تغيرات في الشهية'),
  labels('concentration', 'Konzentration', 'التركيز'),
  labels('tiredness or fatigue', 'Müdigkeit oder Erschöpfung', 'التعب أو الإرهاق'),
  labels('interest in sex', 'Interesse an Sexualität', 'الاهتمام بالجنس'),
];

const items: ItemDefinition[] = range(1, 21).map((n) => ({
  id: `item${n}`,
  labels: itemLabels(n, TOPICS[n - 1]),
  scale: n === 16 || n === 18 ? SEVEN_OPTIONS : SCALE,
  required: true,
}));

export const BDI2 = defineInstrument<Bdi2Config>({ exclusionAtLeast: 45 }, (config) => ({
  code: 'bdi2',
  version: 'BDI-II (1996), data collection only',
  kind: 'questionnaire',
  labels: labels('Beck Depression Inventory II (BDI-II)', 'Beck-Depressions-Inventar II (BDI-II)', 'مقياس بيك للاكتئاب II (BDI-II)'),
  verification: 'verified',
  licence: {
    class: 'commercial',
    itemText: 'never',
    note: 'Pearson, commercial. Do not ship item text; electronic administration needs a Pearson licence. German (Hautzinger et al.) and Arabic versions are licensed through Pearson.',
  },
  items,
  subscales: [],
  total: { labels: labels('BDI-II total', 'BDI-II Summenwert', 'مجموع BDI-II'), items: itemIds(range(1, 21)), aggregate: 'sum' },
  bands: [
    { code: 'minimal', min: 0, labels: labels('minimal', 'minimal', 'حد أدنى') },
    { code: 'mild', min: 14, labels: labels('mild', 'leicht', 'خفيف') },
    { code: 'moderate', min: 20, labels: labels('moderate', 'mittelschwer', 'متوسط') },
    { code: 'severe', min: 29, labels: labels('severe', 'schwer', 'شديد') },
  ],
  flags: [
    { code: 'suicide_item', kind: 'safety', labels: labels('item 9 (suicidal thoughts or wishes) answered ≥ 1', 'Item 9 (Suizidgedanken oder -wünsche) ≥ 1', 'البند 9 (أفكار أو رغبات انتحارية) ≥ 1'), when: { item: 'item9', atLeast: 1 } },
    { code: 'exclusion_high_score', kind: 'clinical', labels: labels('total at or above the exclusion threshold (45)', 'Summenwert an oder über der Ausschlussgrenze (45)', 'المجموع عند حد الاستبعاد (45) أو أعلى'), when: { score: 'total', atLeast: config.exclusionAtLeast } },
  ],
  diagnoses: [],
  assumptions: [
    'One option per item: where a person marks several statements on paper, the highest is entered (manual rule).',
    'No proration: a missing item leaves the total empty (INSTRUMENTS.md §6; third-party prorating code is not from the manual).',
  ],
}));
