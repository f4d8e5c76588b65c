/**
 * PATHEV (Patientenfragebogen zur Therapieerwartung und -evaluation; Schulte 2005),
 * INSTRUMENTS.md §5: three subscales hope of improvement, fear of change and suitability. Item
 * count, format and membership are unverified configuration; scales stay empty until set.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { configuredItems, configuredSubscales, type ConfiguredScalesConfig } from './configured';

export const PATHEV = defineInstrument<ConfiguredScalesConfig>(
  {
    itemCount: 11,
    min: 1,
    max: 5,
    aggregate: 'mean',
    scales: [
      { id: 'hope', items: [], labels: labels('hope of improvement', 'Hoffnung auf Besserung', 'الأمل في التحسن') },
      { id: 'fear_of_change', items: [], labels: labels('fear of change', 'Furcht vor Veränderung', 'الخوف من التغيير') },
      { id: 'suitability', items: [], labels: labels('suitability', 'Passung', 'الملاءمة') },
    ],
  },
  (config) => ({
    code: 'pathev',
    version: 'PATHEV (2005), unverified format',
    kind: 'questionnaire',
    labels: labels('Patient questionnaire on therapy expectation and evaluation (PATHEV)', 'Patientenfragebogen zur Therapieerwartung und -evaluation (PATHEV)', 'استبيان المريض حول توقعات العلاج وتقييمه (PATHEV)'),
    verification: 'unverified',
    licence: { class: 'permission_unclear', itemText: 'ask', note: '© author / Hogrefe journal ⚠️: ask before shipping text. Original German; Arabic unknown (❓).' },
    items: configuredItems(config, labels('not true', 'trifft nicht zu', 'لا ينطبق'), labels('completely true', 'trifft völlig zu', 'ينطبق تماماً')),
    subscales: configuredSubscales(config),
    flags: [],
    diagnoses: [],
    assumptions: [
      'PathEV is read as PATHEV (Schulte 2005), confidence high.',
      '11 items ⚠️ on a 5-point scale ⚠️ (1–5 assumed; config itemCount, min, max).',
      'Subscales hope of improvement, fear of change and suitability ✅ are item means ⚠️; their item membership is unknown, so they stay empty until configured (config scales).',
    ],
  }),
);
