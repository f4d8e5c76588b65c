/**
 * `npm run bench:engagement`: the engagement radar (issue 32 item 1) at 30,000 participants on
 * PostgreSQL. Seeds 30,000 patients with a case each (300 therapists with 100 cases each, a
 * coordinator), two messages per case (one from the patient, one answer to half of them) through
 * the real triggers, and activity spread over 60 days; then times, as the request role in a
 * request transaction, the coordinator's first radar page (50 rows and the counts per state, as
 * the screen asks), a page deep in the list, a therapist's page, and one sweep over every case.
 * Figures are printed and written to bench/RESULTS.md, never asserted.
 *
 * Target (issue 32): the radar answers in under a second at 30,000 participants.
 * BENCH_ENGAGEMENT_PARTICIPANTS (default 30000), BENCH_DATABASE_URL / TEST_DATABASE_URL,
 * BENCH_ENGAGEMENT_RUNS (default 30 per scenario).
 */
import './production-mode';
import { migrate } from '../src/server/db/migrate';
import { withOwner, withUser } from '../src/server/db/transaction';
import { engagementRadar, engagementSweep } from '../src/server/engagement/service';
import { findPostgresServer, openPostgresBench } from './databases';
import { timed } from './harness';
import { describeMachine, milliseconds } from './report';
import { describeCommand, describeDatabase, writeResults } from './results-file';

const participants = Number(process.env.BENCH_ENGAGEMENT_PARTICIPANTS ?? 30_000);
const runs = Number(process.env.BENCH_ENGAGEMENT_RUNS ?? 30);
const TARGET_MS = 1000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number; max: number }> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1]! };
}

async function main() {
  const server = await findPostgresServer(process.env);
  if (!server) {
    console.log('bench:engagement needs a PostgreSQL server (BENCH_DATABASE_URL or TEST_DATABASE_URL); none answered.');
    return;
  }
  const database = await openPostgresBench(server, 4, 'sanad_bench_engagement');
  try {
    const pool = database.db.pool;
    await timed('migrate', () => migrate(pool));
    const ids = await timed(`seed ${participants} participants`, () =>
      withOwner(pool, async (sql) => {
        const therapists = Math.max(1, Math.round(participants / 100));
        await sql.query(
          `insert into app_public.users (username, email, is_coordinator_account) values ('coord', 'coord@bench.invalid', true)`,
        );
        await sql.query(
          `insert into app_public.users (username, email, is_therapist_account)
           select format('th-%s', n), format('th-%s@bench.invalid', n), true from generate_series(1, $1::int) n`,
          [therapists],
        );
        await sql.query(
          `create temporary table bench_patients on commit drop as
             select n, gen_random_uuid() as user_id, gen_random_uuid() as case_id from generate_series(1, $1::int) n`,
          [participants],
        );
        await sql.query(
          `insert into app_public.users (id, username, email, alias, is_patient_account)
           select user_id, format('pt-%s', n), format('pt-%s@bench.invalid', n), format('P %s', n), true from bench_patients`,
        );
        await sql.query('insert into app_public.cases (id) select case_id from bench_patients');
        await sql.query('insert into app_public.case_members (case_id, user_id, acts_as_patient) select case_id, user_id, true from bench_patients');
        await sql.query(
          `insert into app_public.case_members (case_id, user_id, acts_as_therapist)
           select p.case_id, t.id, true from bench_patients p
             join app_public.users t on t.username = format('th-%s', (p.n - 1) % $1::int + 1)`,
          [therapists],
        );
        await sql.query(`insert into app_public.case_messages (case_id, sender_id, body, to_therapists) select case_id, user_id, 'Hello', true from bench_patients`);
        await sql.query(
          `insert into app_public.case_messages (case_id, sender_id, body, to_patients)
           select p.case_id, m.user_id, 'Hi', true from bench_patients p
             join app_public.case_members m on m.case_id = p.case_id and m.acts_as_therapist where p.n % 2 = 0`,
        );
        await sql.query(`update app_public.case_engagement set last_activity_at = now() - make_interval(secs => (hashtext(case_id::text) & 65535) / 65535.0 * 60 * 86400)`);
        await sql.query('analyze');
        const { rows } = await sql.query<{ coord: string; therapist: string }>(
          `select (select id from app_public.users where username = 'coord') as coord, (select id from app_public.users where username = 'th-1') as therapist`,
        );
        return rows[0]!;
      }),
    );
    const coordinator = { userId: ids.coord };
    const therapist = { userId: ids.therapist };
    const scenarios: [string, () => Promise<unknown>][] = [
      ['coordinator, first page (50) + counts', () => withUser(pool, coordinator, (sql) => engagementRadar(sql, 50, 0))],
      ['coordinator, page at offset 15,000', () => withUser(pool, coordinator, (sql) => engagementRadar(sql, 50, Math.floor(participants / 2)))],
      ['therapist (100 own cases), first page + counts', () => withUser(pool, therapist, (sql) => engagementRadar(sql, 50, 0))],
    ];
    const rows: string[][] = [];
    for (const [name, fn] of scenarios) {
      const m = await measure(fn);
      rows.push([name, milliseconds(m.p50), milliseconds(m.p99), milliseconds(m.max), m.p99 < TARGET_MS ? 'yes' : 'no']);
      console.log(`${name}: p50 ${milliseconds(m.p50)} ms, p99 ${milliseconds(m.p99)} ms`);
    }
    const sweepStart = performance.now();
    const opened = await engagementSweep(pool);
    const sweepMs = performance.now() - sweepStart;
    const secondStart = performance.now();
    const openedAgain = await engagementSweep(pool);
    const secondMs = performance.now() - secondStart;
    console.log(`sweep: ${opened} outreach starts queued in ${milliseconds(sweepMs)} ms; again: ${openedAgain} in ${milliseconds(secondMs)} ms`);
    rows.push([`sweep over every case (first: ${opened} outreach starts queued)`, milliseconds(sweepMs), '-', '-', '-']);
    rows.push([`sweep again (nothing changed: ${openedAgain} queued)`, milliseconds(secondMs), '-', '-', '-']);
    writeResults({
      bench: 'engagement',
      title: `Engagement radar (bench/engagement.ts): ${participants.toLocaleString('en')} participants, ${runs} runs a scenario`,
      command: describeCommand(process.argv, process.env),
      machine: describeMachine(),
      date: new Date(),
      databases: [await describeDatabase('postgres', pool, `${participants} participants, ${Math.round(participants / 100)} therapists, ${Math.round(participants * 1.5)} messages`)],
      tables: [{ columns: ['scenario', 'p50 ms', 'p99 ms', 'max ms', 'under 1 s'], rows }],
      notes: ['Each read is one request transaction as the request role (row-level security applies), sequential, through the service the route calls.', 'Target (issue 32): under a second at 30,000 participants.'],
    });
  } finally {
    await database.dispose();
  }
}

await main();
