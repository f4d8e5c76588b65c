/**
 * The worksheet collections of spec §7 (`/api/cbt_thoughts`, …) and the therapist's feedback
 * (`/api/worksheet_feedback`). The forms upsert a draft by its client-made id as the patient
 * types; sending is one more upsert with `published_at` set (the database stamps its own
 * time). Row-level security and the tables' triggers decide who may write what and refuse any
 * change to a sent entry, so nothing here repeats those rules.
 */
import { WORKSHEETS, WORKSHEET_CODES, type WorksheetDefinition } from '../../domain/worksheets';
import { defineCollection, type Collection } from '../rest';

type ColumnType = 'uuid' | 'text' | 'int' | 'timestamptz' | 'text[]';

function worksheetCollection(definition: WorksheetDefinition): Collection {
  const content: Record<string, ColumnType> = {};
  for (const field of definition.fields) content[field.name] = field.kind === 'scale' ? 'int' : field.kind === 'choices' ? 'text[]' : 'text';
  const columns: Record<string, ColumnType> = {
    id: 'uuid', case_id: 'uuid', submitter_id: 'uuid', ...content, published_at: 'timestamptz', created_at: 'timestamptz', updated_at: 'timestamptz',
  };
  return defineCollection({
    name: definition.code,
    table: `app_public.${definition.code}`,
    columns,
    writable: ['id', 'case_id', ...Object.keys(content), 'published_at'],
    conflictKey: ['id'],
    defaultOrder: [{ column: 'created_at', dir: 'desc' }, { column: 'id' }],
    methods: ['GET', 'POST', 'DELETE'],
    maxRows: 1000,
  });
}

export const WORKSHEET_FEEDBACK = defineCollection({
  name: 'worksheet_feedback',
  table: 'app_public.worksheet_feedback',
  columns: {
    id: 'uuid', case_id: 'uuid', worksheet: 'text', worksheet_id: 'uuid', author_id: 'uuid', body: 'text', format: 'text',
    published_at: 'timestamptz', created_at: 'timestamptz', updated_at: 'timestamptz',
  },
  writable: ['id', 'case_id', 'worksheet', 'worksheet_id', 'body', 'format', 'published_at'],
  conflictKey: ['id'],
  defaultOrder: [{ column: 'created_at' }, { column: 'id' }],
  methods: ['GET', 'POST', 'DELETE'],
  maxRows: 2000,
});

export const WORKSHEET_COLLECTIONS: Collection[] = [...WORKSHEET_CODES.map((code) => worksheetCollection(WORKSHEETS[code])), WORKSHEET_FEEDBACK];
