/**
 * The blinded outcome assessor (issue 30 item 6), under /api/blinding. Each route validates,
 * opens a transaction as the request role and calls one named SQL function, which decides who
 * may (db/migrations/0241-blinded-assessor.sql). Nothing here returns the arm to an assessor:
 * their only read, app_public.my_assessment_cases, has no treatment unless a coordinator
 * unblinded that case for them (logged).
 *
 *   GET  /api/blinding/my-cases                       the assessor's cases and assessments done
 *   POST /api/blinding/cases/:caseId/assessments      {timeOfMeasurement, ptsdSeverity, depressionSeverity, notes}
 *   GET  /api/blinding/guess-options                  the trial's arms (its public design) and dont_know
 *   POST /api/blinding/cases/:caseId/guess            {guess}: after the post assessment
 *   GET  /api/blinding/assessors                      coordinators: the assessor accounts
 *   GET  /api/blinding/assignments                    coordinators: who assesses which case
 *   POST /api/blinding/assignments                    coordinators: {caseId, assessorId}
 *   POST /api/blinding/cases/:caseId/unblind          coordinators: {assessorId, reason}, logged
 *   GET  /api/blinding/assessments.csv                coordinators: every assessment with arm and guess
 *   GET  /api/blinding/index                          coordinators: Bang's blinding index per arm (.csv too)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { toCsv } from '../../domain/instruments/export';
import { caseReadsOf } from '../integrity/access-log';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, notFound, unauthorized } from '../http/errors';
import { trialError } from './routes';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMES = ['post', 'fu1', 'fu2'] as const;

async function run<T>(pool: pg.Pool, request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
  try {
    return await withUser(pool, request.identity, fn);
  } catch (error) {
    throw trialError(error);
  }
}

function body(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function caseIdParam(value: string): string {
  if (!UUID.test(value)) throw notFound('case_not_found', 'There is no such case.');
  return value;
}

function optionalScore(value: unknown, max: number, name: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw badRequest('out_of_range', `${name} is a whole number from 0 to ${max}.`);
  }
  return value;
}

async function requireCoordinator(sql: Sql): Promise<void> {
  const { rows } = await sql.query<{ ok: boolean }>('select app_hidden.is_coordinator() as ok');
  if (!rows[0]?.ok) throw forbidden('forbidden', 'Only coordinators may do this.');
}

function sendCsv(reply: FastifyReply, fileName: string, text: string): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .send(text);
}

const ISO = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

interface AssessmentRow {
  case_id: string;
  case_code: string;
  time_of_measurement: string;
  ptsd_severity: number | null;
  depression_severity: number | null;
  assessor: string | null;
  assessed_at: string;
  treatment: string | null;
  guess: string | null;
  unblinded: boolean;
}

async function readIndex(sql: Sql) {
  const { rows } = await sql.query<{ treatment: string; guesses: number; correct: number; incorrect: number; dont_know: number; bang_index: string }>(
    'select treatment, guesses::int, correct::int, incorrect::int, dont_know::int, bang_index from app_public.blinding_index()',
  );
  return rows.map((r) => ({ treatment: r.treatment, guesses: r.guesses, correct: r.correct, incorrect: r.incorrect, dontKnow: r.dont_know, bangIndex: Number(r.bang_index) }));
}

export function registerBlindingRoutes(app: FastifyInstance, pool: pg.Pool): void {
  // The assessor ---------------------------------------------------------------------------------

  app.get('/api/blinding/my-cases', async (request) => {
    const cases = await run(pool, request, async (sql) => {
      const { rows } = await sql.query(
        `select case_id as "caseId", case_code as "caseCode", patient_name as "patientName", ${ISO('assigned_at')} as "assignedAt",
                ${ISO('post_at')} as "postAt", ${ISO('fu1_at')} as "fu1At", ${ISO('fu2_at')} as "fu2At", guessed, unblinded_arm as "unblindedArm"
           from app_public.my_assessment_cases()`,
      );
      return rows as { caseId: string }[];
    });
    // Issue 30 item 1: a staff read of the cases it lists.
    caseReadsOf(request).add('rest', 'case', cases.map((c) => c.caseId));
    return { cases };
  });

  app.post<{ Params: { caseId: string } }>('/api/blinding/cases/:caseId/assessments', async (request, reply) => {
    const caseId = caseIdParam(request.params.caseId);
    const input = body(request);
    const time = input.timeOfMeasurement;
    if (typeof time !== 'string' || !(TIMES as readonly string[]).includes(time)) throw badRequest('not_a_choice', 'timeOfMeasurement is post, fu1 or fu2.');
    const ptsd = optionalScore(input.ptsdSeverity, 80, 'ptsdSeverity');
    const depression = optionalScore(input.depressionSeverity, 60, 'depressionSeverity');
    if (ptsd === null && depression === null) throw badRequest('values_inconsistent', 'Give at least one severity.');
    if (input.notes !== undefined && input.notes !== null && (typeof input.notes !== 'string' || input.notes.length > 4000)) {
      throw badRequest('text_length', 'notes is a text of up to 4000 characters.');
    }
    const id = await run(pool, request, async (sql) => {
      const { rows } = await sql.query<{ id: string }>('select app_hidden.record_blinded_assessment($1, $2, $3, $4, $5) as id', [
        caseId, time, ptsd, depression, (input.notes as string | undefined) ?? null,
      ]);
      return rows[0]!.id;
    });
    return reply.status(201).send({ id });
  });

  app.get('/api/blinding/guess-options', async (request) =>
    run(pool, request, async (sql) => {
      const { rows } = await sql.query<{ options: string[] }>('select app_public.blinding_guess_options() as options');
      return { options: rows[0]!.options };
    }),
  );

  app.post<{ Params: { caseId: string } }>('/api/blinding/cases/:caseId/guess', async (request, reply) => {
    const caseId = caseIdParam(request.params.caseId);
    const guess = body(request).guess;
    if (typeof guess !== 'string') throw badRequest('guess_unknown', 'Choose one of the arms or "dont_know".');
    await run(pool, request, (sql) => sql.query('select app_hidden.record_arm_guess($1, $2)', [caseId, guess]));
    return reply.status(204).send();
  });

  // Coordinators ---------------------------------------------------------------------------------

  app.get('/api/blinding/assessors', async (request) =>
    run(pool, request, async (sql) => {
      await requireCoordinator(sql);
      const { rows } = await sql.query(`select id, coalesce(alias, username::text) as name from app_public.users where is_assessor_account order by 2, 1`);
      return { assessors: rows };
    }),
  );

  app.get('/api/blinding/assignments', async (request) =>
    run(pool, request, async (sql) => {
      await requireCoordinator(sql);
      const { rows } = await sql.query(
        `select a.case_id as "caseId", app_public.cases_short_id(c) as "caseCode", a.assessor_id as "assessorId",
                coalesce(u.alias, u.username::text) as "assessor", ${ISO('a.assigned_at')} as "assignedAt"
           from app_public.assessor_assignments a join app_public.cases c on c.id = a.case_id join app_public.users u on u.id = a.assessor_id
          order by a.assigned_at desc`,
      );
      return { assignments: rows };
    }),
  );

  app.post('/api/blinding/assignments', async (request, reply) => {
    const input = body(request);
    if (typeof input.caseId !== 'string' || !UUID.test(input.caseId)) throw badRequest('case_required', 'Give the case.');
    if (typeof input.assessorId !== 'string' || !UUID.test(input.assessorId)) throw badRequest('not_an_assessor', 'Give the assessor.');
    await run(pool, request, (sql) => sql.query('select app_hidden.assign_assessor($1, $2)', [input.caseId, input.assessorId]));
    return reply.status(204).send();
  });

  app.post<{ Params: { caseId: string } }>('/api/blinding/cases/:caseId/unblind', async (request, reply) => {
    const caseId = caseIdParam(request.params.caseId);
    const input = body(request);
    if (typeof input.assessorId !== 'string' || !UUID.test(input.assessorId)) throw badRequest('not_an_assessor', 'Give the assessor.');
    if (typeof input.reason !== 'string') throw badRequest('reason_required', 'Give a reason (up to 2000 characters).');
    await run(pool, request, (sql) => sql.query('select app_hidden.unblind_case_for_assessor($1, $2, $3)', [caseId, input.assessorId, input.reason]));
    return reply.status(204).send();
  });

  app.get('/api/blinding/assessments.csv', async (request, reply) => {
    const { rows, index } = await run(pool, request, async (sql) => ({
      rows: (
        await sql.query<AssessmentRow>(
          `select case_id, case_code, time_of_measurement, ptsd_severity, depression_severity, assessor, ${ISO('assessed_at')} as assessed_at,
                  treatment, guess, unblinded from app_public.blinded_assessment_rows()`,
        )
      ).rows,
      index: await readIndex(sql),
    }));
    caseReadsOf(request).add('export', 'trial', rows.map((r) => r.case_id));
    const bang = new Map(index.map((i) => [i.treatment, i.bangIndex]));
    const header = ['case_id', 'case_code', 'time_of_measurement', 'ptsd_severity', 'depression_severity', 'assessor', 'assessed_at', 'treatment',
      'arm_guess', 'guess_correct', 'unblinded_for_assessor', 'bang_blinding_index_of_arm'];
    const cells = rows.map((r) => [r.case_id, r.case_code, r.time_of_measurement, r.ptsd_severity, r.depression_severity, r.assessor, r.assessed_at,
      r.treatment, r.time_of_measurement === 'post' ? r.guess : null,
      r.time_of_measurement === 'post' && r.guess && r.treatment ? (r.guess === r.treatment ? 1 : r.guess === 'dont_know' ? null : 0) : null,
      r.unblinded ? 1 : 0, r.treatment ? (bang.get(r.treatment) ?? null) : null]);
    return sendCsv(reply, `sanad-blinded-assessments-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(header, cells));
  });

  app.get('/api/blinding/index', async (request) => run(pool, request, async (sql) => ({ arms: await readIndex(sql) })));

  app.get('/api/blinding/index.csv', async (request, reply) => {
    const arms = await run(pool, request, readIndex);
    const header = ['treatment', 'guesses', 'correct', 'incorrect', 'dont_know', 'bang_blinding_index'];
    return sendCsv(reply, `sanad-blinding-index-${new Date().toISOString().slice(0, 10)}.csv`,
      toCsv(header, arms.map((a) => [a.treatment, a.guesses, a.correct, a.incorrect, a.dontKnow, a.bangIndex])));
  });
}
