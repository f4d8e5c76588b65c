/**
 * The questionnaire collections of spec §7 (`/api/phq9`, …), one per instrument definition.
 * A POST upserts one record per case and time of measurement; the server validates the answers
 * before anything is written and computes the scores after (INSTRUMENTS.md §7): a score sent
 * by a client is refused. Reads show scores to the care team and coordinators only (the
 * `<code>_records` view). See docs/DECISIONS.md "Questionnaires".
 */
import { INSTRUMENT_CODES, INSTRUMENTS, score, validateAnswers, type FieldError, type InstrumentCode, type InstrumentDefinition } from '../../domain/instruments';
import { isAnswered } from '../../domain/instruments/answers';
import { defineCollection, RestError, type Collection, type Row, type WriteContext } from '../rest';
import { answerColumns, CONFLICT_KEY, questionnaireColumns, readViewOf, tableOf, writableColumns } from './columns';
import { storedAnswers } from './records';
import { applyScreeningExclusions, isScreeningInput } from './screening';
import { reportCompletedMeasurement } from './completion';
import { DEFAULT_SCHEDULE, isMeasurementTime, type MeasurementSchedule } from '../../domain/measurements';

/** 400 in PostgREST's shape, listing every problem; `details` is JSON for forms to show per item. */
function invalidAnswers(code: string, problems: readonly FieldError[]): RestError {
  const summary = problems.map((p) => `${p.field || '(body)'} ${p.code}`).join(', ');
  return new RestError(
    400,
    '23514',
    `The answers do not fit ${code}: ${summary}`,
    JSON.stringify(problems),
    'Send each item as a value of its response scale; scores are computed by the server.',
  );
}

/**
 * Before the write: empty answers become empty columns, and the record as it will be after a
 * merge (stored answers, then the sent ones) is validated, so an item that a changed answer
 * hides must be cleared in the same request. Missing answers are allowed (a form saves as it
 * goes); the record is then incomplete and has no total.
 */
async function validateRecord(code: InstrumentCode, definition: InstrumentDefinition, row: Row, ctx: WriteContext): Promise<void> {
  const sent: Row = {};
  for (const item of definition.items) {
    if (!Object.hasOwn(row, item.id)) continue;
    if (!isAnswered(row[item.id]) && row[item.id] !== null) row[item.id] = null;
    sent[item.id] = row[item.id];
  }
  // A record that carries every item replaces all stored answers: nothing stored can change the result.
  const whole = definition.items.every((item) => Object.hasOwn(sent, item.id));
  const answers = whole ? sent : { ...(await storedAnswers(ctx.sql, code, definition, row.case_id, row.time_of_measurement)), ...sent };
  const problems = validateAnswers(definition, answers, { partial: true });
  if (problems.length > 0) throw invalidAnswers(code, problems);
}

/**
 * After the write: scores from the stored answers (after the merge), kept by the database's own
 * function, since no request role may write a score column.
 */
async function storeScores(code: InstrumentCode, definition: InstrumentDefinition, row: Row, ctx: WriteContext): Promise<{ complete: boolean }> {
  const result = score(definition, row);
  const nullFor = (record: Record<string, unknown> | undefined) =>
    record === undefined ? null : JSON.stringify(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v ?? null])));
  await ctx.sql.query('select app_hidden.store_questionnaire_scores($1, $2, $3, $4, $5::jsonb, $6::text[], $7::jsonb, $8)', [
    code,
    row.id,
    result.total ?? null,
    result.band ?? null,
    nullFor(result.subscales),
    result.flags,
    nullFor(result.diagnoses),
    result.complete,
  ]);
  return result;
}

export function questionnaireCollection(code: InstrumentCode, definition: InstrumentDefinition, schedule: MeasurementSchedule = DEFAULT_SCHEDULE): Collection {
  return defineCollection({
    name: code,
    table: tableOf(code),
    readFrom: readViewOf(code),
    columns: questionnaireColumns(definition),
    writable: writableColumns(definition),
    conflictKey: [...CONFLICT_KEY],
    // The stored record as its writer may read it in the table: what scoring needs, without a read back.
    writeReturns: answerColumns(definition),
    defaultOrder: [{ column: 'created_at' }, { column: 'id' }],
    methods: ['GET', 'POST', 'DELETE'],
    maxRows: 1000,
    beforeWrite: (row, ctx) => validateRecord(code, definition, row, ctx),
    async afterWrite(row, ctx) {
      const { complete } = await storeScores(code, definition, row, ctx);
      // Spec §4: a screening answer may exclude the patient, decided in this same transaction.
      if (row.time_of_measurement === 'screening' && isScreeningInput(code)) await applyScreeningExclusions(ctx.sql, row.case_id as string);
      // Spec §4: once every questionnaire due at this time is complete, the workflow is told.
      const time = row.time_of_measurement;
      if (complete && isMeasurementTime(time) && schedule[time].includes(code)) {
        await reportCompletedMeasurement(ctx.sql, row.case_id as string, time, schedule[time]);
      }
    },
  });
}

/** Every questionnaire collection, in the spec's order, telling the workflow by `schedule`. */
export function questionnaireCollections(schedule: MeasurementSchedule = DEFAULT_SCHEDULE): readonly Collection[] {
  return INSTRUMENT_CODES.map((code) => questionnaireCollection(code, INSTRUMENTS[code], schedule));
}
