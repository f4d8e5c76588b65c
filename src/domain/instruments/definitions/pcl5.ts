/**
 * PCL-5 (Weathers et al. 2013; Blevins 2015), INSTRUMENTS.md §3. Total, DSM-5 cluster sums, and
 * both provisional-diagnosis methods, which can disagree: the cut-point on the total and the
 * DSM-5 rule (item ≥ 2 counts as endorsed; 1 B, 1 C, 2 D and 2 E items). No suicide item.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { INTENSITY_0_4, itemIds, numberedItems, range } from '../scales';
import type { DeriveInput, Derived } from '../types';

export interface Pcl5Config {
  /** Provisional diagnosis at total ≥ cutOff: NCPTSD 31–33, German 33, Arabic/Kurdish 23. */
  readonly cutOff: number;
  /** Points at which an item counts as an endorsed symptom. */
  readonly endorsedAt: number;
  /** Endorsed items needed per cluster. */
  readonly minB: number;
  readonly minC: number;
  readonly minD: number;
  readonly minE: number;
}

const CLUSTERS = {
  cluster_b: range(1, 5),
  cluster_c: range(6, 7),
  cluster_d: range(8, 14),
  cluster_e: range(15, 20),
} as const;

const TOPICS = [
  labels('unwanted memories', 'ungewollte Erinnerungen', 'ذكريات مزعجة غير مرغوبة'),
  labels('disturbing dreams', 'belastende Träume', 'أحلام مزعجة'),
  labels('reliving the event', 'Wiedererleben', 'معايشة الحدث من جديد'),
  labels('upset at reminders', 'Belastung durch Erinnerungsreize', 'الانزعاج عند التذكير بالحدث'),
  labels('physical reactions to reminders', 'körperliche Reaktionen auf Erinnerungsreize', 'ردود فعل جسدية عند التذكير'),
  labels('avoiding memories and feelings', 'Vermeiden von Erinnerungen und Gefühlen', 'تجنب الذكريات والمشاعر'),
  labels('avoiding external reminders', 'Vermeiden äußerer Erinnerungsreize', 'تجنب ما يذكّر بالحدث'),
  labels('trouble remembering parts', 'Erinnerungslücken', 'صعوبة تذكر أجزاء من الحدث'),
  labels('negative beliefs', 'negative Überzeugungen', 'معتقدات سلبية'),
  labels('blaming oneself or others', 'Schuldzuweisung an sich oder andere', 'لوم النفس أو الآخرين'),
  labels('strong negative feelings', 'starke negative Gefühle', 'مشاعر سلبية قوية'),
  labels('loss of interest', 'Interessenverlust', 'فقدان الاهتمام'),
  labels('feeling distant from others', 'Entfremdung von anderen', 'الشعور بالبعد عن الآخرين'),
  labels('trouble having positive feelings', 'Schwierigkeit, positive Gefühle zu empfinden', 'صعوبة الشعور بمشاعر إيجابية'),
  labels('irritability or anger', 'Reizbarkeit oder Wut', 'سرعة الانفعال أو الغضب'),
  labels('risky behaviour', 'riskantes Verhalten', 'سلوك محفوف بالمخاطر'),
  labels('being on guard', 'übermäßige Wachsamkeit', 'الحذر المفرط'),
  labels('being easily startled', 'Schreckhaftigkeit', 'سرعة الفزع'),
  labels('difficulty concentrating', 'Konzentrationsschwierigkeiten', 'صعوبة التركيز'),
  labels('trouble sleeping', 'Schlafstörungen', 'صعوبة النوم'),
];

/** DSM-5 symptom-cluster rule; the cut-point method is a plain comparison with the total. */
function provisionalDiagnoses({ config, points, total, complete }: DeriveInput<Pcl5Config>): Derived {
  if (!complete || total === undefined) return { diagnoses: {} };
  const endorsed = (numbers: readonly number[]) => numbers.filter((n) => (points(`item${n}`) ?? 0) >= config.endorsedAt).length;
  const dsm5 =
    endorsed(CLUSTERS.cluster_b) >= config.minB &&
    endorsed(CLUSTERS.cluster_c) >= config.minC &&
    endorsed(CLUSTERS.cluster_d) >= config.minD &&
    endorsed(CLUSTERS.cluster_e) >= config.minE;
  return { diagnoses: { provisional_ptsd_cutoff: total >= config.cutOff, provisional_ptsd_dsm5: dsm5 } };
}

export const PCL5 = defineInstrument<Pcl5Config>({ cutOff: 33, endorsedAt: 2, minB: 1, minC: 1, minD: 2, minE: 2 }, () => ({
  code: 'pcl5',
  version: 'PCL-5 (2013), past month, without criterion A',
  kind: 'questionnaire',
  labels: labels('PTSD Checklist for DSM-5 (PCL-5)', 'PTBS-Checkliste für DSM-5 (PCL-5)', 'قائمة اضطراب ما بعد الصدمة وفق DSM-5 (PCL-5)'),
  verification: 'verified',
  licence: {
    class: 'public_domain',
    itemText: 'may_ship',
    note: 'US government work (NCPTSD), English text may ship. Translations can carry their own rights (German: Krüger-Gottschalk 2017; Arabic: Ibrahim 2018).',
  },
  items: numberedItems(20, INTENSITY_0_4, TOPICS),
  subscales: [
    { id: 'cluster_b', labels: labels('cluster B: intrusion', 'Cluster B: Intrusion', 'المجموعة B: الاقتحام'), items: itemIds(CLUSTERS.cluster_b), aggregate: 'sum' },
    { id: 'cluster_c', labels: labels('cluster C: avoidance', 'Cluster C: Vermeidung', 'المجموعة C: التجنب'), items: itemIds(CLUSTERS.cluster_c), aggregate: 'sum' },
    { id: 'cluster_d', labels: labels('cluster D: negative cognitions and mood', 'Cluster D: negative Kognitionen und Stimmung', 'المجموعة D: الأفكار والمزاج السلبي'), items: itemIds(CLUSTERS.cluster_d), aggregate: 'sum' },
    { id: 'cluster_e', labels: labels('cluster E: arousal and reactivity', 'Cluster E: Übererregung und Reaktivität', 'المجموعة E: الاستثارة وردود الفعل'), items: itemIds(CLUSTERS.cluster_e), aggregate: 'sum' },
  ],
  total: { labels: labels('PCL-5 total', 'PCL-5 Summenwert', 'مجموع PCL-5'), items: itemIds(range(1, 20)), aggregate: 'sum' },
  flags: [],
  diagnoses: [
    { code: 'provisional_ptsd_cutoff', labels: labels('provisional PTSD (total at or above the cut-point)', 'vorläufige PTBS (Summenwert am oder über dem Cut-off)', 'اضطراب ما بعد الصدمة المبدئي (المجموع عند الحد أو أعلى)') },
    { code: 'provisional_ptsd_dsm5', labels: labels('provisional PTSD (DSM-5 cluster rule)', 'vorläufige PTBS (DSM-5-Clusterregel)', 'اضطراب ما بعد الصدمة المبدئي (قاعدة مجموعات DSM-5)') },
  ],
  assumptions: [
    'Cut-point default 33 (German validation, Krüger-Gottschalk 2017; within the NCPTSD range 31–33); a trial with an Arabic-speaking sample may set 23 (Ibrahim 2018). Pin the value per trial arm.',
    'No severity bands: none are empirically derived.',
  ],
  derive: provisionalDiagnoses,
}));
