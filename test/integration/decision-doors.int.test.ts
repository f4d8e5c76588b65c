/**
 * Issue 27, "one door per decision", held as a rule of the code base: a test that fails when a
 * second writer of a clinical decision appears.
 *
 * - The database: the request role holds no write right on a decision's record (assignment,
 *   booking, exclusion history, out-of-arm sends, the exclusion and dropout columns, a report's
 *   outcome and signature), the guarded columns keep their guard triggers, and every SQL function
 *   that writes a decision table is one of the known doors.
 * - The server's code: only the door modules name a decision table in a write or call a door
 *   function; screens, the REST and GraphQL layers, the workflow, the CLI and the demo reach them
 *   through those modules (the demo through HTTP, as a clinic would).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 120_000);
afterAll(() => database?.destroy());

const query = async <T>(text: string, values: unknown[] = []) => (await database.db.pool.query(text, values)).rows as T[];

/** Each decision's record, and what a request may never write there. */
const DECISION_RECORDS: { decision: string; table: string; columns?: string[] }[] = [
  { decision: 'randomization', table: 'treatment_assignments' },
  { decision: 'booking', table: 'interview_bookings' },
  { decision: 'exclusion and dropout (history)', table: 'exclusion_changes' },
  { decision: 'out-of-arm sends', table: 'out_of_arm_sends' },
  { decision: 'exclusion and dropout', table: 'cases', columns: ['is_dropout', 'dropout_reason', 'exclude_from_analysis', 'reason_for_exclusion'] },
  {
    decision: 'patient exclusion flags',
    table: 'users',
    columns: [
      'excluded', 'excluded_for_bdi_gte45', 'excluded_for_lack_of_email', 'excluded_for_lack_of_internet_access', 'excluded_during_interview',
      'excluded_for_missing_interview', 'excluded_for_minor_age', 'excluded_for_no_trauma_or_low_bdi', 'excluded_for_upcoming_treatment',
      'is_counselor_account', 'is_therapist_account', 'is_coordinator_account',
    ],
  },
  {
    decision: 'interview outcome (signature, amendment, override)',
    table: 'interview_reports',
    columns: ['state', 'trial_outcome', 'finalized_at', 'finalized_by', 'amended_at', 'amended_by', 'amendment_reason', 'override_by', 'override_reason'],
  },
];

/** Columns a request may write, but only under a trigger that sends it to the door. */
const GUARDED_COLUMNS: { table: string; trigger: string; door: string }[] = [
  { table: 'case_members', trigger: '_040_counselor_through_command', door: 'app_hidden.assign_counselor' },
  { table: 'cases', trigger: '_040_stage_by_the_trial', door: 'the trial process (stage)' },
  { table: 'treatment_assignments', trigger: '_050_in_step', door: 'the randomization step' },
  { table: 'interview_reports', trigger: '_055_one_door', door: 'POST /api/interview_reports/:id/finalize' },
];

/**
 * The SQL functions allowed to write each decision table: the doors and the bookkeeping their
 * triggers do (audit and retention are not decisions but must be able to touch the rows).
 */
const SQL_WRITERS: Record<string, string[]> = {
  treatment_assignments: ['app_public.randomize_case'],
  // The booking command, and the interviewer's moves of a booked slot (its time, its link, its
  // cancellation), each checking the booking's rules itself.
  interview_bookings: ['app_public.book_interview', 'app_hidden.move_offer', 'app_hidden.change_link', 'app_hidden.cancel_booking_row'],
  exclusion_changes: [
    'app_hidden.exclude_case', // the coordinators' command (stage checked)
    'app_hidden.raise_patient_exclusion', // the trial's own rules (screening, interview, missed interviews)
    // Known writers with rules of their own, reported as open in issue 27: the suicide-risk call
    // that excludes (by its author; the stage rule since 0272), and the therapists' `dropout`
    // message (only while the treatment phase waits for it).
    'app_hidden.exclude_patient_for_safety',
    'app_hidden.record_dropout_message',
  ],
  out_of_arm_sends: ['app_public.send_out_of_arm_worksheet', 'app_hidden.tg_letter_arm'],
};

describe('the database: decisions are written only through their doors', () => {
  it('the request role holds no write right on a decision record', async () => {
    const problems: string[] = [];
    for (const { decision, table, columns } of DECISION_RECORDS) {
      const qualified = `app_public.${table}`;
      if (!columns) {
        for (const privilege of ['INSERT', 'UPDATE', 'DELETE']) {
          const [row] = await query<{ ok: boolean }>(`select has_table_privilege('sanad_user', $1, $2) as ok`, [qualified, privilege]);
          if (row!.ok) problems.push(`${decision}: sanad_user may ${privilege} ${table}`);
        }
        continue;
      }
      for (const column of columns) {
        const [exists] = await query<{ n: number }>(
          `select count(*)::int as n from information_schema.columns where table_schema = 'app_public' and table_name = $1 and column_name = $2`,
          [table, column],
        );
        expect(exists!.n, `${table}.${column} exists`).toBe(1);
        for (const privilege of ['INSERT', 'UPDATE']) {
          const [row] = await query<{ ok: boolean }>(`select has_column_privilege('sanad_user', $1, $2, $3) as ok`, [qualified, column, privilege]);
          if (row!.ok) problems.push(`${decision}: sanad_user may ${privilege} ${table}.${column}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('the guarded columns keep the triggers that send every writer to the door', async () => {
    for (const { table, trigger, door } of GUARDED_COLUMNS) {
      const rows = await query<{ enabled: string }>(
        `select t.tgenabled as enabled from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'app_public' and c.relname = $1 and t.tgname = $2`,
        [table, trigger],
      );
      expect(rows.map((r) => r.enabled), `${table}.${trigger} (${door})`).toEqual(['O']);
    }
  });

  it('the draw is not reachable by a request; the doors are', async () => {
    const can = async (fn: string) => (await query<{ ok: boolean }>(`select has_function_privilege('sanad_user', $1, 'execute') as ok`, [fn]))[0]!.ok;
    expect(await can('app_public.randomize_case(uuid)')).toBe(false);
    for (const door of [
      'app_public.book_interview(uuid, uuid)',
      'app_public.send_out_of_arm_worksheet(uuid, text, text)',
      'app_hidden.assign_counselor(uuid, uuid)',
      'app_hidden.assign_therapist(uuid, uuid)',
    ]) {
      expect(await can(door), door).toBe(true);
    }
  });

  it('every SQL function that writes a decision table is one of its doors', async () => {
    const functions = await query<{ fn: string; body: string }>(
      `select n.nspname || '.' || p.proname as fn, p.prosrc as body from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app_public', 'app_hidden', 'app_private')`,
    );
    const problems: string[] = [];
    for (const [table, allowed] of Object.entries(SQL_WRITERS)) {
      const write = new RegExp(`\\b(insert\\s+into|update|delete\\s+from)\\s+app_public\\.${table}\\b`, 'i');
      const writers = functions.filter((f) => write.test(f.body.replace(/--[^\n]*/g, ''))).map((f) => f.fn);
      expect(writers.length, `${table} has a door`).toBeGreaterThan(0);
      for (const fn of writers) if (!allowed.includes(fn)) problems.push(`${fn} writes ${table} outside its door`);
    }
    expect(problems).toEqual([]);
  });
});

/** Every server and web source file, without tests. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** Where the server's code may name a decision in a write or call its door, and why. */
const CODE_DOORS: { what: string; pattern: RegExp; files: string[] }[] = [
  { what: 'signing or amending a report', pattern: /update\s+app_public\.interview_reports\b/i, files: ['src/server/reports/service.ts'] },
  { what: 'the draw', pattern: /\brandomize_case\s*\(/, files: ['src/server/trial/routes.ts'] },
  { what: 'exclusion and dropout', pattern: /\bexclude_case\s*\(/, files: ['src/server/trial/routes.ts'] },
  { what: 'an exclusion by the trial’s rules', pattern: /\braise_patient_exclusion\s*\(/, files: ['src/server/reports/service.ts'] },
  { what: 'the therapist', pattern: /\bassign_therapist\s*\(/, files: ['src/server/workflow/task-hooks.ts'] },
  { what: 'the counselor', pattern: /\bassign_counselor\s*\(/, files: ['src/server/counseling/routes.ts'] },
  // The CLI's add-member (and the test cast) set care roles as the owner: a known writer of the
  // therapist and counselor roles beside their commands, reported as open in issue 27.
  { what: 'a care role (therapist, counselor)', pattern: /(insert\s+into|update)\s+app_public\.case_members[\s\S]{0,200}acts_as_(therapist|counselor)/i, files: ['src/server/admin/accounts.ts'] },
  // The workflow's own step that moves the stage (0271: requests cannot).
  { what: 'the stage', pattern: /update\s+app_public\.cases\s+set\s+stage/i, files: ['src/server/workflow/handlers.ts'] },
  // No TypeScript writes these at all: their SQL functions are the doors.
  { what: 'an assignment', pattern: /(insert\s+into|update|delete\s+from)\s+app_public\.treatment_assignments\b/i, files: [] },
  // A missed interview cancels its booking inside the report service's door (0095).
  { what: 'a booking', pattern: /(insert\s+into|update|delete\s+from)\s+app_public\.interview_bookings\b/i, files: ['src/server/reports/service.ts'] },
  { what: 'the exclusion history', pattern: /(insert\s+into|update|delete\s+from)\s+app_public\.exclusion_changes\b/i, files: [] },
  { what: 'an out-of-arm send', pattern: /(insert\s+into|update|delete\s+from)\s+app_public\.out_of_arm_sends\b/i, files: [] },
  { what: 'the exclusion columns', pattern: /\b(is_dropout|exclude_from_analysis|reason_for_exclusion|excluded_for_\w+)\s*=\s*(true|false|\$\d)/i, files: [] },
];

describe('the server’s code: one module per door', () => {
  it('names a decision in a write, or calls its door, only in the door’s module', () => {
    const files = [...sources('src/server'), ...sources('src/web'), ...sources('src/domain'), ...sources('scripts')];
    expect(files.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      for (const door of CODE_DOORS) {
        if (door.pattern.test(text) && !door.files.includes(file)) problems.push(`${file}: ${door.what} outside its door (${door.files.join(', ') || 'SQL only'})`);
      }
    }
    expect(problems).toEqual([]);
    // Each door module still holds its door (a rename would make this test pass vacuously).
    for (const door of CODE_DOORS) for (const file of door.files) expect(door.pattern.test(fs.readFileSync(file, 'utf8')), `${door.what} in ${file}`).toBe(true);
  });
});
