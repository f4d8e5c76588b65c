/** A free-text comment attached to a measurement (spec §3 "comment"). */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { textScale } from '../scales';

export interface CommentConfig {
  readonly maxLength: number;
}

export const COMMENT = defineInstrument<CommentConfig>({ maxLength: 5000 }, (config) => ({
  code: 'comment',
  version: 'Sanad comment 1',
  kind: 'questionnaire',
  labels: labels('Comment', 'Kommentar', 'تعليق'),
  verification: 'project',
  licence: { class: 'project', itemText: 'project', note: 'The project’s own field.' },
  items: [{ id: 'comment', labels: labels('What would you like to tell us?', 'Was möchten Sie uns mitteilen?', 'ما الذي تود إخبارنا به؟'), scale: textScale(config.maxLength), required: true }],
  subscales: [],
  flags: [],
  diagnoses: [],
  assumptions: ['One required free-text field of up to 5000 characters (config maxLength); not scored.'],
}));
