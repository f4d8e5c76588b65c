/**
 * Seeds a migrated database with a case workspace of production size (issue "Case workspace",
 * item 7): 10,000 patient cases, 1,500 staff and 500,000 messages at scale 1, with the care
 * records the case lists show per case (tasks, timers, PHQ-9 records, risk signals, treatment
 * assignments; their proportions are in workspace-care.ts). Everything is
 * set-based SQL in one owner transaction: row-by-row inserts through the API would take hours
 * and would measure seeding, not the workspace.
 *
 * The rows are the ones the application would write, with two shortcuts, both undone before
 * the transaction commits: the triggers that only do bookkeeping (audit log, notification
 * queue, search text, read marks, the kept message counts, the process starts a PHQ-9 record or a
 * treatment assignment queues) and the message guard (which stamps
 * sent_at with now(), while a year of history needs sent_at in the past) are disabled during the load.
 * The search text and the kept counts (app_private.case_inbox, rebuilt as the operations CLI's
 * rebuild-case-inbox does) are then computed once for all cases, and the tables are vacuumed and
 * analyzed, as autovacuum would have done on a server that grew to this size.
 */
import type pg from 'pg';
import { hashPassword } from '../src/server/auth/passwords';
import type { DatabaseKind } from '../src/server/db/database';
import { withOwnerAs, type Sql } from '../src/server/db/transaction';
import { SEED_PASSWORD } from './seed';
import { CARE_BULK_LOAD_TRIGGERS, CARE_TABLES, insertCareRecords } from './workspace-care';

export { SEED_PASSWORD };

/** Scale 1: the figures. */
const FULL_SIZE = { cases: 10_000, messages: 500_000 };

/** Staff accounts per account flag at scale 1; 1,500 in all. ~30 cases per therapist. */
const STAFF_AT_FULL_SCALE = {
  coordinator: 10,
  therapist: 350,
  supervisor: 100,
  interviewer: 290,
  supporter: 400,
  counselor: 350,
} as const;

export type StaffRole = keyof typeof STAFF_AT_FULL_SCALE;

/**
 * PGlite runs in this process on one core and loads 500,000 messages slowly; it defaults to a
 * fifth of the size. BENCH_WORKSPACE_SCALE overrides the default for both databases.
 */
const DEFAULT_SCALE: Record<DatabaseKind, number> = { postgres: 1, pglite: 0.2 };

export interface WorkspaceSize {
  scale: number;
  cases: number;
  messages: number;
  staff: Record<StaffRole, number>;
}

export function workspaceScale(kind: DatabaseKind, env: Record<string, string | undefined>): number {
  const raw = env.BENCH_WORKSPACE_SCALE;
  if (!raw) return DEFAULT_SCALE[kind];
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new Error(`BENCH_WORKSPACE_SCALE must be a number in (0, 10], got "${raw}"`);
  return scale;
}

export function workspaceSize(scale: number): WorkspaceSize {
  const staff = Object.fromEntries(
    Object.entries(STAFF_AT_FULL_SCALE).map(([role, count]) => [role, Math.max(1, Math.round(count * scale))]),
  ) as Record<StaffRole, number>;
  return { scale, cases: Math.round(FULL_SIZE.cases * scale), messages: Math.round(FULL_SIZE.messages * scale), staff };
}

export function describeSize(size: WorkspaceSize): string {
  const staff = Object.values(size.staff).reduce((sum, n) => sum + n, 0);
  return `scale ${size.scale}: ${size.cases} cases, ${staff} staff, ${size.messages} messages`;
}

export interface SeededWorkspace {
  size: WorkspaceSize;
  /** The therapist the scenarios sign in as: the one with the most cases. */
  therapist: { id: string; username: string; caseIds: string[] };
  coordinator: { id: string; username: string };
  /** A fragment of one of the therapist's patients' usernames (a family name). */
  search: string;
  /** Cases a coordinator's unfiltered list holds (all but those in anonymization). */
  listedCases: number;
}

/**
 * Triggers switched off during the bulk load, by table. All of them are bookkeeping that the
 * seed either does not need (audit, notifications, read marks of the sender) or does once at
 * the end (search text, kept message counts); the guard would overwrite the back-dated sent_at.
 */
const BULK_LOAD_TRIGGERS: [table: string, trigger: string][] = [
  ['app_public.users', '_900_audit'],
  ['app_public.cases', '_200_search_text'],
  ['app_public.cases', '_900_audit'],
  ['app_public.case_members', '_200_search_text'],
  ['app_public.case_members', '_900_audit'],
  ['app_public.case_members', '_700_inbox_insert'],
  ['app_public.case_messages', '_050_guard'],
  ['app_public.case_messages', '_800_mark_read'],
  ['app_public.case_messages', '_850_notify'],
  ['app_public.case_messages', '_900_audit'],
  ['app_public.case_messages', '_700_inbox_insert'],
  ...CARE_BULK_LOAD_TRIGGERS,
];

/** Names to make patients' usernames, aliases and the search term look like people's. */
const GIVEN_NAMES = ['amira', 'omar', 'lina', 'yusuf', 'sara', 'karim', 'nour', 'hassan', 'layla', 'tarek', 'mona', 'samir',
  'hana', 'ziad', 'rania', 'fadi', 'dina', 'bilal', 'yara', 'khaled'];
const FAMILY_NAMES = ['haddad', 'khoury', 'nasser', 'saleh', 'mansour', 'aziz', 'farouk', 'hamdan', 'darwish', 'qasim', 'jaber',
  'rahman', 'barakat', 'sabbagh', 'taha', 'yassin', 'zidan', 'halabi', 'shami', 'masri', 'awad', 'bishara', 'issa', 'najjar', 'odeh'];

/** Stages with their share of cases and how much a case in that stage writes (messages weight). */
const STAGES: [stage: string, share: number, chattiness: number][] = [
  ['registration', 0.05, 0.1],
  ['screening', 0.05, 0.3],
  ['interview', 0.05, 0.5],
  ['waiting', 0.1, 0.7],
  ['therapy', 0.38, 1.5],
  ['post_assessment', 0.1, 1.3],
  ['follow_up', 0.1, 1.2],
  ['finished', 0.15, 1.0],
  ['anonymization', 0.02, 1.0],
];

const SUBJECTS = ['Session notes', 'This week', 'Question about the exercise', 'Appointment', 'Feedback', 'Homework',
  'How are you?', 'Supervision', 'Next steps', 'Thank you'];
const SENTENCES = [
  'I tried the breathing exercise every evening this week.',
  'Please describe one situation in which you felt safe.',
  'Sleeping has been a little better since we last wrote.',
  'Let us look at the thought record together in the next session.',
  'I could not finish the writing task, it was too hard.',
  'Your last text shows a lot of courage. Thank you for sharing it.',
  'Could we move the appointment to Thursday afternoon?',
  'The memories came back when I walked past the market.',
  'Well done for keeping up the diary, even on difficult days.',
  'Supervision note: keep the exposure steps small for now.',
];

export interface SeedOptions {
  /**
   * Whether to write the care records (workspace-care.ts). The questionnaire bench says no: it
   * writes every case's PHQ-9 at all five times itself, and a time holds one record.
   */
  careRecords?: boolean;
}

export async function seedWorkspace(pool: pg.Pool, size: WorkspaceSize, options: SeedOptions = {}): Promise<SeededWorkspace> {
  const passwordHash = await hashPassword(SEED_PASSWORD);
  await withOwnerAs(pool, null, async (sql) => {
    // Reproducible: the same scale gives the same distribution of cases and messages.
    await sql.query('select setseed(0.4242)');
    await setBulkTriggers(sql, 'disable');
    await insertStaff(sql, size, passwordHash);
    await insertPatientsAndCases(sql, size, passwordHash);
    await insertMembers(sql);
    await insertMessages(sql, size);
    if (options.careRecords ?? true) await insertCareRecords(sql);
    await setBulkTriggers(sql, 'enable');
  });
  await refreshSearchText(pool);
  await withOwnerAs(pool, null, (sql) => sql.query('select app_hidden.rebuild_case_inbox()'));
  await vacuumAnalyze(pool);
  return describeSeed(pool, size);
}

async function setBulkTriggers(sql: Sql, action: 'disable' | 'enable'): Promise<void> {
  // Deferred triggers (the read versions of 0015) must have run before a table is altered.
  await sql.query('set constraints all immediate');
  for (const [table, trigger] of BULK_LOAD_TRIGGERS) await sql.query(`alter table ${table} ${action} trigger ${trigger}`);
}

/** Staff of every kind with confirmed accounts; all share one real argon2id hash of SEED_PASSWORD. */
async function insertStaff(sql: Sql, size: WorkspaceSize, passwordHash: string): Promise<void> {
  for (const [role, count] of Object.entries(size.staff)) {
    await sql.query(
      `with staff as (
         insert into app_public.users (username, email, alias, locale, time_zone, email_confirmed_at,
           is_${role}_account, agreed_to_terms, agreed_to_privacy_policy, confirmed_adult, created_at)
         select format('ws-%s-%s', $1::text, lpad(n::text, 4, '0')), format('ws-%s-%s@bench.invalid', $1::text, n),
                initcap($1::text) || ' ' || n, (array['ar', 'de', 'en'])[n % 3 + 1], 'UTC', now() - interval '2 years',
                true, true, true, true, now() - interval '2 years'
           from generate_series(1, $2::int) as n
         returning id
       )
       insert into app_private.user_secrets (user_id, password_hash) select id, $3 from staff`,
      [role, count, passwordHash],
    );
  }
}

/**
 * Confirmed patient accounts and one case each, opened over the past year, in the stages of
 * STAGES. ws_cases keeps each case's number, patient and weight for the member and message
 * inserts that follow; it is dropped at commit.
 */
async function insertPatientsAndCases(sql: Sql, size: WorkspaceSize, passwordHash: string): Promise<void> {
  await sql.query(
    `create temporary table ws_cases on commit drop as
       select n, gen_random_uuid() as case_id, gen_random_uuid() as patient_id,
              now() - make_interval(secs => random() * 365 * 86400) as created_at,
              null::text as stage, null::float8 as chattiness,
              ($1::text[])[1 + (n * 7) % array_length($1::text[], 1)] as given_name,
              ($2::text[])[1 + (n * 13) % array_length($2::text[], 1)] as family_name
         from generate_series(1, $3::int) as n`,
    [GIVEN_NAMES, FAMILY_NAMES, size.cases],
  );
  await assignStages(sql);
  await sql.query(
    `insert into app_public.users (id, username, email, alias, locale, time_zone, email_confirmed_at, is_patient_account,
       agreed_to_terms, agreed_to_privacy_policy, confirmed_adult, created_at, updated_at)
     select patient_id, format('%s.%s%s', given_name, family_name, n), format('%s.%s%s@bench.invalid', given_name, family_name, n),
            case when n % 2 = 0 then initcap(given_name) end, (array['ar', 'de', 'en'])[n % 3 + 1], 'UTC',
            created_at, true, true, true, true, created_at, created_at
       from ws_cases`,
  );
  await sql.query('insert into app_private.user_secrets (user_id, password_hash) select patient_id, $1 from ws_cases', [passwordHash]);
  // 7 % of the cases past randomization dropped out (PagedCases shows the flag).
  await sql.query(
    `insert into app_public.cases (id, stage, is_dropout, dropout_reason, created_at, updated_at)
     select case_id, stage, dropout, case when dropout then 'Stopped answering' end, created_at, created_at
       from (select w.*, stage in ('therapy', 'post_assessment', 'follow_up', 'finished', 'anonymization') and random() < 0.07 as dropout
               from ws_cases w) as c`,
  );
}

/** Stage by cumulative share; chattiness by stage, times a per-case factor between 0.3 and 1.7. */
async function assignStages(sql: Sql): Promise<void> {
  await sql.query(
    `with stages as (
       select s.stage, s.chattiness,
              sum(s.share) over (order by s.ord) - s.share as lower_bound, sum(s.share) over (order by s.ord) as upper_bound
         from unnest($1::text[], $2::float8[], $3::float8[]) with ordinality as s(stage, share, chattiness, ord)
     ),
     drawn as (select n, random() as r, 0.3 + 1.4 * random() as factor from ws_cases)
     update ws_cases w set stage = s.stage, chattiness = s.chattiness * d.factor
       from drawn d, stages s
      where d.n = w.n and d.r * (select max(upper_bound) from stages) >= s.lower_bound
        and d.r * (select max(upper_bound) from stages) < s.upper_bound`,
    [STAGES.map((s) => s[0]), STAGES.map((s) => s[1]), STAGES.map((s) => s[2])],
  );
}

/**
 * Each case: its patient, one therapist (a second one in 15% of cases), one supervisor, an
 * interviewer from the interview stage on (90% of those cases, 10% of earlier ones), and
 * sometimes a supporter (30%) or a counselor (8%). Therapists get a quota of 20 to 40 cases
 * each and the cases are dealt into the quotas in random order; a second therapist is drawn
 * from all therapists, beyond the quotas. Read marks: most members read up to
 * some day in the last six weeks, one in ten never opened the case (marked at the case's
 * opening, which leaves every message unread, as the column default does).
 */
async function insertMembers(sql: Sql): Promise<void> {
  await sql.query(
    `create temporary table ws_staff on commit drop as
       select id, substring(username from '^ws-([a-z]+)-') as role,
              row_number() over (partition by substring(username from '^ws-([a-z]+)-') order by username) as k
         from app_public.users where username like 'ws-%'`,
  );
  await sql.query(
    `create temporary table ws_members on commit drop as
     with quotas as (
       select id, 20 + (k * 37) % 21 as quota from ws_staff where role = 'therapist'
     ),
     slots as materialized (
       select q.id, row_number() over (order by random()) as slot from quotas q, generate_series(1, q.quota)
     ),
     counts as (select role, count(*) as n from ws_staff group by role),
     picked as (
       select c.case_id, c.created_at, c.patient_id,
              1 + (c.n - 1) % (select count(*) from slots) as therapist_slot,
              case when random() < 0.15 then 1 + floor(random() * (select n from counts where role = 'therapist'))::int end as therapist2_k,
              1 + floor(random() * (select n from counts where role = 'supervisor'))::int as supervisor_k,
              case when random() < case when c.stage in ('registration', 'screening') then 0.1 else 0.9 end then 1 + floor(random() * (select n from counts where role = 'interviewer'))::int end as interviewer_k,
              case when random() < 0.3 then 1 + floor(random() * (select n from counts where role = 'supporter'))::int end as supporter_k,
              case when random() < 0.08 then 1 + floor(random() * (select n from counts where role = 'counselor'))::int end as counselor_k
         from ws_cases c
     )
     select p.case_id, p.created_at, p.patient_id, t.id as therapist, t2.id as therapist2, sv.id as supervisor, iv.id as interviewer,
            sp.id as supporter, co.id as counselor
       from picked p
       join slots t on t.slot = p.therapist_slot
       join ws_staff sv on sv.role = 'supervisor' and sv.k = p.supervisor_k
       left join ws_staff t2 on t2.role = 'therapist' and t2.k = p.therapist2_k and t2.id <> t.id
       left join ws_staff iv on iv.role = 'interviewer' and iv.k = p.interviewer_k
       left join ws_staff sp on sp.role = 'supporter' and sp.k = p.supporter_k
       left join ws_staff co on co.role = 'counselor' and co.k = p.counselor_k`,
  );
  await sql.query(
    `insert into app_public.case_members (case_id, user_id, acts_as_patient, acts_as_therapist, acts_as_supervisor,
       acts_as_interviewer, acts_as_supporter, acts_as_counselor, new_messages_after, created_at, updated_at)
     select case_id, user_id, role = 'patient', role = 'therapist', role = 'supervisor', role = 'interviewer',
            role = 'supporter', role = 'counselor',
            case when random() < 0.1 then created_at else now() - make_interval(secs => random() * 42 * 86400) end,
            created_at, created_at
       from ws_members,
            lateral (values ('patient', patient_id), ('therapist', therapist), ('therapist', therapist2), ('supervisor', supervisor),
                            ('interviewer', interviewer), ('supporter', supporter), ('counselor', counselor)) as m(role, user_id)
      where user_id is not null`,
  );
}

/**
 * The messages: each case gets a share of the total by its chattiness. A message comes from
 * the patient (to the therapists), the therapist (mostly to the patient, sometimes to the
 * supervisors), the supervisor (to the therapists), an interviewer or supporter (to the
 * patient), or the system (to patient and therapists). Sent between the case's opening and
 * now; one in fifty is still a draft, written in the last two weeks.
 */
async function insertMessages(sql: Sql, size: WorkspaceSize): Promise<void> {
  await sql.query(
    `with weights as (
       select m.*, greatest(1, round($1::int * c.chattiness / sum(c.chattiness) over ()))::int as n_messages
         from ws_members m join ws_cases c using (case_id)
     ),
     drawn as (
       select w.*, k, random() as who, random() as what, random() as draft, random() as at,
              1 + floor(random() * array_length($2::text[], 1))::int as subject_k,
              1 + floor(random() * array_length($3::text[], 1))::int as sentence_k
         from weights w, generate_series(1, w.n_messages) as k
     ),
     authored as (
       select d.*,
              case when draft < 0.02 then case when who < 0.5 then 'patient' else 'therapist' end
                   when who < 0.03 then 'system' when who < 0.43 then 'patient' when who < 0.83 then 'therapist'
                   when who < 0.90 then 'supervisor'
                   when who < 0.95 then case when interviewer is not null then 'interviewer' else 'therapist' end
                   else case when supporter is not null then 'supporter' else 'therapist' end end as sender_role
         from drawn d
     )
     insert into app_public.case_messages (case_id, sender_id, from_system, subject, body,
       to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters, to_counselors,
       created_at, updated_at, sent_at)
     select case_id,
            case sender_role when 'patient' then patient_id when 'therapist' then therapist when 'supervisor' then supervisor
                             when 'interviewer' then interviewer when 'supporter' then supporter end,
            sender_role = 'system',
            case when what < 0.6 then ($2::text[])[subject_k] end,
            format('%s %s', ($3::text[])[sentence_k], ($3::text[])[1 + (sentence_k + k) % array_length($3::text[], 1)]),
            false,
            sender_role in ('system', 'interviewer', 'supporter') or (sender_role = 'therapist' and what < 0.8),
            sender_role = 'therapist' and what >= 0.8,
            sender_role in ('system', 'patient', 'supervisor'),
            sender_role = 'patient' and supporter is not null and what < 0.2,
            sender_role = 'patient' and counselor is not null and what < 0.5,
            sent.at, sent.at, case when draft >= 0.02 then sent.at end
       from authored,
            lateral (select case when draft < 0.02 then now() - make_interval(secs => at * 14 * 86400)
                                 else created_at + (now() - created_at) * at end as at) as sent`,
    [size.messages, SUBJECTS, SENTENCES],
  );
}

/** Once for all cases, what the search-text triggers would have written one row at a time. */
async function refreshSearchText(pool: pg.Pool): Promise<void> {
  await withOwnerAs(pool, null, (sql) => sql.query('update app_public.cases set search_text = app_hidden.case_search_text(id)'));
}

/**
 * Visibility map and statistics, as autovacuum leaves a table that grew over months; without
 * them the first plans are made on guesses and index-only scans visit the heap anyway.
 */
async function vacuumAnalyze(pool: pg.Pool): Promise<void> {
  for (const table of ['app_public.users', 'app_private.user_secrets', 'app_public.cases', 'app_public.case_members', 'app_public.case_messages',
    'app_private.case_inbox', ...CARE_TABLES]) {
    await pool.query(`vacuum (analyze) ${table}`);
  }
}

/** Who the scenarios sign in as and what they search for, read back from a seeded database. */
export async function describeSeed(pool: pg.Pool, size: WorkspaceSize): Promise<SeededWorkspace> {
  const therapist = await busiestTherapist(pool);
  const { rows: coordinators } = await pool.query<{ id: string; username: string }>(
    `select id, username from app_public.users where is_coordinator_account order by username limit 1`,
  );
  const { rows: family } = await pool.query<{ family: string }>(
    `select substring(u.username from '^[a-z]+\\.([a-z]+)') as family
       from app_public.case_members i join app_public.users u on u.id = i.user_id
      where i.acts_as_patient and i.case_id = any($1::uuid[])
      order by u.username limit 1`,
    [therapist.caseIds],
  );
  const { rows: listed } = await pool.query<{ n: number }>(`select count(*) as n from app_public.cases where stage <> 'anonymization'`);
  return { size, therapist, coordinator: coordinators[0]!, search: family[0]!.family, listedCases: listed[0]!.n };
}

/** The size of a database seeded earlier, for a run that reuses it (BENCH_WORKSPACE_URL). */
export async function measureSize(pool: pg.Pool): Promise<WorkspaceSize> {
  const { rows } = await pool.query<{ cases: number; messages: number }>(
    'select (select count(*) from app_public.cases) as cases, (select count(*) from app_public.case_messages) as messages',
  );
  const staff = {} as Record<StaffRole, number>;
  for (const role of Object.keys(STAFF_AT_FULL_SCALE) as StaffRole[]) {
    const { rows: counted } = await pool.query<{ n: number }>(`select count(*) as n from app_public.users where is_${role}_account`);
    staff[role] = counted[0]!.n;
  }
  const { cases, messages } = rows[0]!;
  return { scale: Math.round((cases / FULL_SIZE.cases) * 100) / 100, cases, messages, staff };
}

async function busiestTherapist(pool: pg.Pool): Promise<SeededWorkspace['therapist']> {
  const { rows } = await pool.query<{ id: string; username: string; case_ids: string[] }>(
    `select u.id, u.username, array_agg(i.case_id order by i.case_id) as case_ids
       from app_public.case_members i join app_public.users u on u.id = i.user_id
      where i.acts_as_therapist
      group by u.id, u.username
      order by count(*) desc, u.username
      limit 1`,
  );
  const row = rows[0]!;
  return { id: row.id, username: row.username, caseIds: row.case_ids };
}
