/** Reading stored questionnaire answers, shared by validation and the screening rules. */
import type { Answers, InstrumentCode, InstrumentDefinition } from '../../domain/instruments';
import type { Sql } from '../db/transaction';
import { tableOf } from './columns';

/**
 * The stored answers of one record, as JSON (dates as YYYY-MM-DD, selections as arrays), read
 * as the request's person under row-level security; empty when there is none.
 */
export async function storedAnswers(sql: Sql, code: InstrumentCode, definition: InstrumentDefinition, caseId: unknown, time: unknown): Promise<Answers> {
  if (typeof caseId !== 'string' || typeof time !== 'string') return {};
  const items = definition.items.map((item) => `"${item.id}"`).join(', ');
  const { rows } = await sql.query<{ answers: string }>(
    `select to_json(r)::text as answers from (select ${items} from ${tableOf(code)} where case_id = $1 and time_of_measurement = $2) r`,
    [caseId, time],
  );
  return rows[0] ? (JSON.parse(rows[0].answers) as Answers) : {};
}
