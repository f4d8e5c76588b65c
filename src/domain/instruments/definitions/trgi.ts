/**
 * TRGI, the Trauma-Related Guilt Inventory (Kubany et al. 1996), INSTRUMENTS.md §3 — not the
 * Texas Revised Inventory of Grief (TRIG). Item count, response range and scale membership are
 * from memory ⚠️, so all are configuration; scales are item means and stay empty until a trial
 * sets their items from the licensed manual (WPS, commercial).
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { configuredItems, configuredSubscales, type ConfiguredScalesConfig } from './configured';

export const TRGI = defineInstrument<ConfiguredScalesConfig>(
  {
    itemCount: 32,
    min: 0,
    max: 4,
    aggregate: 'mean',
    scales: [
      { id: 'global_guilt', items: [], labels: labels('global guilt', 'globale Schuld', 'الذنب العام') },
      { id: 'distress', items: [], labels: labels('distress', 'Belastung', 'الضيق') },
      { id: 'guilt_cognitions', items: [], labels: labels('guilt cognitions', 'Schuldkognitionen', 'أفكار الذنب') },
      { id: 'hindsight_responsibility', items: [], labels: labels('hindsight bias / responsibility', 'Rückschaufehler / Verantwortung', 'تحيز الإدراك المتأخر / المسؤولية') },
      { id: 'wrongdoing', items: [], labels: labels('wrongdoing', 'Fehlverhalten', 'ارتكاب الخطأ') },
      { id: 'lack_of_justification', items: [], labels: labels('lack of justification', 'fehlende Rechtfertigung', 'غياب المبرر') },
    ],
  },
  (config) => ({
    code: 'trgi',
    version: 'TRGI (1996), unverified structure',
    kind: 'questionnaire',
    labels: labels('Trauma-Related Guilt Inventory (TRGI)', 'Inventar traumabezogener Schuld (TRGI)', 'مقياس الذنب المرتبط بالصدمة (TRGI)'),
    verification: 'unverified',
    licence: { class: 'commercial', itemText: 'never', note: 'Published commercially (WPS) ⚠️: never ship text. German and Arabic versions unknown (❓).' },
    items: configuredItems(config, labels('not at all true', 'trifft überhaupt nicht zu', 'غير صحيح إطلاقاً'), labels('extremely true', 'trifft völlig zu', 'صحيح تماماً')),
    subscales: configuredSubscales(config),
    flags: [],
    diagnoses: [],
    assumptions: [
      'TRGI is read as the Trauma-Related Guilt Inventory (confidence high), not the Texas Revised Inventory of Grief (TRIG).',
      '32 items rated 0–4 ⚠️ (from memory): config itemCount, min, max.',
      'Scales (global guilt, distress, guilt cognitions with hindsight-bias/responsibility, wrongdoing, lack of justification) are item means ⚠️; their item membership is unknown, so every scale is empty until configured (config scales).',
      'No total: the TRGI reports scale scores only.',
    ],
  }),
);
