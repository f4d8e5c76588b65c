/**
 * The operations CLI: every command run in-process against a test database (runCommand), and
 * the real process spawned for what only a process shows: exit codes, the password taken from
 * the environment, a fresh data directory migrated on first use, and the data-dir lock.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminInputError } from '../../src/server/admin/accounts';
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from '../../src/server/admin/demo';
import { verifyPassword } from '../../src/server/auth/passwords';
import { CliError, describeFailure, promptPassword, runCommand, UsageError, type PrepareIo } from '../../src/server/cli/commands';
import { openDatabase } from '../../src/server/db/database';
import { acquireDirectoryLock } from '../../src/server/db/dir-lock';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PASSWORD = 'a long enough secret';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.destroy();
});

let counter = 0;
function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Runs a command line in-process; no environment and no terminal unless a test gives them. */
async function run(argv: string[], io: PrepareIo = {}): Promise<string[]> {
  const lines: string[] = [];
  await runCommand(argv, {
    db: t.db,
    out: (line) => lines.push(line),
    env: {},
    readPassword: () => Promise.reject(new Error('the test did not expect a password prompt')),
    ...io,
  });
  return lines;
}

/** The error a command line fails with; a success fails the test. */
async function failure(argv: string[], io: PrepareIo = {}): Promise<Error> {
  try {
    await run(argv, io);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`"${argv.join(' ')}" should have failed`);
}

/** The id printed on the line labelled `user`, `case` or `member`. */
function printedId(lines: string[], label: 'user' | 'case' | 'member'): string {
  const line = lines.find((l) => l.startsWith(`${label} `));
  const id = line?.slice(label.length + 1) ?? '';
  expect(id).toMatch(UUID);
  return id;
}

async function createUserCli(flags: string[] = []): Promise<{ username: string; id: string; caseId?: string }> {
  const username = uniqueName('u');
  const lines = await run(['create-user', '--username', username, '--email', `${username}@example.org`, '--password', PASSWORD, ...flags]);
  const id = printedId(lines, 'user');
  return flags.includes('--patient') ? { username, id, caseId: printedId(lines, 'case') } : { username, id };
}

async function counts(): Promise<{ users: number; cases: number; members: number }> {
  const { rows } = await t.db.pool.query<{ users: number; cases: number; members: number }>(
    `select (select count(*) from app_public.users) as users, (select count(*) from app_public.cases) as cases,
            (select count(*) from app_public.case_members) as members`,
  );
  return rows[0]!;
}

async function userRow(username: string) {
  const { rows } = await t.db.pool.query('select * from app_public.users where username = $1', [username]);
  return rows[0] as Record<string, unknown> | undefined;
}

async function passwordMatches(username: string, password: string): Promise<boolean> {
  const { rows } = await t.db.pool.query<{ password_hash: string }>(
    'select s.password_hash from app_private.user_secrets s join app_public.users u on u.id = s.user_id where u.username = $1',
    [username],
  );
  return verifyPassword(rows[0]!.password_hash, password);
}

async function membership(caseId: string, userId: string) {
  const { rows } = await t.db.pool.query('select * from app_public.case_members where case_id = $1 and user_id = $2', [caseId, userId]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe('create-user', () => {
  it('creates a confirmed account with the given flags and settings', async () => {
    const username = uniqueName('staff');
    const lines = await run([
      'create-user', '--username', username, '--email', `${username}@example.org`, '--password', PASSWORD,
      '--therapist', '--supervisor', '--coordinator', '--alias', 'Dr. Salma', '--locale', 'en', '--time-zone', 'Asia/Baghdad',
    ]);
    expect(lines).toHaveLength(1);
    const row = await userRow(username);
    expect(row?.id).toBe(printedId(lines, 'user'));
    expect(row).toMatchObject({
      is_therapist_account: true, is_supervisor_account: true, is_coordinator_account: true,
      is_patient_account: false, is_interviewer_account: false, is_supporter_account: false,
      is_counselor_account: false, is_tester_account: false,
      alias: 'Dr. Salma', locale: 'en', time_zone: 'Asia/Baghdad',
    });
    expect(row?.email_confirmed_at).toBeInstanceOf(Date);
    expect(await passwordMatches(username, PASSWORD)).toBe(true);
  });

  it('gives a patient a case of their own and prints its id', async () => {
    const patient = await createUserCli(['--patient']);
    expect(await membership(patient.caseId!, patient.id)).toMatchObject({ acts_as_patient: true, acts_as_therapist: false });
    expect((await userRow(patient.username))?.is_patient_account).toBe(true);
  });

  it('leaves the email unconfirmed with --unconfirmed', async () => {
    const { username } = await createUserCli(['--unconfirmed', '--interviewer']);
    expect(await userRow(username)).toMatchObject({ email_confirmed_at: null, is_interviewer_account: true });
  });

  it('takes the password from --password, then SANAD_PASSWORD, then the prompt', async () => {
    const prompted = 'typed at the prompt';
    const [a, b, c] = [uniqueName('pw'), uniqueName('pw'), uniqueName('pw')];
    const io = { env: { SANAD_PASSWORD: 'from the environment' }, readPassword: () => Promise.resolve(prompted) };
    await run(['create-user', '--username', a, '--email', `${a}@example.org`, '--password', PASSWORD], io);
    await run(['create-user', '--username', b, '--email', `${b}@example.org`], io);
    await run(['create-user', '--username', c, '--email', `${c}@example.org`], { readPassword: io.readPassword });
    expect(await passwordMatches(a, PASSWORD)).toBe(true);
    expect(await passwordMatches(b, 'from the environment')).toBe(true);
    expect(await passwordMatches(c, prompted)).toBe(true);
  });

  it('refuses to prompt without a terminal, with a message naming the alternatives', async () => {
    const notATerminal = new PassThrough() as unknown as NodeJS.ReadStream;
    const error = await promptPassword(notATerminal, new PassThrough()).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/--password.*SANAD_PASSWORD/);
  });
});

describe('create-case and add-member', () => {
  it('creates an empty case with a title', async () => {
    const caseId = printedId(await run(['create-case', '--title', 'Pilot group A']), 'case');
    const { rows } = await t.db.pool.query('select title from app_public.cases where id = $1', [caseId]);
    expect(rows[0]).toEqual({ title: 'Pilot group A' });
  });

  it("creates a case for a patient named by username", async () => {
    const patient = await createUserCli(['--patient']);
    const caseId = printedId(await run(['create-case', '--patient', patient.username]), 'case');
    expect(caseId).not.toBe(patient.caseId);
    expect(await membership(caseId, patient.id)).toMatchObject({ acts_as_patient: true });
  });

  it('sets the acts-as flags, by username or id, and replaces them when run again', async () => {
    const patient = await createUserCli(['--patient']);
    const therapist = await createUserCli(['--therapist', '--supervisor']);
    const caseId = patient.caseId!;
    const memberId = printedId(await run(['add-member', '--case', caseId, '--user', therapist.username, '--therapist', '--supervisor']), 'member');
    expect(await membership(caseId, therapist.id)).toMatchObject({
      id: memberId, acts_as_therapist: true, acts_as_supervisor: true, acts_as_interviewer: false,
      acts_as_supporter: false, acts_as_counselor: false, acts_as_patient: false,
    });
    await run(['add-member', '--case', caseId, '--user', therapist.id, '--supervisor']);
    expect(await membership(caseId, therapist.id)).toMatchObject({ id: memberId, acts_as_therapist: false, acts_as_supervisor: true });
  });
});

describe('bad input: a clear error, exit code 1 or 2, and nothing written', () => {
  async function expectFailure(argv: string[], kind: typeof UsageError | typeof AdminInputError | typeof CliError, message: RegExp, io: PrepareIo = {}) {
    const before = await counts();
    const error = await failure(argv, io);
    expect(error).toBeInstanceOf(kind);
    expect(error.message).toMatch(message);
    expect(describeFailure(error).exitCode).toBe(kind === UsageError ? 2 : 1);
    expect(describeFailure(error).message).not.toMatch(/\n\s+at /);
    expect(await counts()).toEqual(before);
  }

  it('rejects an unknown flag', async () => {
    const name = uniqueName('x');
    await expectFailure(['create-user', '--username', name, '--email', `${name}@example.org`, '--password', PASSWORD, '--admin'], UsageError, /Unknown option '--admin'/);
    expect(await userRow(name)).toBeUndefined();
  });

  it('rejects an unknown command and a missing required option', async () => {
    await expectFailure(['delete-everything'], UsageError, /Unknown command "delete-everything"/);
    await expectFailure(['create-user', '--email', 'a@example.org', '--password', PASSWORD], UsageError, /needs --username/);
    await expectFailure(['create-case', 'stray'], UsageError, /Unexpected argument 'stray'/);
  });

  it('rejects add-member without a role flag', async () => {
    const patient = await createUserCli(['--patient']);
    await expectFailure(['add-member', '--case', patient.caseId!, '--user', patient.username], UsageError, /at least one role flag/);
  });

  it('rejects an unknown user or case', async () => {
    const patient = await createUserCli(['--patient']);
    await expectFailure(['add-member', '--case', patient.caseId!, '--user', 'nobody-here', '--therapist'], AdminInputError, /No user nobody-here/);
    await expectFailure(['add-member', '--case', 'not-a-case', '--user', patient.username, '--therapist'], AdminInputError, /No case not-a-case/);
    await expectFailure(['create-case', '--patient', 'nobody-here'], AdminInputError, /No user nobody-here/);
  });

  it('rejects a second patient on a case', async () => {
    const [first, second] = [await createUserCli(['--patient']), await createUserCli(['--patient'])];
    await expectFailure(['add-member', '--case', first.caseId!, '--user', second.username, '--patient'], AdminInputError, /has a patient already/);
  });

  it('rejects a duplicate username or email', async () => {
    const existing = await createUserCli();
    await expectFailure(
      ['create-user', '--username', existing.username, '--email', 'other@example.org', '--password', PASSWORD, '--patient'],
      AdminInputError,
      /exists already/,
    );
    await expectFailure(['create-user', '--username', uniqueName('y'), '--email', `${existing.username}@example.org`, '--password', PASSWORD], AdminInputError, /exists already/);
  });

  it('rejects a weak password, a bad locale and a bad time zone', async () => {
    const name = uniqueName('w');
    const base = ['create-user', '--username', name, '--email', `${name}@example.org`];
    await expectFailure([...base, '--password', 'short'], AdminInputError, /at least 10 characters/);
    await expectFailure([...base, '--password', name], AdminInputError, /must not be your username/);
    await expectFailure(base, AdminInputError, /at least 10 characters/, { env: { SANAD_PASSWORD: 'tiny' } });
    await expectFailure([...base, '--password', PASSWORD, '--locale', 'fr'], AdminInputError, /Unknown locale "fr"/);
    await expectFailure([...base, '--password', PASSWORD, '--time-zone', 'Mars/Olympus'], AdminInputError, /Unknown time zone/);
  });
});

describe('seed-demo', () => {
  it('refuses with NODE_ENV=production unless --force', async () => {
    const before = await counts();
    const error = await failure(['seed-demo'], { env: { NODE_ENV: 'production' } });
    expect(error).toBeInstanceOf(CliError);
    expect(error.message).toMatch(/never exist in production/);
    expect(await counts()).toEqual(before);
  });

  it('creates a coordinator, every role and patients with care teams, and can run again', async () => {
    const first = (await run(['seed-demo'])).join('\n');
    expect(first).toContain(DEMO_PASSWORD);
    expect(first).toMatch(/must never exist in production/);
    const afterFirst = await counts();

    const second = (await run(['seed-demo'])).join('\n');
    expect(await counts()).toEqual(afterFirst);
    for (const account of DEMO_ACCOUNTS) expect(second).toMatch(new RegExp(`${account.username} .*existed already`));

    expect(await userRow('demo-coordinator')).toMatchObject({ is_coordinator_account: true });
    expect(await passwordMatches('demo-coordinator', DEMO_PASSWORD)).toBe(true);
    for (const flag of ['interviewer', 'therapist', 'supervisor', 'supporter', 'counselor']) {
      expect(await userRow(`demo-${flag}`)).toMatchObject({ [`is_${flag}_account`]: true });
    }
    // Each demo patient's case: who is on it besides the patient, and in which role.
    const { rows } = await t.db.pool.query<{ patient: string; team: string[] }>(
      `select p.username as patient,
              array_agg(s.username || ':' || concat_ws(',', case when m.acts_as_therapist then 'therapist' end,
                case when m.acts_as_supervisor then 'supervisor' end, case when m.acts_as_interviewer then 'interviewer' end,
                case when m.acts_as_supporter then 'supporter' end, case when m.acts_as_counselor then 'counselor' end)
                order by s.username) as team
         from app_public.users p
         join app_public.case_members pm on pm.user_id = p.id and pm.acts_as_patient
         join app_public.case_members m on m.case_id = pm.case_id and m.user_id <> p.id
         join app_public.users s on s.id = m.user_id
        where p.username like 'demo-patient%'
        group by p.username, pm.case_id
        order by p.username`,
    );
    expect(rows.map((r) => r.patient)).toEqual(['demo-patient1', 'demo-patient2', 'demo-patient3']);
    for (const row of rows) {
      expect(row.team).toEqual(['demo-counselor:counselor', 'demo-interviewer:interviewer', 'demo-supervisor:supervisor', 'demo-supporter:supporter', 'demo-therapist:therapist']);
    }
  });
});

describe('the real process', () => {
  interface Outcome {
    code: number | null;
    stdout: string;
    stderr: string;
  }

  /** Spawns the CLI as an operator would, with this test run's Node first on the PATH. */
  function spawnCli(args: string[], env: Record<string, string>): Promise<Outcome> {
    const base = { ...process.env };
    for (const name of ['DATABASE_URL', 'DATA_DIR', 'SANAD_PASSWORD']) delete base[name];
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/server/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...base, NODE_ENV: 'test', PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  function freshDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-cli-'));
  }

  it('prints the usage for help and exits 0', async () => {
    const outcome = await spawnCli(['help'], {});
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/create-user --username U --email E/);
  });

  it('exits 2 on an unknown flag, before touching any database', async () => {
    const dataDir = freshDir();
    try {
      const outcome = await spawnCli(['create-case', '--colour', 'blue'], { DATA_DIR: dataDir });
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toMatch(/Unknown option '--colour'/);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('creates a user with SANAD_PASSWORD, printing an id that exists afterwards', async () => {
    const dataDir = freshDir();
    const username = uniqueName('proc');
    try {
      // On PostgreSQL the test database is the target; on PGlite a fresh DATA_DIR, migrated first.
      const target: Record<string, string> = t.kind === 'postgres' ? { DATABASE_URL: t.databaseUrl! } : {};
      const outcome = await spawnCli(['create-user', '--username', username, '--email', `${username}@example.org`, '--coordinator'], {
        DATA_DIR: dataDir,
        SANAD_PASSWORD: PASSWORD,
        ...target,
      });
      expect(outcome.stderr).not.toMatch(/\n\s+at /);
      expect(outcome.code).toBe(0);
      const id = /^user (\S+)$/m.exec(outcome.stdout)?.[1];
      expect(id).toMatch(UUID);
      const db = t.kind === 'postgres' ? t.db : await openDatabase({ dataDir });
      try {
        const { rows } = await db.pool.query('select username, is_coordinator_account from app_public.users where id = $1', [id]);
        expect(rows).toEqual([{ username, is_coordinator_account: true }]);
      } finally {
        if (db !== t.db) await db.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // Creating and migrating a new embedded database takes several seconds on a busy machine.
  }, 90_000);

  it('refuses a data directory another process holds, saying to stop the server first', async () => {
    const dataDir = freshDir();
    const lock = acquireDirectoryLock(dataDir);
    try {
      const outcome = await spawnCli(['create-case'], { DATA_DIR: dataDir });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/already in use by another Sanad process/);
      expect(outcome.stderr).toMatch(/stop the server first/i);
      expect(outcome.stderr).not.toMatch(/\n\s+at /);
    } finally {
      lock.release();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
