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

/**
 * The patient's exclusion flags as the workflow variables `excluded` and `exclusionReasons`
 * (the flags' names, comma-separated, in the order of EXCLUSION_COLUMNS), read in the statement
 * that reports the completion, as its writer: no round trip of its own. Names come from code.
 */
function exclusionVariablesSql(caseParameter: string): string {
  const flags = Object.entries(EXCLUSION_COLUMNS) as [string, string][];
  const anyFlag = flags.map(([, column]) => `u.${column}`).join(' or ');
  const reasons = flags.map(([flag, column]) => `case when u.${column} then '${flag}' end`).join(', ');
  return `coalesce((select jsonb_build_object(
             'excluded', jsonb_build_object('value', coalesce(u.excluded or ${anyFlag}, false), 'type', 'Boolean'),
             'exclusionReasons', jsonb_build_object('value', concat_ws(',', ${reasons}), 'type', 'String'))
        from app_public.case_members m join app_public.users u on u.id = m.user_id
       where m.case_id = ${caseParameter} and m.acts_as_patient
       limit 1),
     '{"excluded": {"value": false, "type": "Boolean"}, "exclusionReasons": {"value": "", "type": "String"}}'::jsonb)`;
}

/**
 * The statement that records a completion (and queues the workflow message the first time); at
 * screening with the patient's exclusions as variables (spec §4: the process ends an excluded
 * patient's case), at other times without variables.
 */
export function completionStatement(caseId: string, timeOfMeasurement: string, due: readonly InstrumentCode[]): Statement {
  const variables = timeOfMeasurement === 'screening' ? exclusionVariablesSql('$1::uuid') : `'{}'::jsonb`;
  return {
    text: `select app_hidden.record_measurement_completion($1, $2, $3::text[], ${variables}) as reported`,
    values: [caseId, timeOfMeasurement, due],
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
  const { text, values } = completionStatement(caseId, timeOfMeasurement, due);
  const { rows } = await sql.query<{ reported: boolean }>(text, [...values]);
  return rows[0]?.reported === true;
}
