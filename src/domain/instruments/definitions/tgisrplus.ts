/**
 * TGI-SR+ (Lenferink et al. 2022; German: Treml et al. 2024), INSTRUMENTS.md §4: 22 items,
 * total 22–110 with cut-offs for probable DSM-5-TR and ICD-11 prolonged grief disorder. The
 * diagnostic scoring rule needs the item mapping of the OSF scoring sheet, which was not
 * verified: it is configuration and yields nothing until set.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { endpointScale, itemIds, NEVER_ALWAYS_1_5, numberedItems, range } from '../scales';
import type { DeriveInput, Derived } from '../types';

export interface TgiSrPlusConfig {
  readonly itemCount: number;
  readonly min: number;
  readonly max: number;
  /** Total cut-offs (German: DSM-5-TR ≥65, ICD-11 ≥60; Dutch ≥71 / ≥75; Norwegian ≥73). */
  readonly cutOffDsm5tr: number;
  readonly cutOffIcd11: number;
  /** Diagnostic rule: a symptom is present at ≥ this rating (often/always). */
  readonly symptomPresentAt: number;
  /** Item numbers from the OSF scoring sheet; empty means "not configured". */
  readonly yearningItems: readonly number[];
  readonly dsm5trAccompanyingItems: readonly number[];
  readonly icd11AccompanyingItems: readonly number[];
  readonly impairmentItems: readonly number[];
  readonly dsm5trMinAccompanying: number;
  readonly icd11MinAccompanying: number;
}

/** The algorithmic rule; undefined while the item mapping is not configured or items are missing. */
function diagnosticRule({ config, points, total, complete }: DeriveInput<TgiSrPlusConfig>): Derived {
  if (!complete || total === undefined) return { diagnoses: {} };
  const cutoffs = { probable_pgd_dsm5tr: total >= config.cutOffDsm5tr, probable_pgd_icd11: total >= config.cutOffIcd11 };
  if (config.yearningItems.length === 0 || config.impairmentItems.length === 0) return { diagnoses: cutoffs };
  const count = (numbers: readonly number[]) => numbers.filter((n) => (points(`item${n}`) ?? 0) >= config.symptomPresentAt).length;
  const core = count(config.yearningItems) > 0;
  const impaired = count(config.impairmentItems) > 0;
  const rule = (items: readonly number[], min: number) => (items.length === 0 ? undefined : core && impaired && count(items) >= min);
  return {
    diagnoses: {
      ...cutoffs,
      pgd_dsm5tr_rule: rule(config.dsm5trAccompanyingItems, config.dsm5trMinAccompanying),
      pgd_icd11_rule: rule(config.icd11AccompanyingItems, config.icd11MinAccompanying),
    },
  };
}

export const TGISRPLUS = defineInstrument<TgiSrPlusConfig>(
  {
    itemCount: 22,
    min: 1,
    max: 5,
    cutOffDsm5tr: 65,
    cutOffIcd11: 60,
    symptomPresentAt: 4,
    yearningItems: [],
    dsm5trAccompanyingItems: [],
    icd11AccompanyingItems: [],
    impairmentItems: [],
    dsm5trMinAccompanying: 3,
    icd11MinAccompanying: 1,
  },
  (config) => {
    // Another range keeps the end labels; the middle anchors only fit the 1–5 scale.
    const scale = config.min === 1 && config.max === 5 ? NEVER_ALWAYS_1_5 : endpointScale(config.min, config.max, labels('never', 'nie', 'أبداً'), labels('always', 'immer', 'دائماً'));
    return {
      code: 'tgisrplus',
      version: 'TGI-SR+ (2022), German cut-offs (Treml 2024)',
      kind: 'questionnaire',
      labels: labels('Traumatic Grief Inventory, self-report plus (TGI-SR+)', 'Inventar traumatischer Trauer, Selbstbericht plus (TGI-SR+)', 'مقياس الحزن الصادم، التقرير الذاتي الموسّع (TGI-SR+)'),
      verification: 'partly_verified',
      licence: { class: 'free_ask_authors', itemText: 'ask', note: 'Free on OSF (osf.io/rqn5k); check the OSF licence before shipping text. German: Treml et al. 2024; other languages not verified (⚠️).' },
      items: numberedItems(config.itemCount, scale),
      subscales: [],
      total: { labels: labels('TGI-SR+ total', 'TGI-SR+ Summenwert', 'مجموع TGI-SR+'), items: itemIds(range(1, config.itemCount)), aggregate: 'sum' },
      flags: [],
      diagnoses: [
        { code: 'probable_pgd_dsm5tr', labels: labels('probable prolonged grief disorder, DSM-5-TR (cut-off)', 'wahrscheinliche anhaltende Trauerstörung, DSM-5-TR (Cut-off)', 'اضطراب حزن مطول محتمل، DSM-5-TR (الحد)') },
        { code: 'probable_pgd_icd11', labels: labels('probable prolonged grief disorder, ICD-11 (cut-off)', 'wahrscheinliche anhaltende Trauerstörung, ICD-11 (Cut-off)', 'اضطراب حزن مطول محتمل، ICD-11 (الحد)') },
        { code: 'pgd_dsm5tr_rule', labels: labels('prolonged grief disorder, DSM-5-TR (diagnostic rule)', 'anhaltende Trauerstörung, DSM-5-TR (Diagnoseregel)', 'اضطراب الحزن المطول، DSM-5-TR (القاعدة التشخيصية)') },
        { code: 'pgd_icd11_rule', labels: labels('prolonged grief disorder, ICD-11 (diagnostic rule)', 'anhaltende Trauerstörung, ICD-11 (Diagnoseregel)', 'اضطراب الحزن المطول، ICD-11 (القاعدة التشخيصية)') },
      ],
      assumptions: [
        'Response scale 1–5 (never … always) ⚠️ (config min, max); 22 items ✅ (config itemCount).',
        'Cut-offs default to the German validation (Treml 2024: DSM-5-TR ≥65, ICD-11 ≥60) because the trial runs in German and Arabic; Dutch (≥71 / ≥75) or Norwegian (≥73) sets are configuration. Pin the set per trial arm.',
        'Diagnostic rule ⚠️: symptom present at ≥4; DSM-5-TR needs a yearning/preoccupation item + ≥3 accompanying symptoms + impairment, ICD-11 a yearning/preoccupation item + ≥1 accompanying symptom + impairment. The item numbers must come from the OSF scoring sheet: until configured (yearningItems, dsm5trAccompanyingItems, icd11AccompanyingItems, impairmentItems) the rule gives no result. The time-since-loss criterion (12 / 6 months) is not asked by the items and is not checked.',
        'Item labels are numbers only: the item-to-criterion mapping is not verified.',
        'The spec annotates tgisrplus with "reexperience, avoidance, threat, affective disturbance, negative self-concept, disturbance scores, PTSD and DSO scores": those are the ITQ’s scores (the itq definition has them); the collection is read as TGI-SR+ per INSTRUMENTS.md.',
      ],
      derive: diagnosticRule,
    };
  },
);
