/** GAD-2 (Kroenke 2007): GAD-7 items 1–2 as a questionnaire of its own, INSTRUMENTS.md §2. */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { FREQUENCY_0_3, itemIds, numberedItems } from '../scales';

export interface Gad2Config {
  readonly cutOff: number;
}

export const GAD2 = defineInstrument<Gad2Config>({ cutOff: 3 }, (config) => ({
  code: 'gad2',
  version: 'GAD-2 (2007)',
  kind: 'questionnaire',
  labels: labels('Generalized Anxiety Disorder short scale (GAD-2)', 'Generalisierte Angststörung, Kurzform (GAD-2)', 'مقياس اضطراب القلق العام المختصر (GAD-2)'),
  verification: 'verified',
  licence: { class: 'free', itemText: 'may_ship', note: 'Free like the PHQ (keep the attribution).' },
  items: numberedItems(2, FREQUENCY_0_3, [labels('nervousness', 'Nervosität', 'العصبية'), labels('uncontrollable worrying', 'nicht kontrollierbare Sorgen', 'قلق لا يمكن التحكم فيه')]),
  subscales: [],
  total: { labels: labels('GAD-2 total', 'GAD-2 Summenwert', 'مجموع GAD-2'), items: itemIds([1, 2]), aggregate: 'sum' },
  flags: [{ code: 'screen_positive', kind: 'clinical', labels: labels('total at or above the cut-off (3)', 'Summenwert am oder über dem Cut-off (3)', 'المجموع عند الحد (3) أو أعلى'), when: { score: 'total', atLeast: config.cutOff } }],
  diagnoses: [],
  assumptions: [],
}));
