/**
 * PMBS (Vogt, Shipherd & Resick 2012; NCPTSD), INSTRUMENTS.md §3: 15 items 1–7, three
 * subscale sums (5–35) and a total (15–105). Which items belong to which subscale and which
 * are reverse-coded is printed on the NCPTSD form and was not verified: both are configuration.
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { integerScale, itemIds, numberedItems, range } from '../scales';

export interface PmbsConfig {
  readonly threatOfHarm: readonly number[];
  readonly selfWorth: readonly number[];
  readonly reliability: readonly number[];
  /** Item numbers scored reversed (8 − points). */
  readonly reversed: readonly number[];
}

const SCALE = integerScale(1, 7, [anchor(1, 'not true', 'trifft nicht zu', 'غير صحيح'), anchor(7, 'completely true', 'trifft vollständig zu', 'صحيح تماماً')]);

export const PMBS = defineInstrument<PmbsConfig>({ threatOfHarm: [], selfWorth: [], reliability: [], reversed: [] }, (config) => {
  const subscale = (id: string, name: ReturnType<typeof labels>, numbers: readonly number[]) => ({
    id,
    labels: name,
    items: itemIds(numbers),
    aggregate: 'sum' as const,
    reversed: itemIds(numbers.filter((n) => config.reversed.includes(n))),
  });
  return {
    code: 'pmbs',
    version: 'PMBS (2012), 15 items',
    kind: 'questionnaire',
    labels: labels('Posttraumatic Maladaptive Beliefs Scale (PMBS)', 'Skala posttraumatischer dysfunktionaler Überzeugungen (PMBS)', 'مقياس المعتقدات غير التكيفية بعد الصدمة (PMBS)'),
    verification: 'partly_verified',
    licence: { class: 'public_domain', itemText: 'may_ship', note: 'Developed by NCPTSD staff (likely public domain); English text may ship. German and Arabic versions unknown (❓).' },
    items: numberedItems(15, SCALE),
    subscales: [
      subscale('threat_of_harm', labels('threat of harm', 'Bedrohung durch Schaden', 'التهديد بالأذى'), config.threatOfHarm),
      subscale('self_worth', labels('self-worth and judgment', 'Selbstwert und Urteilsvermögen', 'قيمة الذات والحكم'), config.selfWorth),
      subscale('reliability', labels('reliability and trustworthiness of others', 'Verlässlichkeit und Vertrauenswürdigkeit anderer', 'موثوقية الآخرين وجدارتهم بالثقة'), config.reliability),
    ],
    total: { labels: labels('PMBS total', 'PMBS gesamt', 'مجموع PMBS'), items: itemIds(range(1, 15)), aggregate: 'sum', reversed: itemIds(config.reversed) },
    flags: [],
    diagnoses: [],
    assumptions: [
      'Subscale membership ⚠️ not verified (5 items each): empty by default, so subscale scores stay empty until a trial sets them from the NCPTSD form (config threatOfHarm, selfWorth, reliability); a guessed membership would give plausible-looking wrong scores.',
      'Reverse-coded items ⚠️ not verified: none by default, so the total is a plain sum until config "reversed" is set from the NCPTSD form.',
      'A 2024 paper (B-PMBS) questions the three-factor structure; the subscales are kept as published.',
    ],
  };
});
