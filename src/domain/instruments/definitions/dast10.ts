/**
 * DAST-10 (Skinner 1982), INSTRUMENTS.md §5: an interview-report module (spec §3 "DAST items 1
 * to 10"). Yes/no about the past 12 months, one point per yes except item 3 (able to stop when
 * wanted), where no scores 1. A total of 3 or more suggests rejection reason 16 (spec §4).
 */
import { defineInstrument } from '../define';
import { itemLabels, labels } from '../labels';
import { itemIds, range, yesNo } from '../scales';
import type { ItemDefinition } from '../types';

export interface Dast10Config {
  readonly cutOff: number;
  /**
   * Item 1 "no" (no drug use) hides items 2–10 and scores 0: otherwise a person who uses no
   * drugs scores 1 through the reversed item 3.
   */
  readonly skipWhenNoUse: boolean;
}

const TOPICS = [
  labels('drug use other than for medical reasons', 'Drogenkonsum außer aus medizinischen Gründen', 'تعاطي المخدرات لغير الأغراض الطبية'),
  labels('more than one drug at a time', 'mehr als eine Droge gleichzeitig', 'أكثر من مخدر في الوقت نفسه'),
  labels('able to stop when wanted', 'aufhören können, wenn gewollt', 'القدرة على التوقف عند الرغبة'),
  labels('blackouts or flashbacks', 'Blackouts oder Flashbacks', 'فقدان الوعي المؤقت أو ومضات الذاكرة'),
  labels('feeling bad or guilty about use', 'schlechtes Gewissen wegen des Konsums', 'الشعور بالذنب بسبب التعاطي'),
  labels('complaints by spouse or parents', 'Beschwerden von Partner oder Eltern', 'شكوى الزوج أو الوالدين'),
  labels('neglecting the family', 'Vernachlässigung der Familie', 'إهمال العائلة'),
  labels('illegal activities to obtain drugs', 'illegale Handlungen, um Drogen zu beschaffen', 'أنشطة غير قانونية للحصول على المخدرات'),
  labels('withdrawal symptoms', 'Entzugserscheinungen', 'أعراض الانسحاب'),
  labels('medical problems from use', 'gesundheitliche Probleme durch den Konsum', 'مشاكل صحية بسبب التعاطي'),
];

export const DAST10 = defineInstrument<Dast10Config>({ cutOff: 3, skipWhenNoUse: true }, (config) => {
  const items: ItemDefinition[] = range(1, 10).map((n) => ({
    id: `item${n}`,
    labels: itemLabels(n, TOPICS[n - 1]),
    scale: yesNo(),
    required: true,
    ...(n > 1 && config.skipWhenNoUse ? { showIf: { item: 'item1', anyOf: [true] } } : {}),
  }));
  return {
    code: 'dast10',
    version: 'DAST-10 (1982), interview module, past 12 months',
    kind: 'interview_module',
    labels: labels('Drug Abuse Screening Test (DAST-10)', 'Screening-Test für Drogenmissbrauch (DAST-10)', 'اختبار فحص تعاطي المخدرات (DAST-10)'),
    verification: 'verified',
    licence: { class: 'free_non_commercial', itemText: 'conditional', note: '© Skinner/CAMH: free for non-commercial use with credit; ship text only in a separately licensed content package or with permission.' },
    items,
    subscales: [],
    total: { labels: labels('DAST-10 total (0–10)', 'DAST-10 Summenwert (0–10)', 'مجموع DAST-10 (0–10)'), items: itemIds(range(1, 10)), aggregate: 'sum', reversed: ['item3'] },
    bands: [
      { code: 'none', min: 0, labels: labels('no problems reported', 'keine Probleme berichtet', 'لا توجد مشاكل') },
      { code: 'low', min: 1, labels: labels('low level (monitor)', 'niedrig (beobachten)', 'منخفض (متابعة)') },
      { code: 'moderate', min: 3, labels: labels('moderate level (investigate further)', 'mittel (weiter abklären)', 'متوسط (مزيد من الفحص)') },
      { code: 'substantial', min: 6, labels: labels('substantial level', 'erheblich', 'كبير') },
      { code: 'severe', min: 9, labels: labels('severe level', 'schwer', 'شديد') },
    ],
    flags: [{ code: 'cutoff_reached', kind: 'clinical', labels: labels('total 3 or more: suggests rejection reason 16', 'Summenwert 3 oder mehr: legt Ablehnungsgrund 16 nahe', 'المجموع 3 أو أكثر: يُقترح سبب الرفض 16'), when: { score: 'total', atLeast: config.cutOff } }],
    diagnoses: [],
    assumptions: [
      'Skip logic (config skipWhenNoUse, default on): item 1 "no" hides items 2–10 and the total is 0, so a person who uses no drugs does not score 1 through the reversed item 3. Switch it off to ask all ten items regardless.',
    ],
  };
});
