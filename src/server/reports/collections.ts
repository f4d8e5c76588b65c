/**
 * The report collections of spec §7: `/api/interview_reports` and
 * `/api/feedback_interview_reports` (and the read-only `/api/interview_report_versions`), with
 * the PostgREST grammar of every collection. Columns come from the one definition. A POST with
 * `Prefer: resolution=merge-duplicates` saves a draft of the booking's report (conflict key
 * booking_id); the values are validated before anything is written and the derived columns are
 * computed by the server after. Row-level security decides who reads and writes (0040).
 */
import { FEEDBACK_FIELDS, INPUT_FIELDS, REPORT_FIELDS, validateFeedbackValues, validateReportValues, type FieldType, type ReportFieldError } from '../../domain/interview-report';
import { defineCollection, RestError, type Collection, type ColumnType, type Row, type WriteContext } from '../rest';
import { storeDerived } from './service';

export function columnType(type: FieldType): ColumnType {
  switch (type.kind) {
    case 'bool':
      return 'bool';
    case 'int':
      return 'int';
    case 'date':
      return 'date';
    case 'enums':
      return 'text[]';
    case 'enum':
    case 'text':
      return 'text';
  }
}

function invalid(collection: string, problems: readonly ReportFieldError[]): RestError {
  return new RestError(
    400,
    '23514',
    `The report does not fit ${collection}: ${problems.map((p) => p.message).join(' ')}`,
    JSON.stringify(problems),
    'Send each field as a value of its type; computed fields are set by the server.',
  );
}

/** The booking must be one the caller interviews (or any, for a coordinator). */
async function requireOwnBooking(row: Row, ctx: WriteContext): Promise<void> {
  if (typeof row.booking_id !== 'string') return; // the layer reports a missing key itself
  const { rows } = await ctx.sql.query<{ interviewer_id: string | null; coordinator: boolean }>(
    `select b.interviewer_id, app_hidden.is_coordinator() as coordinator from app_public.interview_bookings b where b.id = $1`,
    [row.booking_id],
  );
  const booking = rows[0];
  if (!booking) {
    const coordinator = (await ctx.sql.query<{ c: boolean }>('select app_hidden.is_coordinator() as c')).rows[0]?.c;
    throw new RestError(coordinator ? 400 : 403, coordinator ? 'P0001' : '42501', coordinator ? `There is no interview booking ${row.booking_id}.` : 'This booking is not one of your interviews; only its interviewer or a coordinator can write its report.');
  }
  if (booking.interviewer_id !== ctx.identity.userId && !booking.coordinator) {
    throw new RestError(403, '42501', 'This booking is not one of your interviews; only its interviewer or a coordinator can write its report.');
  }
}

const META = {
  id: 'uuid',
  booking_id: 'uuid',
  case_id: 'uuid',
  interviewer_id: 'uuid',
  state: 'text',
  version: 'int',
} as const satisfies Record<string, ColumnType>;

const SIGNATURE = {
  trial_outcome: 'text',
  finalized_at: 'timestamptz',
  finalized_by: 'uuid',
  override_reason: 'text',
  override_by: 'uuid',
  amended_at: 'timestamptz',
  amended_by: 'uuid',
  amendment_reason: 'text',
  updated_at: 'timestamptz',
} as const satisfies Record<string, ColumnType>;

const fieldColumns = Object.fromEntries(REPORT_FIELDS.map((f) => [f.id, columnType(f.type)])) as Record<string, ColumnType>;

export const INTERVIEW_REPORTS: Collection = defineCollection({
  name: 'interview_reports',
  table: 'app_public.interview_reports',
  methods: ['GET', 'POST', 'DELETE'],
  columns: { ...META, ...fieldColumns, ...SIGNATURE, created_at: 'timestamptz' } as Record<string, ColumnType>,
  writable: ['booking_id', ...INPUT_FIELDS.map((f) => f.id)],
  conflictKey: ['booking_id'],
  defaultOrder: [{ column: 'created_at', dir: 'desc' }, { column: 'id' }],
  maxRows: 2000,
  async beforeWrite(row, ctx) {
    const values: Record<string, unknown> = { ...row };
    delete values.booking_id;
    const problems = validateReportValues(values);
    if (problems.length > 0) throw invalid('interview_reports', problems);
    await requireOwnBooking(row as Row, ctx);
  },
  async afterWrite(row, ctx) {
    await storeDerived(ctx.sql, row.id as string);
  },
});

export const INTERVIEW_REPORT_VERSIONS: Collection = defineCollection({
  name: 'interview_report_versions',
  table: 'app_public.interview_report_versions',
  methods: ['GET'],
  columns: { ...META, report_id: 'uuid', ...fieldColumns, ...SIGNATURE, superseded_at: 'timestamptz' } as Record<string, ColumnType>,
  defaultOrder: [{ column: 'report_id' }, { column: 'version', dir: 'desc' }],
  maxRows: 2000,
});

export const FEEDBACK_INTERVIEW_REPORTS: Collection = defineCollection({
  name: 'feedback_interview_reports',
  table: 'app_public.feedback_interview_reports',
  methods: ['GET', 'POST'],
  columns: {
    id: 'uuid',
    booking_id: 'uuid',
    case_id: 'uuid',
    interviewer_id: 'uuid',
    ...(Object.fromEntries(FEEDBACK_FIELDS.map((f) => [f.id, columnType(f.type)])) as Record<string, ColumnType>),
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  } as Record<string, ColumnType>,
  writable: ['booking_id', ...FEEDBACK_FIELDS.map((f) => f.id)],
  conflictKey: ['booking_id'],
  defaultOrder: [{ column: 'created_at', dir: 'desc' }, { column: 'id' }],
  maxRows: 2000,
  async beforeWrite(row, ctx) {
    const values: Record<string, unknown> = { ...row };
    delete values.booking_id;
    const problems = validateFeedbackValues(values);
    if (problems.length > 0) throw invalid('feedback_interview_reports', problems);
    await requireOwnBooking(row as Row, ctx);
  },
});

export const REPORT_COLLECTIONS: readonly Collection[] = [INTERVIEW_REPORTS, INTERVIEW_REPORT_VERSIONS, FEEDBACK_INTERVIEW_REPORTS];
