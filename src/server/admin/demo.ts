/**
 * A demo trial: one account per role, patients with cases and a care team on each case, so
 * that every screen has something to show on a laptop. All accounts share a published password,
 * which is why they must never exist on a production system.
 */
import type pg from 'pg';
import type { CaseRole } from '../../domain/roles';
import { addMember, createCase, createUser, type AccountFlag } from './accounts';

/** Published in the README and printed by the seed: anyone may know it. */
export const DEMO_PASSWORD = 'sanad-demo-password';

export interface DemoAccount {
  username: string;
  alias: string;
  flags: AccountFlag[];
  /** The role this account takes on every demo patient's case, if any. */
  caseRole?: CaseRole;
}

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { username: 'demo-coordinator', alias: 'Demo Coordinator', flags: ['coordinator'] },
  { username: 'demo-interviewer', alias: 'Demo Interviewer', flags: ['interviewer'], caseRole: 'interviewer' },
  { username: 'demo-therapist', alias: 'Demo Therapist', flags: ['therapist'], caseRole: 'therapist' },
  { username: 'demo-supervisor', alias: 'Demo Supervisor', flags: ['supervisor'], caseRole: 'supervisor' },
  { username: 'demo-supporter', alias: 'Demo Supporter', flags: ['supporter'] },
  { username: 'demo-counselor', alias: 'Demo Counselor', flags: ['counselor'] },
  { username: 'demo-patient1', alias: 'Demo Patient 1', flags: ['patient'] },
  { username: 'demo-patient2', alias: 'Demo Patient 2', flags: ['patient'] },
  { username: 'demo-patient3', alias: 'Demo Patient 3', flags: ['patient'] },
];

export interface SeededAccount {
  username: string;
  flags: AccountFlag[];
  id: string;
  /** False when the account existed already and was left as it was. */
  created: boolean;
  caseId?: string;
}

/** example.org is reserved (RFC 2606): mail to demo accounts can never reach a real person. */
function demoEmail(username: string): string {
  return `${username}@example.org`;
}

async function existingUserId(pool: pg.Pool, username: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ id: string }>('select id from app_public.users where username = $1', [username]);
  return rows[0]?.id;
}

/** The patient's oldest case, which is the one registration (or the seed) made. */
async function patientCaseId(pool: pg.Pool, userId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ case_id: string }>(
    `select m.case_id from app_public.case_members m join app_public.cases c on c.id = m.case_id
      where m.user_id = $1 and m.acts_as_patient order by c.created_at, c.id limit 1`,
    [userId],
  );
  return rows[0]?.case_id;
}

/** Creates a demo account, or finds it: an existing one keeps its password and flags. */
async function ensureAccount(pool: pg.Pool, account: DemoAccount): Promise<SeededAccount> {
  const found = await existingUserId(pool, account.username);
  if (found) {
    const isPatient = account.flags.includes('patient');
    // A patient whose case was deleted gets a new one, so the team below has somewhere to go.
    const caseId = isPatient ? ((await patientCaseId(pool, found)) ?? (await createCase(pool, { patient: found }))) : undefined;
    return { username: account.username, flags: account.flags, id: found, created: false, ...(caseId ? { caseId } : {}) };
  }
  const made = await createUser(pool, {
    username: account.username,
    email: demoEmail(account.username),
    password: DEMO_PASSWORD,
    alias: account.alias,
    flags: account.flags,
  });
  return { username: account.username, flags: account.flags, id: made.id, created: true, ...(made.caseId ? { caseId: made.caseId } : {}) };
}

async function isMember(pool: pg.Pool, caseId: string, userId: string): Promise<boolean> {
  const { rows } = await pool.query('select 1 from app_public.case_members where case_id = $1 and user_id = $2', [caseId, userId]);
  return rows.length > 0;
}

/** Seeds the demo trial; safe to run again: it only adds what is missing and changes nothing else. */
export async function seedDemo(pool: pg.Pool): Promise<SeededAccount[]> {
  const seeded: SeededAccount[] = [];
  for (const account of DEMO_ACCOUNTS) seeded.push(await ensureAccount(pool, account));
  for (const { caseId } of seeded) {
    if (!caseId) continue;
    for (const [index, account] of DEMO_ACCOUNTS.entries()) {
      const member = seeded[index]!;
      if (account.caseRole && !(await isMember(pool, caseId, member.id))) {
        await addMember(pool, caseId, member.id, [account.caseRole]);
      }
    }
  }
  return seeded;
}
