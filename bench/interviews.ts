/**
 * `npm run bench` (interviews), `npm run bench:interviews`: interview scheduling at the issue's
 * size (200 interviewers × 100 slots, 10,000 bookings) under load at concurrency 32, with the
 * two reads the screens repeat most: AvailableInterviewDates as a patient (the earliest free
 * slots of the next 8 weeks, as the booking screen asks) and InterviewOffers as an interviewer
 * (their own slots of the last 30 days and ahead, with bookings, plus colleagues' adoptible
 * cancelled ones, as the manage screen watches).
 * The GraphQL text is the web app's own. Figures are printed, never asserted.
 * Each read runs twice: as deployed, where repeated polls are answered from the read cache while
 * nothing changed (src/server/graphql/read-cache.ts), and with the cache off (READ_CACHE_MB=0),
 * which is what every first poll after a change costs.
 *
 * Target on PostgreSQL (issue "Interview scheduling", item 7): p99 ≤ 30 ms.
 *
 * As run.ts: BENCH_SECONDS, BENCH_ONLY=pglite|postgres, BENCH_DATABASE_URL, BENCH_CONCURRENCY.
 * BENCH_KEEP=1: keep the seeded PostgreSQL database (for EXPLAIN) instead of dropping it.
 * BENCH_INTERVIEW_SCALE: size relative to the issue's (default 1 on PostgreSQL, 0.2 on PGlite).
 */
import './production-mode';
import { migrate } from '../src/server/db/migrate';
import { withOwner } from '../src/server/db/transaction';
import { hashPassword } from '../src/server/auth/passwords';
import { AVAILABLE_DATES_QUERY, availableUntil, OFFERS_QUERY, offersSince } from '../src/domain/interview-operations';
import type { BenchDatabase } from './databases';
import { chooseDatabases, readSettings, startServer, timed, WARMUP_MS, type Settings } from './harness';
import { runLoad, summarize, type LoadRequest, type Summary } from './load';
import { describeMachine, formatColumns, milliseconds, type Column } from './report';
import { describeCommand, describeDatabase, tableOf, writeResults } from './results-file';
import { signIn } from './scenarios';
import { SEED_PASSWORD } from './seed';

const P99_TARGET_MS = 30;

interface Size {
  interviewers: number;
  slotsPerInterviewer: number;
  bookings: number;
}

function size(kind: BenchDatabase['kind']): Size {
  const scale = Number(process.env.BENCH_INTERVIEW_SCALE ?? (kind === 'postgres' ? 1 : 0.2));
  return { interviewers: Math.max(2, Math.round(200 * scale)), slotsPerInterviewer: 100, bookings: Math.round(10_000 * scale) };
}

/**
 * Interviewers with one slot a day each (a third in the past, the rest ahead; every 50th
 * cancelled), patients with a case each, and bookings on every other live slot until the
 * count is reached. Set-based inserts as the owner; the booking rules hold by construction.
 */
async function seed(database: BenchDatabase, s: Size): Promise<{ interviewer: string; patient: string }> {
  const hash = await hashPassword(SEED_PASSWORD);
  await withOwner(database.db.pool, async (sql) => {
    await sql.query(
      `with staff as (
         insert into app_public.users (username, email, locale, time_zone, email_confirmed_at, is_interviewer_account, gender,
           agreed_to_terms, agreed_to_privacy_policy, confirmed_adult)
         select format('iv-%s', lpad(n::text, 4, '0')), format('iv-%s@bench.invalid', n), 'de', 'Europe/Berlin', now(), true,
                (array['FEMALE', 'MALE', 'DIVERSE'])[n % 3 + 1]::app_public.gender, true, true, true
           from generate_series(1, $1::int) n
         returning id
       ) insert into app_private.user_secrets (user_id, password_hash) select id, $2 from staff`,
      [s.interviewers, hash],
    );
    await sql.query(
      `insert into app_public.interview_offers (interviewer_id, time_slot, canceled, canceled_at)
       select u.id,
              tstzrange(date_trunc('hour', now()) + make_interval(days => k - $1::int / 3, hours => (n % 9)::int),
                        date_trunc('hour', now()) + make_interval(days => k - $1::int / 3, hours => (n % 9)::int, mins => 45), '[)'),
              (n * 100 + k) % 50 = 0, case when (n * 100 + k) % 50 = 0 then now() end
         from (select id, row_number() over (order by username) as n from app_public.users where is_interviewer_account) u
        cross join generate_series(0, $1::int - 1) k`,
      [s.slotsPerInterviewer],
    );
    await sql.query(
      `create temporary table bench_patients on commit drop as
         select n, gen_random_uuid() as user_id, gen_random_uuid() as case_id from generate_series(1, $1::int) n`,
      [s.bookings + 10],
    );
    await sql.query(
      `insert into app_public.users (id, username, email, locale, time_zone, email_confirmed_at, is_patient_account,
         agreed_to_terms, agreed_to_privacy_policy, confirmed_adult)
       select user_id, format('pt-%s', lpad(n::text, 5, '0')), format('pt-%s@bench.invalid', n), 'ar', 'Asia/Baghdad', now(), true, true, true, true
         from bench_patients`,
    );
    await sql.query('insert into app_private.user_secrets (user_id, password_hash) select user_id, $1 from bench_patients', [hash]);
    await sql.query('insert into app_public.cases (id) select case_id from bench_patients');
    await sql.query('insert into app_public.case_members (case_id, user_id, acts_as_patient) select case_id, user_id, true from bench_patients');
    // Every other live slot is booked, past and future alike, one case each; the last ten patients keep no booking.
    await sql.query(
      `with slots as (
         select o.id, o.interviewer_id, row_number() over (order by o.starts_at, o.id) as n
           from app_public.interview_offers o where not o.canceled
       ), chosen as (select * from slots where n % 2 = 0 order by n limit $1)
       insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id, booked_by)
       select c.id, p.case_id, p.user_id, c.interviewer_id, p.user_id
         from (select *, row_number() over (order by n) as k from chosen) c
         join bench_patients p on p.n = c.k`,
      [s.bookings],
    );
    await sql.query('analyze');
  });
  return { interviewer: 'iv-0001', patient: `pt-${String(s.bookings + 1).padStart(5, '0')}` };
}

interface Row {
  database: string;
  scenario: string;
  rows: number;
  result: Summary;
}

const COLUMNS: Column<Row>[] = [
  { title: 'database', value: (row) => row.database, left: true },
  { title: 'scenario', value: (row) => row.scenario, left: true },
  { title: 'rows', value: (row) => String(row.rows) },
  { title: 'req/s', value: (row) => row.result.perSecond.toFixed(0) },
  { title: 'p50', value: (row) => milliseconds(row.result.p50) },
  { title: 'p99', value: (row) => milliseconds(row.result.p99) },
  { title: 'errors', value: (row) => String(row.result.errors) },
  { title: 'target', value: (row) => (row.database !== 'postgres' ? '-' : row.result.p99 <= P99_TARGET_MS ? 'met' : 'missed'), left: true },
];

function graphqlRequest(token: string, query: string, variables: Record<string, unknown>): LoadRequest {
  return {
    method: 'POST',
    path: '/api/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    bodies: [JSON.stringify({ query, variables })],
    graphql: true,
  };
}

/** One answer, checked: a broken policy must not pass for a fast read. */
async function answer(baseUrl: string, request: LoadRequest): Promise<number> {
  const response = await fetch(baseUrl + request.path, { method: 'POST', headers: request.headers, body: request.bodies![0]! });
  const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors || !body.data) throw new Error(`The benchmark's query failed: ${JSON.stringify(body.errors)}`);
  const value = Object.values(body.data)[0] as unknown[] | { nodes: unknown[] };
  const rows = Array.isArray(value) ? value.length : value.nodes.length;
  if (rows === 0) throw new Error('The benchmark query answered no rows: the seed or a policy is wrong.');
  return rows;
}

async function benchDatabase(label: string, database: BenchDatabase, settings: Settings, databases: string[]): Promise<Row[]> {
  const s = size(database.kind);
  await timed('migrate', () => migrate(database.db.pool));
  const seeded = `${s.interviewers} interviewers × ${s.slotsPerInterviewer} slots, ${s.bookings} bookings`;
  const people = await timed(`seed ${seeded}`, () => seed(database, s));
  databases.push(await describeDatabase(label, database.db.pool, seeded));
  const rows: Row[] = [];
  const modes: { name: string; env: Record<string, string> }[] = [
    { name: '', env: {} },
    { name: ', no read cache', env: { READ_CACHE_MB: '0' } },
  ];
  for (const mode of modes) {
    rows.push(...(await benchServer(label, database, settings, people, mode)));
  }
  return rows;
}

async function benchServer(
  label: string,
  database: BenchDatabase,
  settings: Settings,
  people: { interviewer: string; patient: string },
  mode: { name: string; env: Record<string, string> },
): Promise<Row[]> {
  const { sanad, baseUrl } = await startServer(database, mode.env);
  try {
    const scenarios = [
      {
        name: `AvailableInterviewDates (patient${mode.name})`,
        request: graphqlRequest(await signIn(baseUrl, people.patient), AVAILABLE_DATES_QUERY, { until: availableUntil(new Date()).toISOString() }),
      },
      {
        name: `InterviewOffers (interviewer${mode.name})`,
        request: graphqlRequest(await signIn(baseUrl, people.interviewer), OFFERS_QUERY, { since: offersSince(new Date()).toISOString() }),
      },
    ];
    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const count = await answer(baseUrl, scenario.request);
      const result = summarize(
        await runLoad({ baseUrl, request: scenario.request, concurrency: settings.concurrency, warmupMs: WARMUP_MS, durationMs: settings.seconds * 1000 }),
      );
      console.log(`  ${scenario.name}: ${count} rows, ${result.perSecond.toFixed(0)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
      rows.push({ database: label, scenario: scenario.name, rows: count, result });
    }
    return rows;
  } finally {
    await sanad.close();
  }
}

/** BENCH_KEEP=1 keeps the seeded PostgreSQL database for EXPLAIN and prints where it is. */
async function keepOrDispose(database: BenchDatabase): Promise<void> {
  if (process.env.BENCH_KEEP !== '1' || database.kind !== 'postgres') return database.dispose();
  await database.db.close();
  console.log(`  kept for inspection: ${database.databaseUrl} (drop it when done)`);
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const machine = describeMachine();
  console.log(machine);
  console.log(`Interviews: concurrency ${settings.concurrency}, ${WARMUP_MS / 1000} s warm-up, ${settings.seconds} s measured per scenario\n`);
  const rows: Row[] = [];
  const databases: string[] = [];
  for (const { label, open } of await chooseDatabases(settings, 'sanad_bench_iv')) {
    console.log(`${label}:`);
    const database = await open();
    try {
      rows.push(...(await benchDatabase(label, database, settings, databases)));
    } finally {
      await keepOrDispose(database);
    }
    console.log('');
  }
  console.log(formatColumns(COLUMNS, rows));
  const note = `Target on PostgreSQL: p99 ≤ ${P99_TARGET_MS} ms. Latencies in ms, over HTTP through the whole app.`;
  console.log(note);
  writeResults({
    bench: 'interviews',
    title: `Interview scheduling reads (bench/interviews.ts): concurrency ${settings.concurrency}, ${settings.seconds} s a scenario`,
    command: describeCommand(process.argv, process.env),
    machine,
    date: new Date(),
    databases,
    tables: [tableOf(COLUMNS, rows)],
    notes: [note],
  });
}

main().catch((error: unknown) => {
  console.error('The interview benchmark failed:', error);
  process.exitCode = 1;
});
