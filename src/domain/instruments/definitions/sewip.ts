/**
 * SEWIP (Skalen zur Erfassung von Wirkfaktoren in der Psychotherapie; Mander et al. 2013; English
 * SACiP), INSTRUMENTS.md §5: post-session change mechanisms. Item count, range and scales are
 * unverified configuration; scales stay empty until a trial sets them from the manual.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { configuredItems, configuredSubscales, type ConfiguredScalesConfig } from './configured';

export const SEWIP = defineInstrument<ConfiguredScalesConfig>(
  {
    itemCount: 21,
    min: 0,
    max: 4,
    aggregate: 'mean',
    scales: [
      { id: 'relationship', items: [], labels: labels('therapeutic relationship', 'therapeutische Beziehung', 'العلاقة العلاجية') },
      { id: 'resource_activation', items: [], labels: labels('resource activation', 'Ressourcenaktivierung', 'تفعيل الموارد') },
      { id: 'problem_actualization', items: [], labels: labels('problem actualization', 'Problemaktualisierung', 'تفعيل المشكلة') },
      { id: 'mastery', items: [], labels: labels('mastery', 'Bewältigung', 'التمكن') },
      { id: 'clarification', items: [], labels: labels('clarification of meaning', 'motivationale Klärung', 'توضيح المعنى') },
    ],
  },
  (config) => ({
    code: 'sewip',
    version: 'SEWIP patient version (2013), unverified structure',
    kind: 'questionnaire',
    labels: labels('Scales of change mechanisms in psychotherapy (SEWIP)', 'Skalen zur Erfassung von Wirkfaktoren in der Psychotherapie (SEWIP)', 'مقاييس عوامل التغيير في العلاج النفسي (SEWIP)'),
    verification: 'unverified',
    licence: { class: 'permission_unclear', itemText: 'ask', note: 'Research use, © authors ⚠️: ask before shipping text. Original German; Arabic unknown (❓).' },
    items: configuredItems(config, labels('not at all', 'überhaupt nicht', 'إطلاقاً'), labels('completely', 'völlig', 'تماماً')),
    subscales: configuredSubscales(config),
    flags: [],
    diagnoses: [],
    assumptions: [
      'About 21 items ⚠️ rated 0–4 ⚠️ (placeholders: config itemCount, min, max); patient post-session version assumed.',
      'Scales (e.g. relationship, resource activation, problem actualization, mastery, clarification) and their item membership ⚠️ are not verified: every scale is empty until configured from the manual (config scales); a trial may replace the list.',
      'Scale scores are item means ⚠️ (config aggregate).',
    ],
  }),
);
