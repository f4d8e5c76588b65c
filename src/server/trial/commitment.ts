/**
 * The verifiable allocation (issue 30 item 5), under /api/trial/allocation:
 *
 *   GET  /api/trial/allocation/commitment   parameters and commitment to publish; when the
 *                                           allocation was fixed; the seed once unblinded
 *   POST /api/trial/allocation/fix          go-live: fixes the allocation (no re-configuration)
 *   POST /api/trial/allocation/unblind      {reason}: reveals the seed, logged
 *   GET  /api/trial/unblindings             the unblinding log (coordinators)
 *
 * and what `npm run sanad -- verify-allocation` reads (as the owner: the tickets live in
 * app_private). The SQL functions decide who may (db/migrations/0240-verifiable-allocation.sql).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { verifyAllocation, type AllocationParameters, type DrawnAssignment, type VerifyResult } from '../../domain/allocation-verify';
import type { Ticket } from '../../domain/randomization';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, unauthorized } from '../http/errors';
import { trialError } from './routes';

async function run<T>(pool: pg.Pool, request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
  try {
    return await withUser(pool, request.identity, fn);
  } catch (error) {
    throw trialError(error);
  }
}

function reasonOf(body: unknown): string {
  const reason = body && typeof body === 'object' ? (body as { reason?: unknown }).reason : undefined;
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 2000) {
    throw badRequest('reason_required', 'Give a reason (up to 2000 characters).');
  }
  return reason;
}

export function registerAllocationCommitmentRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get('/api/trial/allocation/commitment', async (request) =>
    run(pool, request, async (sql) => {
      const { rows } = await sql.query<{ c: unknown }>('select app_public.allocation_commitment() as c');
      return { allocation: rows[0]?.c ?? null };
    }),
  );

  app.post('/api/trial/allocation/fix', async (request) =>
    run(pool, request, async (sql) => {
      await sql.query('select app_hidden.fix_allocation()');
      const { rows } = await sql.query<{ c: unknown }>('select app_public.allocation_commitment() as c');
      return { allocation: rows[0]?.c ?? null };
    }),
  );

  app.post('/api/trial/allocation/unblind', async (request) => {
    const reason = reasonOf(request.body);
    return run(pool, request, async (sql) => {
      await sql.query('select app_hidden.reveal_allocation($1)', [reason]);
      const { rows } = await sql.query<{ c: unknown }>('select app_public.allocation_commitment() as c');
      request.log.info({ userId: request.identity.userId }, 'allocation unblinded');
      return { allocation: rows[0]?.c ?? null };
    });
  });

  app.get('/api/trial/unblindings', async (request) =>
    run(pool, request, async (sql) => {
      const { rows } = await sql.query(
        `select kind, case_id as "caseId", app_public.cases_short_id(c) as "caseCode", assessor, reason, unblinded_by as "unblindedBy",
                to_char(unblinded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "unblindedAt"
           from app_public.unblinding_log() l left join app_public.cases c on c.id = l.case_id`,
      );
      return { events: rows };
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Verification (the CLI; runs as the owner)

export interface StoredAllocation {
  parameters: AllocationParameters;
  seed: string;
  commitment: string;
  revealed: boolean;
  tickets: Ticket[];
  assignments: DrawnAssignment[];
}

/** Everything the verifier needs, read in one transaction; null before configuration. */
export async function readStoredAllocation(sql: Sql): Promise<StoredAllocation | null> {
  const config = await sql.query<{ parameters_text: string | null; seed: string; commitment: string | null; revealed: boolean }>(
    'select parameters_text, seed, commitment, revealed_at is not null as revealed from app_private.allocation_config',
  );
  const row = config.rows[0];
  if (!row) return null;
  if (!row.parameters_text || !row.commitment) throw new Error('The allocation was configured before commitments existed (issue 30); it cannot be verified.');
  const tickets = await sql.query<Ticket>('select stratum, position, arm, random1, random2 from app_private.allocation_tickets order by stratum, position');
  const assignments = await sql.query<{ case_id: string; code: string | null; treatment: string; stratum: string; factor_levels: Record<string, string>; allocation_position: number | null }>(
    `select a.case_id, app_public.cases_short_id(c) as code, a.treatment, a.stratum, a.factor_levels, a.allocation_position
       from app_public.treatment_assignments a left join app_public.cases c on c.id = a.case_id
      order by a.allocation_position nulls last, a.assigned_at`,
  );
  return {
    parameters: JSON.parse(row.parameters_text) as AllocationParameters,
    seed: row.seed,
    commitment: row.commitment,
    revealed: row.revealed,
    tickets: tickets.rows,
    assignments: assignments.rows.map((a) => ({
      caseId: a.case_id,
      caseCode: a.code ?? a.case_id,
      treatment: a.treatment,
      stratum: a.stratum,
      factorLevels: a.factor_levels,
      position: a.allocation_position,
    })),
  };
}

/**
 * Verifies the stored allocation with a seed and commitment a monitor trusts: the published
 * commitment and the revealed seed when given, else the server's own (the seed only once the
 * allocation is unblinded: verifying must not unblind it on the quiet).
 */
export function verifyStored(stored: StoredAllocation, given: { seed?: string | undefined; commitment?: string | undefined }): VerifyResult {
  if (given.seed === undefined && !stored.revealed) {
    throw new Error('The allocation is not unblinded yet. A coordinator unblinds it on the trial page (with a reason), or pass the revealed seed with --seed.');
  }
  return verifyAllocation({
    parameters: stored.parameters,
    seed: given.seed ?? stored.seed,
    commitment: given.commitment ?? stored.commitment,
    storedTickets: stored.tickets,
    assignments: stored.assignments,
  });
}
