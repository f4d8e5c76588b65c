/**
 * INEP (Ladwig, Rief & Nestoriuc 2014), INSTRUMENTS.md §5: negative effects of psychotherapy.
 * Change items are bipolar (negative ↔ positive) with an attribution (the therapy or other
 * circumstances); misconduct items are rated for agreement. The two evaluation scales are
 * counts: side effects (negative changes attributed to the therapy) and therapeutic misconduct.
 * The split of the 21 items and the ranges come from secondary sources: configuration.
 */
import { defineInstrument } from '../define';
import { anchor, itemLabels, labels, option } from '../labels';
import { endpointScale, integerScale, optionsScale, range } from '../scales';
import type { DeriveInput, Derived, ItemDefinition } from '../types';

export interface InepConfig {
  /** Items 1…changeItems are bipolar change items with an attribution. */
  readonly changeItems: number;
  /** The following items are misconduct items. */
  readonly misconductItems: number;
  /** Bipolar range, negative pole first (e.g. −3…+3). */
  readonly changeMin: number;
  readonly changeMax: number;
  readonly misconductMax: number;
  /** Misconduct item rating from which it counts as present. */
  readonly misconductPresentAt: number;
}

const ATTRIBUTION = optionsScale([
  option('therapy', 'the therapy', 'die Therapie', 'العلاج'),
  option('other', 'other circumstances', 'andere Umstände', 'ظروف أخرى'),
]);

function changeItem(n: number, config: InepConfig): ItemDefinition[] {
  const nonZero = range(config.changeMin, config.changeMax).filter((v) => v !== 0);
  return [
    {
      id: `item${n}`,
      labels: itemLabels(n, labels('change', 'Veränderung', 'التغيّر')),
      scale: integerScale(config.changeMin, config.changeMax, [
        anchor(config.changeMin, 'strong negative change', 'starke negative Veränderung', 'تغيّر سلبي كبير'),
        anchor(0, 'no change', 'keine Veränderung', 'لا تغيير'),
        anchor(config.changeMax, 'strong positive change', 'starke positive Veränderung', 'تغيّر إيجابي كبير'),
      ]),
      required: true,
    },
    {
      id: `item${n}_attribution`,
      labels: itemLabels(n, labels('attributed to', 'zurückgeführt auf', 'يُعزى إلى')),
      scale: ATTRIBUTION,
      required: true,
      showIf: { item: `item${n}`, anyOf: nonZero },
    },
  ];
}

function counts({ config, points, value }: DeriveInput<InepConfig>): Derived {
  const changes = range(1, config.changeItems).map((n) => ({ change: points(`item${n}`), attribution: value(`item${n}_attribution`) }));
  const misconduct = range(config.changeItems + 1, config.changeItems + config.misconductItems).map((n) => points(`item${n}`));
  const known = <T>(values: (T | undefined)[]) => values.every((v) => v !== undefined);
  const negative = changes.filter((c) => (c.change ?? 0) < 0);
  const sideEffects = known(negative.map((c) => c.attribution)) && known(changes.map((c) => c.change)) ? negative.filter((c) => c.attribution === 'therapy').length : undefined;
  const misconductCount = known(misconduct) ? misconduct.filter((p) => p! >= config.misconductPresentAt).length : undefined;
  const flags = [...(sideEffects ? ['side_effects'] : []), ...(misconductCount ? ['misconduct'] : [])];
  return {
    subscales: {
      negative_changes: known(changes.map((c) => c.change)) ? negative.length : undefined,
      positive_changes: known(changes.map((c) => c.change)) ? changes.filter((c) => (c.change ?? 0) > 0).length : undefined,
      side_effects: sideEffects,
      misconduct: misconductCount,
    },
    flags,
  };
}

export const INEP = defineInstrument<InepConfig>({ changeItems: 15, misconductItems: 6, changeMin: -3, changeMax: 3, misconductMax: 3, misconductPresentAt: 1 }, (config) => {
  const changeIds = range(1, config.changeItems).map((n) => `item${n}`);
  const misconductIds = range(config.changeItems + 1, config.changeItems + config.misconductItems).map((n) => `item${n}`);
  const misconductScale = endpointScale(0, config.misconductMax, labels('does not apply at all', 'trifft gar nicht zu', 'لا ينطبق إطلاقاً'), labels('fully applies', 'trifft völlig zu', 'ينطبق تماماً'));
  return {
    code: 'inep',
    version: 'INEP (2014), 21 items',
    kind: 'questionnaire',
    labels: labels('Inventory of negative effects of psychotherapy (INEP)', 'Inventar zur Erfassung negativer Effekte von Psychotherapie (INEP)', 'مقياس الآثار السلبية للعلاج النفسي (INEP)'),
    verification: 'partly_verified',
    licence: { class: 'free_ask_authors', itemText: 'ask', note: 'Free download (HSU Hamburg), © authors: ask before shipping text. German original; Arabic unknown (❓).' },
    items: [
      ...range(1, config.changeItems).flatMap((n) => changeItem(n, config)),
      ...misconductIds.map((id, index) => ({ id, labels: itemLabels(config.changeItems + index + 1, labels('therapist conduct', 'Verhalten in der Therapie', 'السلوك في العلاج')), scale: misconductScale, required: true })),
    ],
    subscales: [
      { id: 'negative_changes', labels: labels('number of negative changes', 'Anzahl negativer Veränderungen', 'عدد التغيرات السلبية'), items: changeIds, aggregate: 'derived' },
      { id: 'positive_changes', labels: labels('number of positive changes', 'Anzahl positiver Veränderungen', 'عدد التغيرات الإيجابية'), items: changeIds, aggregate: 'derived' },
      { id: 'side_effects', labels: labels('side effects (negative changes attributed to the therapy)', 'Nebenwirkungen (auf die Therapie zurückgeführte negative Veränderungen)', 'الآثار الجانبية (تغيرات سلبية تُعزى إلى العلاج)'), items: changeIds.flatMap((id) => [id, `${id}_attribution`]), aggregate: 'derived' },
      { id: 'misconduct', labels: labels('therapeutic misconduct (items present)', 'therapeutisches Fehlverhalten (vorhandene Items)', 'سوء السلوك العلاجي (البنود الموجودة)'), items: misconductIds, aggregate: 'derived' },
    ],
    flags: [
      { code: 'side_effects', kind: 'clinical', labels: labels('at least one side effect', 'mindestens eine Nebenwirkung', 'أثر جانبي واحد على الأقل') },
      { code: 'misconduct', kind: 'clinical', labels: labels('at least one misconduct item', 'mindestens ein Item zu Fehlverhalten', 'بند واحد على الأقل لسوء السلوك') },
    ],
    diagnoses: [],
    assumptions: [
      'Item split ⚠️: items 1–15 are bipolar change items with an attribution, items 16–21 misconduct items (config changeItems, misconductItems); the 21-item total and the two evaluation scales are ✅. Take the split and ranges from the official "Auswertungsanleitung".',
      'Change items are stored −3…+3 with the negative pole negative ⚠️ (the paper form varies which pole is printed first; data entry maps it). Misconduct items 0–3 ⚠️ (config changeMin, changeMax, misconductMax).',
      'The attribution is asked only for a change (value ≠ 0) and is then required. Side effects = negative changes attributed to the therapy; misconduct = misconduct items rated ≥1 (config misconductPresentAt); both reported as counts and as presence flags.',
      'The spec annotates pg13 as a "15-item agreement and attribution scale with negative and positive scores"; that matches this structure, so negative and positive change counts are reported here.',
    ],
    derive: counts,
  };
});
