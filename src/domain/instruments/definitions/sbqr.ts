/**
 * SBQ-R (Osman et al. 2001), INSTRUMENTS.md §5. The whole instrument is suicide content. Items
 * 1 and 3 store the raw option code (3a vs 3b) and score its points; the total is 3–18.
 */
import { defineInstrument } from '../define';
import { anchor, labels, option } from '../labels';
import { endpointScale, integerScale, optionsScale } from '../scales';

export interface SbqrConfig {
  /** ≥7 in the general population, ≥8 in psychiatric inpatients. */
  readonly cutOff: number;
  /** Item 1 points at which the safety flag is raised (3: at least a thought or plan). */
  readonly item1FlagAt: number;
  /** Item 4 (future likelihood 0–6) at which the safety flag is raised. */
  readonly item4FlagAt: number;
}

function answers(codes: readonly string[]) {
  return optionsScale(codes.map((code) => option(code, `Answer ${code}`, `Antwort ${code}`, `الإجابة ${code}`, { points: Number(code[0]) })));
}

const ITEM2 = integerScale(1, 5, [
  anchor(1, 'never', 'nie', 'أبداً'),
  anchor(2, 'rarely', 'selten', 'نادراً'),
  anchor(3, 'sometimes', 'manchmal', 'أحياناً'),
  anchor(4, 'often', 'oft', 'غالباً'),
  anchor(5, 'very often', 'sehr oft', 'كثيراً جداً'),
]);
const ITEM4 = endpointScale(0, 6, labels('never', 'niemals', 'أبداً'), labels('very likely', 'sehr wahrscheinlich', 'مرجح جداً'));

export const SBQR = defineInstrument<SbqrConfig>({ cutOff: 7, item1FlagAt: 3, item4FlagAt: 4 }, (config) => ({
  code: 'sbqr',
  version: 'SBQ-R (2001), 4 items',
  kind: 'questionnaire',
  labels: labels('Suicidal Behaviors Questionnaire, revised (SBQ-R)', 'Fragebogen zu suizidalem Verhalten, revidiert (SBQ-R)', 'استبيان السلوكيات الانتحارية المنقح (SBQ-R)'),
  verification: 'partly_verified',
  licence: { class: 'permission_unclear', itemText: 'ask', note: 'Freely posted (SAMHSA); copyright Osman ⚠️; confirm before shipping text. German: Glaesmer 2018; Arabic ⚠️.' },
  items: [
    { id: 'item1', labels: labels('Item 1: lifetime suicidal thoughts or attempts', 'Item 1: Suizidgedanken oder -versuche im Leben', 'البند 1: أفكار أو محاولات انتحارية مدى الحياة'), scale: answers(['1', '2', '3a', '3b', '4a', '4b']), required: true },
    { id: 'item2', labels: labels('Item 2: how often suicidal thoughts in the past year', 'Item 2: Häufigkeit von Suizidgedanken im letzten Jahr', 'البند 2: تكرار الأفكار الانتحارية في السنة الماضية'), scale: ITEM2, required: true },
    { id: 'item3', labels: labels('Item 3: telling someone about suicidal intent', 'Item 3: Mitteilung von Suizidabsichten', 'البند 3: إخبار شخص ما بنية الانتحار'), scale: answers(['1', '2a', '2b', '3a', '3b']), required: true },
    { id: 'item4', labels: labels('Item 4: own estimate of a future attempt', 'Item 4: eigene Einschätzung eines künftigen Versuchs', 'البند 4: التقدير الذاتي لمحاولة مستقبلية'), scale: ITEM4, required: true },
  ],
  subscales: [],
  total: { labels: labels('SBQ-R total (3–18)', 'SBQ-R Summenwert (3–18)', 'مجموع SBQ-R (3–18)'), items: ['item1', 'item2', 'item3', 'item4'], aggregate: 'sum' },
  flags: [
    { code: 'suicide_risk_cutoff', kind: 'safety', labels: labels('total at or above the cut-off', 'Summenwert am oder über dem Cut-off', 'المجموع عند الحد أو أعلى'), when: { score: 'total', atLeast: config.cutOff } },
    { code: 'suicide_item1', kind: 'safety', labels: labels('item 1: suicidal thought, plan or attempt', 'Item 1: Suizidgedanke, -plan oder -versuch', 'البند 1: فكرة أو خطة أو محاولة انتحارية'), when: { item: 'item1', atLeast: config.item1FlagAt } },
    { code: 'suicide_item4', kind: 'safety', labels: labels('item 4: future attempt rated likely', 'Item 4: künftiger Versuch als wahrscheinlich eingeschätzt', 'البند 4: محاولة مستقبلية مرجحة'), when: { item: 'item4', atLeast: config.item4FlagAt } },
  ],
  diagnoses: [],
  assumptions: [
    'Cut-off default 7 (general population); set 8 for psychiatric inpatient samples (config cutOff).',
    'Item 4 "high" is not defined by the sources: the safety flag is raised at ≥4 ("likely" and above on 0–6) by default (config item4FlagAt).',
    'Item 2 scale 1–5 and item 4 scale 0–6 anchors are the project’s own short labels; options of items 1 and 3 are labelled by code only until licensed wording is installed.',
  ],
}));
