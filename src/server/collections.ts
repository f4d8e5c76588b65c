/**
 * The REST collections of spec §7 served at /api/<name> by the PostgREST-style layer
 * (src/server/rest). Each feature adds its collections here; row-level security decides what
 * each person reads and writes.
 */
import { defineCollection, type CollectionRegistry } from './rest';
import { questionnaireCollections } from './questionnaires/collections';
import type { MeasurementSchedule } from '../domain/measurements';
import { WORKFLOW_COLLECTIONS } from './workflow/collections';
import { REPORT_COLLECTIONS } from './reports/collections';
import { WORKSHEET_COLLECTIONS } from './worksheets/collections';
import { LETTERS, LETTER_TEMPLATES } from './letters/collections';

/** The signed-in person's messages across their cases, with unread state (spec §7). */
export const MY_MESSAGES = defineCollection({
  name: 'my_messages',
  table: 'app_public.my_messages',
  methods: ['GET'],
  columns: {
    id: 'uuid',
    case_id: 'uuid',
    sender_id: 'uuid',
    from_system: 'bool',
    subject: 'text',
    body: 'text',
    to_interviewers: 'bool',
    to_patients: 'bool',
    to_supervisors: 'bool',
    to_therapists: 'bool',
    to_supporters: 'bool',
    to_counselors: 'bool',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    sent_at: 'timestamptz',
    is_unread: 'bool',
  },
  defaultOrder: [
    { column: 'sent_at', dir: 'desc', nulls: 'first' },
    { column: 'created_at', dir: 'desc' },
  ],
  maxRows: 2000,
});

/** The app's collections; the questionnaires tell the workflow by the configured schedule. */
export function appCollections(schedule: MeasurementSchedule): CollectionRegistry {
  return [MY_MESSAGES, ...WORKFLOW_COLLECTIONS, ...questionnaireCollections(schedule), ...REPORT_COLLECTIONS, ...WORKSHEET_COLLECTIONS, LETTER_TEMPLATES, LETTERS];
}
