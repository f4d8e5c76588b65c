/**
 * GAD-7 (Spitzer et al. 2006) with GAD-2 (items 1–2) as a subscale, INSTRUMENTS.md §2.
 * No suicide item.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { DIFFICULTY_LABELS, DIFFICULTY_OPTIONS, FREQUENCY_0_3, itemIds, numberedItems, optionsScale, range } from '../scales';

export interface Gad7Config {
  /** ≥10: GAD sensitivity 89 %, specificity 82 %. */
  readonly screenCutOff: number;
  readonly gad2CutOff: number;
}

const TOPICS = [
  labels('nervousness', 'Nervosität', 'العصبية'),
  labels('uncontrollable worrying', 'nicht kontrollierbare Sorgen', 'قلق لا يمكن التحكم فيه'),
  labels('worrying too much', 'übermäßige Sorgen', 'القلق المفرط'),
  labels('trouble relaxing', 'Schwierigkeiten zu entspannen', 'صعوبة الاسترخاء'),
  labels('restlessness', 'Rastlosigkeit', 'التململ'),
  labels('irritability', 'Reizbarkeit', 'سرعة الانفعال'),
  labels('fear that something awful might happen', 'Angst, dass etwas Schlimmes passiert', 'الخوف من حدوث شيء سيئ'),
];

export const GAD7 = defineInstrument<Gad7Config>({ screenCutOff: 10, gad2CutOff: 3 }, (config) => ({
  code: 'gad7',
  version: 'GAD-7 (2006), 7 scored items + difficulty item',
  kind: 'questionnaire',
  labels: labels('Generalized Anxiety Disorder scale (GAD-7)', 'Generalisierte Angststörung (GAD-7)', 'مقياس اضطراب القلق العام (GAD-7)'),
  verification: 'verified',
  licence: { class: 'free', itemText: 'may_ship', note: 'Free like the PHQ (keep the attribution). German and Arabic versions exist (⚠️ source not checked).' },
  items: [...numberedItems(7, FREQUENCY_0_3, TOPICS), { id: 'item8', labels: DIFFICULTY_LABELS, scale: optionsScale(DIFFICULTY_OPTIONS), required: false }],
  subscales: [{ id: 'gad2', labels: labels('GAD-2 (items 1–2)', 'GAD-2 (Items 1–2)', 'GAD-2 (البندان 1–2)'), items: itemIds([1, 2]), aggregate: 'sum' }],
  total: { labels: labels('GAD-7 total', 'GAD-7 Summenwert', 'مجموع GAD-7'), items: itemIds(range(1, 7)), aggregate: 'sum' },
  bands: [
    { code: 'minimal', min: 0, labels: labels('minimal', 'minimal', 'حد أدنى') },
    { code: 'mild', min: 5, labels: labels('mild', 'mild', 'خفيف') },
    { code: 'moderate', min: 10, labels: labels('moderate', 'mittelgradig', 'متوسط') },
    { code: 'severe', min: 15, labels: labels('severe', 'schwer', 'شديد') },
  ],
  flags: [
    { code: 'screen_positive', kind: 'clinical', labels: labels('total at or above the screening cut-off', 'Summenwert am oder über dem Screening-Cut-off', 'المجموع عند حد الفحص أو أعلى'), when: { score: 'total', atLeast: config.screenCutOff } },
    { code: 'gad2_positive', kind: 'clinical', labels: labels('GAD-2 at or above its cut-off', 'GAD-2 am oder über dem Cut-off', 'GAD-2 عند حده أو أعلى'), when: { score: 'gad2', atLeast: config.gad2CutOff } },
  ],
  diagnoses: [],
  assumptions: ['The difficulty item (item8) is optional, always shown and never scored.'],
}));
