/**
 * Scaling question: one rating from 0 to 10 (as in solution-focused "where are you today on a
 * scale from 0 to 10"), optionally with what was rated. Spec §3 only names the collection.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { endpointScale, textScale } from '../scales';

export interface ScalingConfig {
  readonly min: number;
  readonly max: number;
}

export const SCALING = defineInstrument<ScalingConfig>({ min: 0, max: 10 }, (config) => ({
  code: 'scaling',
  version: 'Sanad scaling question 1',
  kind: 'questionnaire',
  labels: labels('Scaling question', 'Skalierungsfrage', 'سؤال التدرج'),
  verification: 'project',
  licence: { class: 'project', itemText: 'project', note: 'The project’s own question; labels are its wording.' },
  items: [
    { id: 'item1', labels: labels('How do you rate it today?', 'Wie schätzen Sie es heute ein?', 'كيف تقيّمه اليوم؟'), scale: endpointScale(config.min, config.max, labels('worst', 'am schlechtesten', 'الأسوأ'), labels('best', 'am besten', 'الأفضل')), required: true },
    { id: 'topic', labels: labels('What did you rate?', 'Was haben Sie eingeschätzt?', 'ما الذي قيّمته؟'), scale: textScale(500, false), required: false },
  ],
  subscales: [],
  total: { labels: labels('rating', 'Einschätzung', 'التقييم'), items: ['item1'], aggregate: 'sum' },
  flags: [],
  diagnoses: [],
  assumptions: [
    'Spec §3 gives no content for "scaling": defined as one integer rating 0 (worst) to 10 (best), like a visual-analogue scale in whole steps, with an optional short text saying what was rated (e.g. the therapy goal). The total is the rating. Config min, max.',
  ],
}));
