/**
 * A time of measurement is complete when every questionnaire due at that time (the schedule in
 * src/domain/measurements.ts) holds a complete record. The first completion tells the workflow
 * (spec §4: after the screening "the workflow is told so the process moves on"): the database
 * function checks the records itself, remembers the completion, and queues the message
 * `screeningCompleted` or `<time>MeasurementCompleted` (`preMeasurementCompleted`, …) in the outbox of migration 0010, all in the
 * writer's transaction.
 */
import type { InstrumentCode } from '../../domain/instruments';
import type { Sql, Statement } from '../db/transaction';
import { EXCLUSION_COLUMNS } from './screening';

type Variables = Record<string, { value: unknown; type: 'String' | 'Boolean' }>;

/** The patient's exclusion flags as the workflow variables `excluded` and `exclusionReasons`. */
async function exclusionVariables(sql: Sql, caseId: string): Promise<Variables> {
  const columns = Object.values(EXCLUSION_COLUMNS);
  const { rows } = await sql.query<Record<string, boolean>>(
    `select u.excluded, ${columns.map((c) => `u.${c}`).join(', ')}
       from app_public.case_members m join app_public.users u on u.id = m.user_id
      where m.case_id = $1 and m.acts_as_patient
      limit 1`,
    [caseId],
  );
  const flags = rows[0] ?? {};
  const reasons = (Object.entries(EXCLUSION_COLUMNS) as [string, string][]).filter(([, column]) => flags[column]).map(([flag]) => flag);
  return {
    excluded: { value: Boolean(flags.excluded) || reasons.length > 0, type: 'Boolean' },
    exclusionReasons: { value: reasons.join(','), type: 'String' },
  };
}

/** The statement that records a completion (and queues the workflow message the first time). */
export function completionStatement(caseId: string, timeOfMeasurement: string, due: readonly InstrumentCode[], variables: Variables): Statement {
  return {
    text: 'select app_hidden.record_measurement_completion($1, $2, $3::text[], $4::jsonb) as reported',
    values: [caseId, timeOfMeasurement, due, JSON.stringify(variables)],
  };
}

/**
 * Reports the time of measurement as complete when it is; true only for the first completion,
 * which queued the workflow message.
 */
export async function reportCompletedMeasurement(
  sql: Sql,
  caseId: string,
  timeOfMeasurement: string,
  due: readonly InstrumentCode[],
): Promise<boolean> {
  if (due.length === 0) return false;
  const variables = timeOfMeasurement === 'screening' ? await exclusionVariables(sql, caseId) : {};
  const { text, values } = completionStatement(caseId, timeOfMeasurement, due, variables);
  const { rows } = await sql.query<{ reported: boolean }>(text, [...values]);
  return rows[0]?.reported === true;
}
