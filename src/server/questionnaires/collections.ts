/**
 * The questionnaire collections of spec §7 (`/api/phq9`, …), one per instrument definition.
 * A POST upserts one record per case and time of measurement; the server validates the answers
 * before anything is written and computes the scores after (INSTRUMENTS.md §7): a score sent
 * by a client is refused. Reads show scores to the care team and coordinators only (the
 * `<code>_records` view). See docs/decisions/0011-questionnaire-tables-and-scores.md.
 */
import { INSTRUMENT_CODES, INSTRUMENTS, score, validateAnswers, type FieldError, type InstrumentCode, type InstrumentDefinition } from '../../domain/instruments';
import { isAnswered } from '../../domain/instruments/answers';
import type { Statement } from '../db/transaction';
import { defineCollection, RestError, type Collection, type Row, type WriteContext, type WritePlan } from '../rest';
import { answerColumns, CONFLICT_KEY, type ScoreColumn, questionnaireColumns, readViewOf, tableOf, writableColumns } from './columns';
import { storedAnswers } from './records';
import { applyScreeningExclusions, isScreeningInput } from './screening';
import { completionStatement, reportCompletedMeasurement } from './completion';
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
 * The sent answers, with empty answers made empty columns (in the row too), and whether they
 * are a whole record: a record that carries every item replaces all stored answers, so nothing
 * stored can change what is validated and scored.
 */
function sentAnswers(definition: InstrumentDefinition, row: Row): { sent: Row; whole: boolean } {
  const sent: Row = {};
  for (const item of definition.items) {
    if (!Object.hasOwn(row, item.id)) continue;
    if (!isAnswered(row[item.id]) && row[item.id] !== null) row[item.id] = null;
    sent[item.id] = row[item.id];
  }
  return { sent, whole: definition.items.every((item) => Object.hasOwn(sent, item.id)) };
}

function checkAnswers(code: InstrumentCode, definition: InstrumentDefinition, answers: Row): void {
  const problems = validateAnswers(definition, answers, { partial: true });
  if (problems.length > 0) throw invalidAnswers(code, problems);
}

/**
 * Before the write: the record as it will be after a merge (stored answers, then the sent ones)
 * is validated, so an item that a changed answer hides must be cleared in the same request.
 * Missing answers are allowed (a form saves as it goes); the record is then incomplete and has
 * no total.
 */
async function validateRecord(code: InstrumentCode, definition: InstrumentDefinition, row: Row, ctx: WriteContext): Promise<void> {
  const { sent, whole } = sentAnswers(definition, row);
  checkAnswers(code, definition, whole ? sent : { ...(await storedAnswers(ctx.sql, code, definition, row.case_id, row.time_of_measurement)), ...sent });
}

/** A record's scores as their columns hold them. */
export interface StoredScores extends Record<ScoreColumn, unknown> {
  total: number | null;
  band: string | null;
  subscales: Record<string, unknown> | null;
  flags: string[];
  diagnoses: Record<string, unknown> | null;
  complete: boolean;
}

/** The scores as their columns hold them: a missing subscale or diagnosis is null. */
export function scoreColumns(result: ReturnType<typeof score>): StoredScores {
  const nullFor = (record: Record<string, unknown> | undefined) =>
    record === undefined ? null : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v ?? null]));
  return {
    total: result.total ?? null,
    band: result.band ?? null,
    subscales: nullFor(result.subscales),
    flags: result.flags,
    diagnoses: nullFor(result.diagnoses),
    complete: result.complete,
  };
}

/**
 * After the write: scores from the stored answers (after the merge), kept by the database's own
 * function, since the request role may not write a score column.
 */
async function storeScores(code: InstrumentCode, definition: InstrumentDefinition, row: Row, ctx: WriteContext): Promise<{ complete: boolean }> {
  const result = score(definition, row);
  const s = scoreColumns(result);
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  await ctx.sql.query('select app_hidden.store_questionnaire_scores($1, $2, $3, $4, $5::jsonb, $6::text[], $7::jsonb, $8)', [
    code,
    row.id,
    s.total,
    s.band,
    json(s.subscales),
    s.flags,
    json(s.diagnoses),
    s.complete,
  ]);
  return result;
}

/**
 * A whole record (every item sent), except a screening input at screening: validated and
 * scored before the transaction opens, since the stored answers will be the sent ones, and
 * upserted with its scores as sanad_scorer (migration 0081: one write instead of the answers
 * and then the scores), with the completion reported (at screening with the patient's
 * exclusions, read in the same statement) and the record read back in the same message
 * (routes.ts planWrite). The screening inputs at screening decide exclusions from the case's
 * other stored records, and partial records merge with the stored answers: both take the usual
 * path (beforeWrite, afterWrite).
 */
function planWholeRecord(code: InstrumentCode, definition: InstrumentDefinition, schedule: MeasurementSchedule, row: Row): WritePlan | undefined {
  const time = row.time_of_measurement;
  if ((time === 'screening' && isScreeningInput(code)) || typeof row.case_id !== 'string' || typeof time !== 'string') return undefined;
  const { sent, whole } = sentAnswers(definition, row);
  if (!whole) return undefined;
  checkAnswers(code, definition, sent);
  const result = score(definition, sent);
  const after: Statement[] = [];
  if (result.complete && isMeasurementTime(time) && schedule[time].includes(code)) after.push(completionStatement(row.case_id, time, schedule[time]));
  return { row: { ...row, ...scoreColumns(result) }, after, role: 'sanad_scorer' };
}

export function questionnaireCollection(code: InstrumentCode, definition: InstrumentDefinition, schedule: MeasurementSchedule = DEFAULT_SCHEDULE): Collection {
  return defineCollection({
    name: code,
    recordKind: 'questionnaires',
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
    // speed (issue 17): a whole record is written, scored and read back in one round trip.
    planWrite: (row) => planWholeRecord(code, definition, schedule, row),
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
