/**
 * Seeds a migrated database with a trial of realistic size: one coordinator, a staff of
 * therapists and a thousand patients, each patient with their own case and one therapist per
 * case. Staff accounts and memberships go through createUser and addMember, as the CLI makes
 * them. Patients are inserted with set-based SQL that writes the rows createUser and
 * createPatientCase would, because 1000 argon2 hashes and 1000 transactions would make seeding,
 * not the benchmark, the slow part.
 */
import type pg from 'pg';
import { addMember, createUser } from '../src/server/admin/accounts';
import { hashPassword } from '../src/server/auth/passwords';
import { withOwnerAs } from '../src/server/db/transaction';

export interface SeedSize {
  staff: number;
  patients: number;
}

export const DEFAULT_SEED: SeedSize = { staff: 50, patients: 1000 };

/** One password for every seeded account; each staff account still stores its own argon2id hash. */
export const SEED_PASSWORD = 'bench-password-for-everyone';

export interface SeededTrial {
  coordinator: string;
  /** The therapist the `me` and `allCases` scenarios sign in as. */
  therapist: string;
  staff: string[];
  /** Cases the benchmark therapist is a member of. */
  therapistCaseCount: number;
  totalCases: number;
}

/** Stages a trial's cases pass through, so the seeded cases are not all alike. */
const STAGES = ['registration', 'screening', 'interview', 'waiting', 'therapy', 'post_assessment', 'follow_up', 'finished'];

/**
 * Enough parallel seeding transactions to keep both cores of a PostgreSQL server busy. PGlite's
 * pool has one connection, so there they simply queue.
 */
const SEED_CONCURRENCY = 4;

/** Patients per insert: small enough to spread over SEED_CONCURRENCY transactions. */
const PATIENT_CHUNK = 100;

const staffName = (index: number) => `bench-therapist-${String(index).padStart(3, '0')}`;

export async function seedTrial(pool: pg.Pool, size: SeedSize = DEFAULT_SEED): Promise<SeededTrial> {
  const coordinator = 'bench-coordinator';
  await createUser(pool, { username: coordinator, email: `${coordinator}@bench.invalid`, password: SEED_PASSWORD, flags: ['coordinator'] });
  const staff = await createStaff(pool, size.staff);
  await insertPatients(pool, size.patients);
  await openPatientCases(pool);
  await assignTherapists(pool, staff);
  // Production tables have planner statistics (autovacuum analyzes them); freshly loaded tables
  // have none until autovacuum's next round, which would make the first plans unrealistic.
  await pool.query('analyze');
  const therapist = staff[0]!;
  return { coordinator, therapist, staff, therapistCaseCount: await caseCount(pool, therapist), totalCases: size.patients };
}

/** Staff accounts through createUser: the real validation, the real argon2id hash per account. */
async function createStaff(pool: pg.Pool, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, index) => staffName(index));
  await forEachConcurrently(names, (username) =>
    createUser(pool, { username, email: `${username}@bench.invalid`, password: SEED_PASSWORD, flags: ['therapist'] }),
  );
  return names;
}

/**
 * Confirmed patient accounts with their secrets, in chunks. All patients share one argon2id
 * hash (computed once): nobody signs in as a patient here, and the stored value has the shape
 * and length of a per-account hash.
 */
async function insertPatients(pool: pg.Pool, count: number): Promise<void> {
  const passwordHash = await hashPassword(SEED_PASSWORD);
  const chunkStarts = Array.from({ length: Math.ceil(count / PATIENT_CHUNK) }, (_, index) => 1 + index * PATIENT_CHUNK);
  await forEachConcurrently(chunkStarts, (first) =>
    withOwnerAs(pool, null, (sql) =>
      sql.query(
        `with patients as (
           insert into app_public.users (username, email, locale, time_zone, email_confirmed_at, is_patient_account,
             agreed_to_terms, agreed_to_privacy_policy, confirmed_adult, created_at)
           select format('bench-patient-%s', lpad(n::text, 4, '0')), format('bench-patient-%s@bench.invalid', n),
                  (array['ar', 'de', 'en'])[n % 3 + 1], 'UTC', now(), true, true, true, true,
                  now() - make_interval(days => n % 365)
             from generate_series($1::int, $2::int) as n
           returning id
         )
         insert into app_private.user_secrets (user_id, password_hash) select id, $3 from patients`,
        [first, Math.min(first + PATIENT_CHUNK - 1, count), passwordHash],
      ),
    ),
  );
}

/** Each patient's own case with its patient membership, as createPatientCase makes them. */
async function openPatientCases(pool: pg.Pool): Promise<void> {
  await withOwnerAs(pool, null, async (sql) => {
    // Pairs each patient with a new case id first, so that the case and its membership agree.
    await sql.query(
      `create temporary table bench_patient_cases on commit drop as
         select gen_random_uuid() as case_id, id as patient_id, created_at,
                row_number() over (order by username) - 1 as n
           from app_public.users where is_patient_account`,
    );
    await sql.query(
      `insert into app_public.cases (id, stage, created_at)
       select case_id, ($1::text[])[n % array_length($1::text[], 1) + 1], created_at from bench_patient_cases`,
      [STAGES],
    );
    await sql.query(
      `insert into app_public.case_members (case_id, user_id, acts_as_patient, created_at)
       select case_id, patient_id, true, created_at from bench_patient_cases`,
    );
  });
}

/** One therapist per case, round-robin, so 50 therapists have 20 of 1000 cases each. */
async function assignTherapists(pool: pg.Pool, staff: string[]): Promise<void> {
  const { rows } = await pool.query<{ id: string }>('select id from app_public.cases order by created_at desc, id');
  await forEachConcurrently(
    rows.map((row, index) => ({ caseId: row.id, therapist: staff[index % staff.length]! })),
    ({ caseId, therapist }) => addMember(pool, caseId, therapist, ['therapist']),
  );
}

async function caseCount(pool: pg.Pool, username: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'select count(*) as n from app_public.case_members m join app_public.users u on u.id = m.user_id where u.username = $1',
    [username],
  );
  return rows[0]?.n ?? 0;
}

/** Runs fn over items with at most SEED_CONCURRENCY calls in flight. */
async function forEachConcurrently<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(SEED_CONCURRENCY, items.length) }, lane));
}
