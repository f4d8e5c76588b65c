/**
 * WAI-SR, client version (Hatcher & Gillaspy 2006; German: Munder et al. 2010), INSTRUMENTS.md
 * §5: 12 items 1–5; subscales task, bond and goal of 4 items each.
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { integerScale, itemIds, numberedItems, range } from '../scales';

export interface WaiConfig {
  /** How subscales and total aggregate: sum (total 12–60) or mean (1–5). */
  readonly aggregate: 'sum' | 'mean';
  /** Item numbers scored reversed; none on the WAI-SR (⚠️ verify against the SPR form). */
  readonly reversed: readonly number[];
  readonly task: readonly number[];
  readonly bond: readonly number[];
  readonly goal: readonly number[];
}

const SCALE = integerScale(1, 5, [
  anchor(1, 'seldom', 'selten', 'نادراً'),
  anchor(2, 'sometimes', 'manchmal', 'أحياناً'),
  anchor(3, 'fairly often', 'ziemlich oft', 'غالباً إلى حد ما'),
  anchor(4, 'very often', 'sehr oft', 'كثيراً جداً'),
  anchor(5, 'always', 'immer', 'دائماً'),
]);

const TASK = labels('task', 'Aufgaben', 'المهام');
const BOND = labels('bond', 'Bindung', 'الرابطة');
const GOAL = labels('goal', 'Ziele', 'الأهداف');

export const WAI = defineInstrument<WaiConfig>({ aggregate: 'sum', reversed: [], task: [1, 2, 10, 12], bond: [3, 5, 7, 9], goal: [4, 6, 8, 11] }, (config) => {
  const topics = range(1, 12).map((n) => (config.task.includes(n) ? TASK : config.bond.includes(n) ? BOND : GOAL));
  const subscale = (id: string, name: typeof TASK, numbers: readonly number[]) => ({
    id,
    labels: name,
    items: itemIds(numbers),
    aggregate: config.aggregate,
    reversed: itemIds(numbers.filter((n) => config.reversed.includes(n))),
  });
  return {
    code: 'wai',
    version: 'WAI-SR client (2006), 12 items',
    kind: 'questionnaire',
    labels: labels('Working Alliance Inventory, short revised (WAI-SR)', 'Working Alliance Inventory, revidierte Kurzform (WAI-SR)', 'مقياس التحالف العلاجي، النسخة المختصرة المنقحة (WAI-SR)'),
    verification: 'partly_verified',
    licence: { class: 'free_ask_authors', itemText: 'ask', note: 'Open-access download, copyright SPR; linguistic validation advised for translations. German: Munder/Wilmers 2010; Arabic only for the 36-item WAI (⚠️).' },
    items: numberedItems(12, SCALE, topics),
    subscales: [subscale('task', TASK, config.task), subscale('bond', BOND, config.bond), subscale('goal', GOAL, config.goal)],
    total: { labels: labels('WAI-SR total', 'WAI-SR gesamt', 'مجموع WAI-SR'), items: itemIds(range(1, 12)), aggregate: config.aggregate, reversed: itemIds(config.reversed) },
    flags: [],
    diagnoses: [],
    assumptions: [
      'No reversed items ⚠️: the WAI-SR items are positively worded (unlike WAI-S / 36-item WAI); a premise that item 4 is reversed is not supported (item 4 is a goal item). Config "reversed" if the SPR form says otherwise.',
      'Scores are sums by default (total 12–60, subscales 4–20); config aggregate "mean" gives 1–5 means. No cut-offs (vendor bands are not published norms).',
    ],
  };
});
