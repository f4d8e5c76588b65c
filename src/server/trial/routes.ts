/**
 * Trial management (issue 15), under /api/trial. Each route validates, opens a transaction as
 * the request role (withUser) and calls one named SQL function; the functions decide who may
 * (db/migrations/0060-randomization.sql, 0061-trial-management.sql).
 *
 *   GET  /api/trial/allocation                    the configuration (no sequence) and the balance
 *   POST /api/trial/allocation                    configure: generates the concealed sequence
 *                                                 and its commitment (issue 30; more in ./commitment.ts)
 *   POST /api/trial/cases/:caseId/randomize       the trial's randomization step: draws the arm and
 *                                                 completes the case's "Randomize the patient" task
 *   POST /api/trial/cases/:caseId/exclusion       sets or clears an exclusion or dropout flag
 *   GET  /api/trial/consort                       the CONSORT flow (JSON)
 *   GET  /api/trial/participants.csv              the participants export the flow counts
 *   GET  /api/trial/invoices?year=&month=         invoice items (coordinators: all; others: own)
 *   GET  /api/trial/invoices.csv?year=&month=     the same as CSV
 *   POST /api/trial/sessions                      a therapist records a held or cancelled session
 *   PUT  /api/trial/invoice-settings              the short-term notice in hours (coordinators)
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { checkAllocation, generateTickets, parseAllocationTable, type Ticket } from '../../domain/randomization';
import { consortFlow, participantCells, PARTICIPANT_COLUMNS, type Participant } from '../../domain/consort';
import { toCsv, type Cell } from '../../domain/instruments/export';
import { ARM_USAGE_COLUMNS, armUsageRows, EXPOSURE_COLUMNS, USAGE_COLUMNS, usageCells, type UsageRow } from '../../domain/ehealth';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, conflict, forbidden, HttpError, notFound, refusalError, unauthorized } from '../http/errors';
import { completeTask } from '../workflow/commands';
import { CamundaError } from '../workflow/errors';
import type { WorkflowHost } from '../workflow/host';
import { caseReadsOf } from '../integrity/access-log';
import { commitmentOf, parametersText } from '../../domain/allocation-verify';
import { registerAllocationCommitmentRoutes } from './commitment';
import { SIGNATURE_HEADER } from '../../domain/signatures';
import { recordSignature, requireSignature, storedRecord } from '../signing/service';
import { registerBlindingRoutes } from './blinding';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** SQL errors raised by the trial functions (errcode + hint) as errors a person can act on. */
export function trialError(error: unknown): unknown {
  const e = error as { code?: string; hint?: string; message?: string };
  // Without a rule's hint it is a constraint or a policy: said as every route says it.
  if (!e.hint) return refusalError(error) ?? error;
  const code = e.hint;
  const message = e.message ?? 'The request was refused.';
  switch (e.code ?? '') {
    case '42501':
      return forbidden(code, message);
    case 'P0002':
      return notFound(code, message);
    case '23505':
    case '55000':
      return conflict(code, message);
    case '22023':
    case '22001':
    case '23514':
      return badRequest(code, message);
    default:
      return error;
  }
}

async function run<T>(pool: pg.Pool, request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
  try {
    return await withUser(pool, request.identity, fn);
  } catch (error) {
    throw trialError(error);
  }
}

function caseIdParam(value: string): string {
  if (!UUID.test(value)) throw notFound('case_not_found', 'There is no such case.');
  return value;
}

function objectBody(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

async function requireCoordinator(sql: Sql, what: string): Promise<void> {
  const { rows } = await sql.query<{ coordinator: boolean }>('select app_hidden.is_coordinator() as coordinator');
  if (!rows[0]?.coordinator) throw forbidden('forbidden', `Only coordinators may ${what}.`);
}

/**
 * Draws the treatment of a case: the named SQL function, run as the owner because no request
 * role may call it (0150: the draw belongs to the trial's randomization step). The function
 * still asks whether the signed-in person is a coordinator and whether the trial waits in that
 * step. Only the randomizeTask hook (workflow/task-hooks.ts) calls this.
 */
async function drawTreatment(sql: Sql, caseId: string): Promise<string> {
  await sql.query('set local role none');
  const { rows } = await sql.query<{ treatment: string }>('select treatment from app_public.randomize_case($1)', [caseId]);
  return rows[0]!.treatment;
}

/** The treatment of a case: the existing assignment (drawn before 0150), or a new draw. For the trial's randomization task. */
export async function treatmentForTask(sql: Sql, caseId: string): Promise<string> {
  const existing = await sql.query<{ treatment: string }>('select treatment from app_public.treatment_assignments where case_id = $1', [caseId]);
  if (existing.rows[0]) return existing.rows[0].treatment;
  try {
    await sql.query('savepoint randomize');
    const treatment = await drawTreatment(sql, caseId);
    await sql.query('release savepoint randomize');
    return treatment;
  } catch (error) {
    // Also restores the request role the savepoint began with.
    await sql.query('rollback to savepoint randomize');
    throw trialError(error);
  }
}

export interface Assignment {
  id: string;
  treatment: string;
  stratum: string;
  assigned_at: Date;
}

/**
 * The case page's "Randomize" (issue 27: one door): completes the case's open "Randomize the
 * patient" task as the coordinator, exactly as the task list does (the Camunda command with its
 * permission question and the randomizeTask hook that draws), so the arm is drawn, the task
 * closes and the stage moves in one transaction. Without an open task nothing is drawn.
 */
export async function randomizeInStep(sql: Sql, host: WorkflowHost, userId: string, caseId: string, signature?: unknown): Promise<Assignment> {
  await requireCoordinator(sql, 'randomize a case');
  const { rows } = await sql.query<{ visible: boolean; task_id: string | null; randomized: boolean }>(
    `select exists (select 1 from app_public.cases where id = $1) as visible,
            (select t.id from app_public.workflow_tasks t
              where t.case_id = $1 and t.task_definition_key = 'randomizeTask' and t.end_time is null order by t.created limit 1) as task_id,
            exists (select 1 from app_public.treatment_assignments a where a.case_id = $1) as randomized`,
    [caseId],
  );
  const found = rows[0]!;
  if (!found.visible) throw notFound('case_not_found', 'There is no such case.');
  if (!found.task_id) {
    if (found.randomized) throw conflict('already_randomized', 'The case is already randomized; an assignment is final.');
    throw conflict('not_accepted', 'The trial of this case is not waiting for randomization: a signed interview report must accept the patient first.');
  }
  try {
    await completeTask({ sql, host, userId, signature }, found.task_id, {});
  } catch (error) {
    // The task command speaks Camunda's error format; this route speaks the app's.
    if (error instanceof CamundaError && error.code?.startsWith('signature_')) throw new HttpError(error.statusCode, error.code, error.message, undefined, error.details);
    if (error instanceof CamundaError) throw new HttpError(error.statusCode, error.statusCode === 403 ? 'forbidden' : 'randomization_refused', error.message);
    throw error;
  }
  const assigned = await sql.query<Assignment>('select id, treatment, stratum, assigned_at from app_public.treatment_assignments where case_id = $1', [caseId]);
  return assigned.rows[0]!;
}

/**
 * The exclusion command (app_hidden.exclude_case decides who may and what) as an e-signature
 * (issue 30): the signature is spent after the function accepted the change, in its
 * transaction, and the manifest covers the change and the case's flags after it.
 */
async function excludeSigned(sql: Sql, userId: string, caseId: string, body: Record<string, unknown>, signature: unknown): Promise<void> {
  await sql.query('select app_hidden.exclude_case($1, $2, $3, $4, $5)', [caseId, body.flag, body.value, body.reason, body.askForPost ?? false]);
  await requireSignature(sql, signature, { userId, act: 'exclude', recordId: caseId });
  const change = { flag: body.flag, value: body.value, reason: body.reason, askForPost: body.askForPost ?? false };
  await recordSignature(sql, { signerId: userId, act: 'exclude', caseId, recordId: caseId, content: { change, case: await storedRecord(sql, 'cases', 'id', caseId) } });
}

async function readParticipants(sql: Sql): Promise<Participant[]> {
  const { rows } = await sql.query<Record<string, unknown>>(
    `select case_id, to_char(registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as registered_at, stage, screened,
            excluded, exclusion_reasons, interviewed, interview_outcome, rejection_reason, treatment,
            to_char(randomized_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as randomized_at, received_intervention,
            pre_completed, post_completed, fu1_completed, fu2_completed, trial_active, is_dropout, dropout_reason,
            exclude_from_analysis, reason_for_exclusion,
            -- Withdrawals of consent (issue 31, 0246): the highest level, by the levels' order.
            (select w.level from app_public.case_withdrawals w where w.case_id = p.case_id
              order by array_position(array['stop_contact', 'stop_data', 'erasure'], w.level) desc limit 1) as withdrawal
       from app_public.trial_participants() p`,
  );
  return rows.map((r) => ({
    caseId: r.case_id as string,
    registeredAt: r.registered_at as string,
    stage: r.stage as string,
    screened: r.screened as boolean,
    excluded: r.excluded as boolean,
    exclusionReasons: (r.exclusion_reasons as string[]) ?? [],
    interviewed: r.interviewed as boolean,
    interviewOutcome: (r.interview_outcome as string | null) ?? null,
    rejectionReason: (r.rejection_reason as string | null) ?? null,
    treatment: (r.treatment as string | null) ?? null,
    randomizedAt: (r.randomized_at as string | null) ?? null,
    receivedIntervention: r.received_intervention as boolean,
    preCompleted: r.pre_completed as boolean,
    postCompleted: r.post_completed as boolean,
    fu1Completed: r.fu1_completed as boolean,
    fu2Completed: r.fu2_completed as boolean,
    trialActive: r.trial_active as boolean,
    isDropout: r.is_dropout as boolean,
    dropoutReason: (r.dropout_reason as string | null) ?? null,
    excludeFromAnalysis: r.exclude_from_analysis as boolean,
    reasonForExclusion: (r.reason_for_exclusion as string | null) ?? null,
    withdrawal: (r.withdrawal as string | null) ?? null,
  }));
}

/** Usage per randomized participant (0295), times as UTC ISO text. */
async function readUsage(sql: Sql): Promise<UsageRow[]> {
  const { rows } = await sql.query<Record<string, unknown>>(
    `select case_id, treatment, to_char(randomized_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as randomized_at,
            sign_ins::int, worksheets_filled::int, letters_sent::int, letters_read::int, messages_from_participant::int,
            messages_to_participant::int, messages_from_therapists::int,
            to_char(last_activity_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as last_activity_at
       from app_public.trial_usage()`,
  );
  return rows.map((r) => ({
    caseId: r.case_id as string,
    treatment: r.treatment as string,
    randomizedAt: r.randomized_at as string,
    signIns: r.sign_ins as number,
    worksheetsFilled: r.worksheets_filled as number,
    lettersSent: r.letters_sent as number,
    lettersRead: r.letters_read as number,
    messagesFromParticipant: r.messages_from_participant as number,
    messagesToParticipant: r.messages_to_participant as number,
    messagesFromTherapists: r.messages_from_therapists as number,
    lastActivityAt: (r.last_activity_at as string | null) ?? null,
  }));
}

async function armOrder(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ summary: { arms?: { code: string }[] } | null }>('select app_public.allocation_summary() as summary');
  return rows[0]?.summary?.arms?.map((a) => a.code) ?? [];
}

function sendCsv(reply: FastifyReply, fileName: string, text: string): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .send(text);
}

function period(query: { year?: unknown; month?: unknown }): { year: number; month: number | null } {
  const year = Number(query.year);
  if (!Number.isInteger(year) || year < 2000 || year > 2200) throw badRequest('year_invalid', 'Give the year, e.g. ?year=2026.');
  if (query.month === undefined || query.month === '') return { year, month: null };
  const month = Number(query.month);
  if (!Number.isInteger(month) || month < 1 || month > 12) throw badRequest('month_invalid', 'The month is a number from 1 to 12.');
  return { year, month };
}

interface InvoiceRow {
  id: string;
  user_id: string | null;
  username: string | null;
  alias: string | null;
  case_id: string | null;
  invoice_type: string;
  date: string;
  month: number;
  year: number;
  has_taken_place: boolean;
  canceled: boolean;
  canceled_by_therapist: boolean;
  canceled_short_term: boolean;
  canceled_at: string | null;
}

async function readInvoices(sql: Sql, year: number, month: number | null): Promise<InvoiceRow[]> {
  const { rows } = await sql.query<InvoiceRow>(
    `select i.id, i.user_id, u.username, u.alias, i.case_id, i.invoice_type,
            to_char(i.date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as date, i.month, i.year, i.has_taken_place,
            i.canceled, i.canceled_by_therapist, i.canceled_short_term,
            to_char(i.canceled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as canceled_at
       from app_public.invoice_items i left join app_public.users u on u.id = i.user_id
      where i.year = $1 and ($2::int is null or i.month = $2)
      order by u.username nulls last, i.date, i.id`,
    [year, month],
  );
  return rows;
}

const INVOICE_COLUMNS = ['user_id', 'username', 'case_id', 'invoice_type', 'date', 'month', 'year', 'has_taken_place', 'canceled',
  'canceled_by_therapist', 'canceled_short_term', 'canceled_at'] as const;

function invoiceCells(row: InvoiceRow): Cell[] {
  const b = (v: boolean) => (v ? 1 : 0);
  return [row.user_id, row.username, row.case_id, row.invoice_type, row.date, row.month, row.year, b(row.has_taken_place),
    b(row.canceled), b(row.canceled_by_therapist), b(row.canceled_short_term), row.canceled_at];
}

function ticketsFor(body: Record<string, unknown>): { checked: ReturnType<typeof checkAllocation>; tickets: Ticket[]; seed: string } {
  const checked = checkAllocation(body);
  const seed = crypto.randomBytes(32).toString('hex');
  if (!checked.ok) return { checked, tickets: [], seed };
  const allocation = checked.value;
  if (allocation.method === 'table') {
    const parsed = parseAllocationTable(String(body.table), allocation.arms, allocation.factors);
    if (!parsed.ok) return { checked: { ok: false, errors: parsed.errors }, tickets: [], seed };
    allocation.settings.tableRows = parsed.tickets.length;
    return { checked, tickets: parsed.tickets, seed };
  }
  return { checked, tickets: generateTickets(allocation, seed), seed };
}

export function registerTrialRoutes(app: FastifyInstance, pool: pg.Pool, host: WorkflowHost): void {
  app.get('/api/trial/allocation', async (request) =>
    run(pool, request, async (sql) => {
      const summary = await sql.query<{ summary: unknown }>('select app_public.allocation_summary() as summary');
      const balance = await sql.query('select stratum, treatment, assignments::int from app_public.allocation_balance()');
      return { allocation: summary.rows[0]?.summary ?? null, balance: balance.rows };
    }),
  );

  app.post('/api/trial/allocation', { bodyLimit: 4 * 1024 * 1024 }, async (request, reply) => {
    const body = objectBody(request);
    // Who may is checked before the work of generating thousands of tickets.
    await run(pool, request, (sql) => requireCoordinator(sql, 'configure the allocation'));
    const { checked, tickets, seed } = ticketsFor(body);
    if (!checked.ok) throw new HttpError(400, 'allocation_invalid', Object.values(checked.errors).join(' '), undefined, { errors: checked.errors });
    const allocation = checked.value;
    // Issue 30: the commitment is fixed with the sequence; coordinators publish it at go-live.
    const commitment = commitmentOf(allocation, seed, tickets);
    await run(pool, request, (sql) =>
      sql.query('select app_hidden.configure_committed_allocation($1, $2, $3, $4, $5, $6, $7, $8)', [
        allocation.method,
        JSON.stringify(allocation.arms),
        allocation.factors,
        JSON.stringify(allocation.settings),
        seed,
        JSON.stringify(tickets),
        commitment,
        parametersText(allocation),
      ]),
    );
    request.log.info({ method: allocation.method, tickets: tickets.length, userId: request.identity.userId }, 'allocation configured');
    return reply.status(201).send({ method: allocation.method, arms: allocation.arms, factors: allocation.factors, tickets: tickets.length, commitment });
  });

  registerAllocationCommitmentRoutes(app, pool);
  registerBlindingRoutes(app, pool);

  app.post<{ Params: { caseId: string } }>('/api/trial/cases/:caseId/randomize', async (request, reply) => {
    const caseId = caseIdParam(request.params.caseId);
    const drawn = await run(pool, request, (sql) => randomizeInStep(sql, host, request.identity.userId!, caseId, request.headers[SIGNATURE_HEADER]));
    request.log.info({ caseId, stratum: drawn.stratum, userId: request.identity.userId }, 'case randomized');
    return reply.status(201).send({ id: drawn.id, treatment: drawn.treatment, stratum: drawn.stratum, assignedAt: drawn.assigned_at });
  });

  app.post<{ Params: { caseId: string } }>('/api/trial/cases/:caseId/exclusion', async (request, reply) => {
    const caseId = caseIdParam(request.params.caseId);
    const body = objectBody(request);
    if (typeof body.flag !== 'string') throw badRequest('flag_required', 'Give the flag to set or clear.');
    if (typeof body.value !== 'boolean') throw badRequest('value_required', 'value must be true (set) or false (clear).');
    if (typeof body.reason !== 'string') throw badRequest('reason_required', 'Give a reason (up to 2000 characters).');
    if (body.askForPost !== undefined && typeof body.askForPost !== 'boolean') throw badRequest('ask_for_post_invalid', 'askForPost must be true or false.');
    await run(pool, request, (sql) => excludeSigned(sql, request.identity.userId!, caseId, body, request.headers[SIGNATURE_HEADER]));
    return reply.status(204).send();
  });

  app.get('/api/trial/consort', async (request) =>
    run(pool, request, async (sql) => {
      const participants = await readParticipants(sql);
      return consortFlow(participants, await armOrder(sql));
    }),
  );

  app.get('/api/trial/participants.csv', async (request, reply) => {
    const participants = await run(pool, request, readParticipants);
    // Issue 30: an export is a read of every case it holds.
    caseReadsOf(request).add('export', 'trial', participants.map((participant) => participant.caseId));
    const day = new Date().toISOString().slice(0, 10);
    return sendCsv(reply, `sanad-participants-${day}.csv`, toCsv(PARTICIPANT_COLUMNS, participants.map(participantCells)));
  });

  // Issue 33: the CONSORT-EHEALTH pack — usage per participant, usage and attrition per arm,
  // the content versions each participant was sent (coordinators; 0295 checks it again).
  app.get('/api/trial/usage.csv', async (request, reply) => {
    const usage = await run(pool, request, readUsage);
    caseReadsOf(request).add('export', 'trial', usage.map((row) => row.caseId));
    return sendCsv(reply, `sanad-usage-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(USAGE_COLUMNS, usage.map(usageCells)));
  });

  app.get('/api/trial/usage-by-arm.csv', async (request, reply) => {
    const { usage, flow } = await run(pool, request, async (sql) => ({ usage: await readUsage(sql), flow: consortFlow(await readParticipants(sql), await armOrder(sql)) }));
    caseReadsOf(request).add('export', 'trial', usage.map((row) => row.caseId));
    return sendCsv(reply, `sanad-usage-by-arm-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(ARM_USAGE_COLUMNS, armUsageRows(flow.arms, usage)));
  });

  app.get('/api/trial/exposure.csv', async (request, reply) => {
    const rows = await run(pool, request, async (sql) =>
      (
        await sql.query<Record<string, string | number | null>>(
          `select case_id, treatment, kind, template_id, template_version,
                  to_char(sent_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as sent_at,
                  to_char(read_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as read_at
             from app_public.trial_content_exposure()`,
        )
      ).rows,
    );
    caseReadsOf(request).add('export', 'trial', [...new Set(rows.map((row) => String(row.case_id)))]);
    return sendCsv(reply, `sanad-exposure-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(EXPOSURE_COLUMNS, rows.map((row) => EXPOSURE_COLUMNS.map((c) => row[c] ?? null))));
  });

  // Issue 27 item 3: every out-of-arm send with its reason, the contamination export (coordinators).
  app.get('/api/trial/out-of-arm.csv', async (request, reply) => {
    const rows = await run(pool, request, async (sql) => {
      await requireCoordinator(sql, 'export the out-of-arm sends');
      const result = await sql.query<{ case_id: string; arm: string; kind: string; content: string; reason: string; sent_at: string }>(
        `select case_id, arm, kind, content, reason, to_char(sent_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as sent_at
           from app_public.out_of_arm_sends order by sent_at, id`,
      );
      return result.rows;
    });
    caseReadsOf(request).add('export', 'trial', [...new Set(rows.map((r) => r.case_id))]);
    const day = new Date().toISOString().slice(0, 10);
    const cells = rows.map((r): Cell[] => [r.case_id, r.arm, r.kind, r.content, r.reason, r.sent_at]);
    return sendCsv(reply, `sanad-out-of-arm-${day}.csv`, toCsv(['case_id', 'arm', 'kind', 'content', 'reason', 'sent_at'], cells));
  });

  // Issue 30 item 3: the e-signature manifests, the research export's signatures file
  // (coordinators): who signed what, when (UTC), with which meaning, the hash of the signed
  // content and the row's link in the signatures' hash chain.
  app.get('/api/trial/signatures.csv', async (request, reply) => {
    const rows = await run(pool, request, async (sql) => {
      await requireCoordinator(sql, 'export the signatures');
      const result = await sql.query<Record<string, string>>(
        `select id, case_id, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as signed_at, printed_name, act, meaning,
                record_kind, record_id, content_hash, chain_seq::text as chain_seq, row_hash
           from app_public.signatures order by at, id`,
      );
      return result.rows;
    });
    caseReadsOf(request).add('export', 'trial', [...new Set(rows.map((r) => r.case_id!))]);
    const day = new Date().toISOString().slice(0, 10);
    const columns = ['signature_id', 'case_id', 'signed_at_utc', 'printed_name', 'act', 'meaning', 'record_kind', 'record_id', 'content_hash', 'chain_seq', 'row_hash'];
    const cells = rows.map((r): Cell[] => [r.id, r.case_id, r.signed_at, r.printed_name, r.act, r.meaning, r.record_kind, r.record_id, r.content_hash, r.chain_seq, r.row_hash].map((v) => v ?? null));
    return sendCsv(reply, `sanad-signatures-${day}.csv`, toCsv(columns, cells));
  });

  app.get<{ Querystring: { year?: string; month?: string } }>('/api/trial/invoices', async (request) => {
    const { year, month } = period(request.query);
    return run(pool, request, async (sql) => {
      const notice = await sql.query<{ hours: number }>('select app_public.invoice_short_notice_hours() as hours');
      return { shortNoticeHours: notice.rows[0]!.hours, items: await readInvoices(sql, year, month) };
    });
  });

  app.get<{ Querystring: { year?: string; month?: string } }>('/api/trial/invoices.csv', async (request, reply) => {
    const { year, month } = period(request.query);
    const rows = await run(pool, request, (sql) => readInvoices(sql, year, month));
    const name = `sanad-invoices-${year}${month ? `-${String(month).padStart(2, '0')}` : ''}.csv`;
    return sendCsv(reply, name, toCsv(INVOICE_COLUMNS, rows.map(invoiceCells)));
  });

  app.post('/api/trial/sessions', async (request, reply) => {
    const body = objectBody(request);
    const caseId = typeof body.caseId === 'string' && UUID.test(body.caseId) ? body.caseId : null;
    if (!caseId) throw badRequest('case_required', 'Give the case of the session.');
    const sessionAt = typeof body.sessionAt === 'string' ? new Date(body.sessionAt) : null;
    if (!sessionAt || Number.isNaN(sessionAt.getTime())) throw badRequest('session_date', 'Give the session date and time (ISO 8601).');
    if (typeof body.held !== 'boolean') throw badRequest('held_required', 'held must be true (it took place) or false (cancelled).');
    const canceledAt = body.canceledAt === undefined || body.canceledAt === null ? null : new Date(String(body.canceledAt));
    if (canceledAt && Number.isNaN(canceledAt.getTime())) throw badRequest('canceled_at_invalid', 'canceledAt must be a date and time (ISO 8601).');
    if (body.canceledByTherapist !== undefined && typeof body.canceledByTherapist !== 'boolean') {
      throw badRequest('canceled_by_invalid', 'canceledByTherapist must be true or false.');
    }
    const item = await run(pool, request, async (sql) => {
      const { rows } = await sql.query('select id, canceled_short_term from app_public.record_therapy_session($1, $2, $3, $4, $5)', [
        caseId, sessionAt, body.held, canceledAt, body.canceledByTherapist ?? false,
      ]);
      return rows[0];
    });
    return reply.status(201).send({ id: item.id, canceledShortTerm: item.canceled_short_term });
  });

  app.put('/api/trial/invoice-settings', async (request) => {
    const body = objectBody(request);
    if (typeof body.shortNoticeHours !== 'number' || !Number.isInteger(body.shortNoticeHours)) {
      throw badRequest('notice_range', 'shortNoticeHours must be a whole number of hours from 0 to 336.');
    }
    await run(pool, request, (sql) => sql.query('select app_hidden.set_short_notice_hours($1)', [body.shortNoticeHours]));
    return { shortNoticeHours: body.shortNoticeHours };
  });
}
