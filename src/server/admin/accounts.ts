/**
 * Administrative operations used by the CLI, the demo seed and test factories: creating
 * accounts with flags, cases and memberships. They run as the schema owner (there is no
 * signed-in person at the console), and the audit log records them with the owner's role.
 */
import type pg from 'pg';
import { emailProblems, passwordProblems, usernameProblems, type Gender } from '../../domain/accounts';
import type { CaseRole } from '../../domain/roles';
import type { Locale } from '../config';
import { withOwnerAs, type Sql } from '../db/transaction';
import { hashPassword } from '../auth/passwords';
import { createPatientCase } from '../auth/service';

/** The account flags; `assessor` is the blinded outcome assessor of issue 30 (migration 0241), alone by rule. */
export const ACCOUNT_FLAGS = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator', 'tester', 'assessor'] as const;
export type AccountFlag = (typeof ACCOUNT_FLAGS)[number];

export interface NewUser {
  username: string;
  email: string;
  password: string;
  flags?: AccountFlag[];
  alias?: string;
  gender?: Gender;
  locale?: Locale;
  timeZone?: string;
  /** Accounts made by staff are confirmed unless stated otherwise. */
  confirmed?: boolean;
}

export class AdminInputError extends Error {
  override name = 'AdminInputError';
}

export async function createUser(pool: pg.Pool, input: NewUser): Promise<{ id: string; caseId?: string }> {
  const problems = [...usernameProblems(input.username), ...emailProblems(input.email), ...passwordProblems(input.password, input)];
  if (problems.length > 0) throw new AdminInputError(problems.map((p) => p.message).join(' '));
  const flags = new Set(input.flags ?? []);
  const passwordHash = await hashPassword(input.password);
  return withOwnerAs(pool, null, async (sql) => {
    const exists = await sql.query('select 1 from app_public.users where username = $1 or email = $2', [input.username, input.email]);
    if (exists.rows.length > 0) throw new AdminInputError(`A user with the username ${input.username} or the email ${input.email} exists already.`);
    const { rows } = await sql.query<{ id: string }>(
      `insert into app_public.users (username, email, alias, gender, locale, time_zone, email_confirmed_at,
         is_patient_account, is_therapist_account, is_supervisor_account, is_interviewer_account,
         is_supporter_account, is_counselor_account, is_coordinator_account, is_tester_account, is_assessor_account,
         agreed_to_terms, agreed_to_privacy_policy, confirmed_adult)
       values ($1, $2, $3, $4, $5, $6, case when $7 then now() end, $8, $9, $10, $11, $12, $13, $14, $15, $16, true, true, true)
       returning id`,
      [
        input.username,
        input.email,
        input.alias ?? null,
        input.gender ?? null,
        input.locale ?? 'ar',
        input.timeZone ?? 'UTC',
        input.confirmed !== false,
        ...ACCOUNT_FLAGS.map((flag) => flags.has(flag)),
      ],
    );
    const id = rows[0]!.id;
    await sql.query('insert into app_private.user_secrets (user_id, password_hash) values ($1, $2)', [id, passwordHash]);
    // A patient always has a case, as after self-registration.
    const caseId = flags.has('patient') ? await createPatientCase(sql, id) : undefined;
    return caseId ? { id, caseId } : { id };
  });
}

async function userIdByName(sql: Sql, usernameOrId: string): Promise<string> {
  const { rows } = await sql.query<{ id: string }>('select id from app_public.users where username = $1 or id::text = $1', [usernameOrId]);
  if (!rows[0]) throw new AdminInputError(`No user ${usernameOrId}.`);
  return rows[0].id;
}

/** Creates a case; with a patient it becomes that patient's case. */
export async function createCase(pool: pg.Pool, input: { patient?: string; title?: string }): Promise<string> {
  return withOwnerAs(pool, null, async (sql) => {
    if (input.patient) {
      const patientId = await userIdByName(sql, input.patient);
      const caseId = await createPatientCase(sql, patientId);
      if (input.title) await sql.query('update app_public.cases set title = $2 where id = $1', [caseId, input.title]);
      return caseId;
    }
    const { rows } = await sql.query<{ id: string }>('insert into app_public.cases (title) values ($1) returning id', [input.title ?? null]);
    return rows[0]!.id;
  });
}

/** Adds a member to a case, or updates the roles of an existing member. */
export async function addMember(pool: pg.Pool, caseId: string, user: string, roles: CaseRole[]): Promise<string> {
  return withOwnerAs(pool, null, async (sql) => {
    const userId = await userIdByName(sql, user);
    const found = await sql.query('select 1 from app_public.cases where id::text = $1', [caseId]);
    if (found.rows.length === 0) throw new AdminInputError(`No case ${caseId}.`);
    const set = new Set(roles);
    const { rows } = await sql.query<{ id: string }>(
      `insert into app_public.case_members (case_id, user_id, acts_as_therapist, acts_as_supervisor, acts_as_interviewer,
         acts_as_supporter, acts_as_counselor, acts_as_patient)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (case_id, user_id) do update set
         acts_as_therapist = excluded.acts_as_therapist, acts_as_supervisor = excluded.acts_as_supervisor,
         acts_as_interviewer = excluded.acts_as_interviewer, acts_as_supporter = excluded.acts_as_supporter,
         acts_as_counselor = excluded.acts_as_counselor, acts_as_patient = excluded.acts_as_patient
       returning id`,
      [caseId, userId, set.has('therapist'), set.has('supervisor'), set.has('interviewer'), set.has('supporter'), set.has('counselor'), set.has('patient')],
    );
    return rows[0]!.id;
  });
}
