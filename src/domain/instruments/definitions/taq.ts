/**
 * TAQ, read as the Trauma Appraisal Questionnaire (DePrince et al. 2010), INSTRUMENTS.md §3:
 * 54 items, six scales. The response format and the scale membership were not verified, so
 * they are configuration and the scales stay empty until a trial sets them.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { configuredItems, configuredSubscales, type ConfiguredScalesConfig } from './configured';

export const TAQ = defineInstrument<ConfiguredScalesConfig>(
  {
    itemCount: 54,
    min: 0,
    max: 4,
    aggregate: 'mean',
    scales: [
      { id: 'alienation', items: [], labels: labels('alienation', 'Entfremdung', 'الاغتراب') },
      { id: 'anger', items: [], labels: labels('anger', 'Wut', 'الغضب') },
      { id: 'betrayal', items: [], labels: labels('betrayal', 'Verrat', 'الخيانة') },
      { id: 'fear', items: [], labels: labels('fear', 'Angst', 'الخوف') },
      { id: 'shame', items: [], labels: labels('shame', 'Scham', 'الخجل') },
      { id: 'self_blame', items: [], labels: labels('self-blame', 'Selbstbeschuldigung', 'لوم الذات') },
    ],
  },
  (config) => ({
    code: 'taq',
    version: 'Trauma Appraisal Questionnaire (2010), unverified format',
    kind: 'questionnaire',
    labels: labels('Trauma Appraisal Questionnaire (TAQ)', 'Fragebogen zur Traumabewertung (TAQ)', 'استبيان تقييم الصدمة (TAQ)'),
    verification: 'unverified',
    licence: { class: 'permission_unclear', itemText: 'ask', note: '© authors ⚠️: ask before shipping text. German and Arabic versions unknown (❓).' },
    items: configuredItems(config, labels('lowest rating', 'niedrigste Stufe', 'أدنى درجة'), labels('highest rating', 'höchste Stufe', 'أعلى درجة')),
    subscales: configuredSubscales(config),
    flags: [],
    diagnoses: [],
    assumptions: [
      'TAQ is read as the Trauma Appraisal Questionnaire (~60 % confidence); the alternative is the Traumatic Antecedents Questionnaire (van der Kolk): check the trial protocol.',
      'Response format ⚠️ not verified: 0–4 is a placeholder (config min, max).',
      'Scales alienation, anger, betrayal, fear, shame and self-blame ✅, but their item membership and aggregation (mean assumed) are not verified: every scale is empty until configured (config scales, aggregate).',
    ],
  }),
);
