/**
 * The operations CLI's commands (`npm run sanad -- <command>`). Parsing, preparing and running
 * are separate steps: main.ts asks for a password before it opens (and so locks) the database,
 * and tests run every command against a test database without spawning a process.
 */
import { readFile } from 'node:fs/promises';
import readline from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { isTimeZone } from '../../domain/accounts';
import { LOCALES } from '../../domain/locales';
import { checkWordingFile } from '../../domain/wording-file';
import { installWording } from '../content/wording';
import { withOwner } from '../db/transaction';
import { CASE_ROLES, type CaseRole } from '../../domain/roles';
import { ACCOUNT_FLAGS, AdminInputError, addMember, createCase, createUser, type AccountFlag, type NewUser } from '../admin/accounts';
import { buildApp } from '../app';
import type { Config } from '../config';
import { DEMO_ACCOUNTS, DEMO_PASSWORD, seedDemo, seedDemoActivity, type SeededAccount } from '../admin/demo';
import { SUPPORTED_LOCALES, type Locale } from '../config';
import type { Database } from '../db/database';
import { DataDirLockedError } from '../db/dir-lock';
import { MigrationError } from '../db/migrate';
import { describeVerdicts, verifyChains } from '../integrity/chains';
import { BackupError } from '../ops/backup';
import { readStoredAllocation, verifyStored } from '../trial/commitment';

/** The command line cannot be understood: exit code 2 tells a script the mistake is its own. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    /** An unknown command gets the whole usage text; a wrong option only a pointer to it. */
    readonly showUsage = false,
  ) {
    super(message);
  }
}

/** A failure its message explains fully (configuration, a cancelled prompt): no stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

type Env = Record<string, string | undefined>;

/** A new account as typed on the command line; the password may still be missing. */
export type UserDraft = Omit<NewUser, 'password'> & { password?: string | undefined };

export type Command =
  | { name: 'help' }
  | { name: 'create-user'; user: UserDraft }
  | { name: 'create-case'; patient?: string | undefined; title?: string | undefined }
  | { name: 'add-member'; caseId: string; user: string; roles: CaseRole[] }
  | { name: 'seed-demo'; force: boolean }
  | { name: 'rebuild-case-inbox' }
  | { name: 'verify-audit' }
  | { name: 'verify-allocation'; seed?: string | undefined; commitment?: string | undefined }
  | { name: 'import-wording'; file: string };

export interface PrepareIo {
  env?: Env;
  /** Asks for a password when neither --password nor SANAD_PASSWORD gives one. */
  readPassword?: () => Promise<string>;
}

export interface CommandContext extends PrepareIo {
  db: Database;
  /** The settings, for commands that run the app in-process (seed-demo drives the trial through it). */
  config?: Config;
  /** Receives the command's output, one line (or block of lines) per call. */
  out: (line: string) => void;
}

const HELP_HINT = 'Run "npm run sanad -- help" to see the commands and their options.';

// ---------------------------------------------------------------------------------------------
// Usage

/** The help text; README and main.ts's first-start hint point here. */
export function usage(): string {
  return `Sanad operations: npm run sanad -- <command> [options]

Commands:
  create-user --username U --email E [options]
      Creates a confirmed account; prints its id, and for a patient the id of their new case.
      --password P         the password (visible in the process list and shell history:
                           prefer SANAD_PASSWORD, or leave both out to be asked without echo)
      --alias A            the name others see
      --locale ar|de|en    language of the web app and of mails (default ar)
      --time-zone Z        IANA time zone such as Asia/Baghdad (default UTC)
      --coordinator --therapist --supervisor --interviewer --supporter --counselor
      --patient --tester   account flags, any number; a patient also gets a case
      --assessor           a blinded outcome assessor (alone: no other flag; issue 30)
      --unconfirmed        leave the email address unconfirmed: the person confirms it by mail

  create-case [--patient USERNAME] [--title T]
      Creates a case (for that patient, if given) and prints its id.

  add-member --case CASE_ID --user USERNAME_OR_ID <role flags>
      Adds a person to a case, or replaces their roles there; prints the membership id.
      Role flags, at least one: --therapist --supervisor --interviewer --supporter
      --counselor --patient

  seed-demo [--force]
      Creates demo accounts for every role, with cases and care teams (password
      "${DEMO_PASSWORD}"). Running it again adds only what is missing. Demo accounts must
      never exist in production: it refuses when NODE_ENV=production unless --force.

  verify-audit
      Checks the hash chains of the case audit log, the access log and the account log
      (migration 0181): recomputes every row's hash from its columns and names the first
      broken link of each log (a changed, deleted or inserted row). Exit code 1 when any
      chain is broken. Read-only; safe while the server runs.

  verify-allocation [--seed SEED] [--commitment HASH]
      After unblinding: re-derives every treatment assignment from the revealed seed and the
      published parameters (issue 30), checks the commitment coordinators published at go-live
      and names each case whose arm differs, each changed ticket and each skipped one. Without
      --seed it uses the seed the coordinators revealed (refused before unblinding); give
      --commitment to check against the hash in the trial registry rather than the server's
      copy. Exit code 1 on any mismatch. Read-only.

  rebuild-case-inbox
      Recounts every case member's new messages and latest message, which the database
      otherwise keeps up to date as messages are sent and read (migration 0032). For after a
      bulk load with triggers switched off, or when in doubt; safe while the server runs.

  import-wording FILE
      Installs a trial's questionnaire wording (title, instructions, items, options) for one
      instrument and locale from a JSON file (format: docs/WORDING.md). The file is checked
      against the instrument first; with any problem nothing is stored. Replaces earlier texts
      of the same parts; the forms show the new wording on their next load.

  backup FOLDER
      Writes a backup into a new FOLDER: the database (embedded: a copy of its files, taken
      from the running server if one holds them; PostgreSQL: pg_dump plus the roles it needs),
      the generated signing secret, and every table's row count and checksum (manifest.json).

  restore FOLDER
      Restores a backup into an empty database: an empty DATA_DIR (embedded), or the empty
      database of DATABASE_URL (PostgreSQL; the roles are created when missing). Then verify.

  verify FOLDER
      Compares this database's row counts and checksums with the backup's; exit code 1 and the
      differences when they differ (docs/OPERATIONS.md "Backup and restore").

  help
      Shows this text.

The commands use the server's database: the embedded one in DATA_DIR (default ./data; stop the
server first, it admits one process at a time) or PostgreSQL at DATABASE_URL. Pending
migrations are applied first.`;
}

// ---------------------------------------------------------------------------------------------
// Parsing

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;
type OptionValues = Record<string, string | boolean | undefined>;

function booleanOptions(names: readonly string[]): OptionSpec {
  return Object.fromEntries(names.map((name) => [name, { type: 'boolean' as const }]));
}

/** parseArgs' own messages go on to explain '--' escaping; the first sentence is the useful part. */
function parseArgsMessage(error: Error): string {
  const [first = '', second = ''] = error.message.split('\n');
  const sentence = (second.startsWith('Did you forget') ? `${first} ${second}` : first).replace(/\. This command does not take positional arguments$/, '');
  return /[.?]$/.test(sentence) ? sentence : `${sentence}.`;
}

function isParseArgsError(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/** Strict parsing: a mistyped flag must stop the command, not be silently ignored. */
function parseOptions(command: string, args: readonly string[], options: OptionSpec): OptionValues {
  try {
    const { values } = parseArgs({ args: [...args], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    return values as OptionValues;
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(`${command}: ${parseArgsMessage(error)}`);
    throw error;
  }
}

function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function requiredOption(command: string, values: OptionValues, name: string): string {
  const value = stringOption(values, name);
  if (value === undefined) throw new UsageError(`${command} needs --${name}.`);
  return value;
}

function chosen<T extends string>(values: OptionValues, names: readonly T[]): T[] {
  return names.filter((name) => values[name] === true);
}

/** Checks what the admin layer would otherwise leave to a database constraint's terse error. */
function userDraftProblems(draft: UserDraft): string[] {
  const problems: string[] = [];
  if (draft.locale !== undefined && !(SUPPORTED_LOCALES as readonly string[]).includes(draft.locale)) {
    problems.push(`Unknown locale "${draft.locale}": use ${SUPPORTED_LOCALES.join(', ')}.`);
  }
  if (draft.timeZone !== undefined && !isTimeZone(draft.timeZone)) {
    problems.push(`Unknown time zone "${draft.timeZone}": use an IANA name such as Asia/Baghdad or UTC.`);
  }
  if (draft.alias !== undefined && ([...draft.alias].length < 1 || [...draft.alias].length > 80)) {
    problems.push('The alias needs 1 to 80 characters.');
  }
  return problems;
}

function parseCreateUser(args: readonly string[]): Command {
  const values = parseOptions('create-user', args, {
    username: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    alias: { type: 'string' },
    locale: { type: 'string' },
    'time-zone': { type: 'string' },
    unconfirmed: { type: 'boolean' },
    ...booleanOptions(ACCOUNT_FLAGS),
  });
  if (values.help) return { name: 'help' };
  const user: UserDraft = {
    username: requiredOption('create-user', values, 'username'),
    email: requiredOption('create-user', values, 'email'),
    password: stringOption(values, 'password'),
    flags: chosen<AccountFlag>(values, ACCOUNT_FLAGS),
    confirmed: values.unconfirmed !== true,
  };
  const alias = stringOption(values, 'alias');
  const locale = stringOption(values, 'locale');
  const timeZone = stringOption(values, 'time-zone');
  if (alias !== undefined) user.alias = alias;
  if (locale !== undefined) user.locale = locale as Locale;
  if (timeZone !== undefined) user.timeZone = timeZone;
  const problems = userDraftProblems(user);
  if (problems.length > 0) throw new AdminInputError(problems.join(' '));
  return { name: 'create-user', user };
}

function parseCreateCase(args: readonly string[]): Command {
  const values = parseOptions('create-case', args, { patient: { type: 'string' }, title: { type: 'string' } });
  if (values.help) return { name: 'help' };
  const title = stringOption(values, 'title');
  if (title !== undefined && ([...title].length < 1 || [...title].length > 200)) {
    throw new AdminInputError('The title needs 1 to 200 characters.');
  }
  return { name: 'create-case', patient: stringOption(values, 'patient'), title };
}

function parseAddMember(args: readonly string[]): Command {
  const values = parseOptions('add-member', args, { case: { type: 'string' }, user: { type: 'string' }, ...booleanOptions(CASE_ROLES) });
  if (values.help) return { name: 'help' };
  const caseId = requiredOption('add-member', values, 'case');
  const user = requiredOption('add-member', values, 'user');
  const roles = chosen<CaseRole>(values, CASE_ROLES);
  if (roles.length === 0) {
    throw new UsageError(`add-member needs at least one role flag: ${CASE_ROLES.map((r) => `--${r}`).join(', ')}.`);
  }
  return { name: 'add-member', caseId, user, roles };
}

function parseSeedDemo(args: readonly string[]): Command {
  const values = parseOptions('seed-demo', args, { force: { type: 'boolean' } });
  if (values.help) return { name: 'help' };
  return { name: 'seed-demo', force: values.force === true };
}

function parseImportWording(args: readonly string[]): Command {
  const parsed = parseArgs({ args: [...args], options: { help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (parsed.values.help) return { name: 'help' };
  if (parsed.positionals.length !== 1) throw new UsageError('import-wording needs exactly one FILE (a JSON wording file).');
  return { name: 'import-wording', file: parsed.positionals[0]! };
}

/** Turns the words after `npm run sanad --` into a command, or throws a UsageError. */
export function parseCommand(argv: readonly string[]): Command {
  const [name, ...args] = argv;
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { name: 'help' };
    case 'create-user':
      return parseCreateUser(args);
    case 'create-case':
      return parseCreateCase(args);
    case 'add-member':
      return parseAddMember(args);
    case 'seed-demo':
      return parseSeedDemo(args);
    case 'rebuild-case-inbox':
      if (parseOptions('rebuild-case-inbox', args, {}).help) return { name: 'help' };
      return { name: 'rebuild-case-inbox' };
    case 'import-wording':
      return parseImportWording(args);
    case 'verify-audit':
      if (parseOptions('verify-audit', args, {}).help) return { name: 'help' };
      return { name: 'verify-audit' };
    case 'verify-allocation': {
      const values = parseOptions('verify-allocation', args, { seed: { type: 'string' }, commitment: { type: 'string' } });
      if (values.help) return { name: 'help' };
      return { name: 'verify-allocation', seed: stringOption(values, 'seed'), commitment: stringOption(values, 'commitment') };
    }
    default:
      throw new UsageError(`Unknown command "${name}".`, true);
  }
}

// ---------------------------------------------------------------------------------------------
// Preparing: everything that needs the person at the keyboard, done before the database opens

/** Reads one line from the terminal with echo off; readline still handles backspace. */
function askHidden(prompt: string, input: NodeJS.ReadStream, prompts: NodeJS.WritableStream): Promise<string> {
  // The echo goes to a sink instead of the terminal, so nothing typed is shown.
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  prompts.write(prompt);
  const rl = readline.createInterface({ input, output: sink, terminal: true });
  return new Promise((resolve, reject) => {
    let answer: string | undefined;
    rl.once('line', (line) => {
      answer = line;
      rl.close();
    });
    // Raw mode turns Ctrl+C into a keypress; without this the prompt would just sit there.
    rl.once('SIGINT', () => rl.close());
    rl.once('close', () => {
      prompts.write('\n');
      if (answer === undefined) reject(new CliError('Cancelled: no password was entered.'));
      else resolve(answer);
    });
  });
}

/** Asks for a new password on the terminal, twice, because a typo cannot be seen. */
export async function promptPassword(input: NodeJS.ReadStream = process.stdin, prompts: NodeJS.WritableStream = process.stderr): Promise<string> {
  if (!input.isTTY) {
    throw new UsageError('No password given: pass --password, set SANAD_PASSWORD, or run the command in a terminal to be asked for one.');
  }
  const first = await askHidden('Password for the new account: ', input, prompts);
  const second = await askHidden('The same password again: ', input, prompts);
  if (first !== second) throw new CliError('The two passwords differ; nothing was created.');
  return first;
}

/** Refuses demo accounts in production, where their published password would be a way in. */
function guardDemoSeed(command: { force: boolean }, env: Env): void {
  if (env.NODE_ENV === 'production' && !command.force) {
    throw new CliError(
      'seed-demo refuses to run with NODE_ENV=production: demo accounts share a published password ' +
        'and must never exist in production. Add --force only if this system will never hold real data.',
    );
  }
}

/** Completes a command from the environment and the terminal: password, production guard. */
export async function prepareCommand(command: Command, io: PrepareIo = {}): Promise<Command> {
  const env = io.env ?? process.env;
  if (command.name === 'seed-demo') guardDemoSeed(command, env);
  if (command.name !== 'create-user' || command.user.password !== undefined) return command;
  const password = env.SANAD_PASSWORD || (await (io.readPassword ?? (() => promptPassword()))());
  return { ...command, user: { ...command.user, password } };
}

// ---------------------------------------------------------------------------------------------
// Running

async function runCreateUser(ctx: CommandContext, draft: UserDraft): Promise<void> {
  const { password } = draft;
  if (password === undefined) throw new UsageError('No password given.');
  const created = await createUser(ctx.db.pool, { ...draft, password });
  ctx.out(`user ${created.id}`);
  if (created.caseId) ctx.out(`case ${created.caseId}`);
}

async function runCreateCase(ctx: CommandContext, input: { patient?: string | undefined; title?: string | undefined }): Promise<void> {
  const caseId = await createCase(ctx.db.pool, {
    ...(input.patient !== undefined ? { patient: input.patient } : {}),
    ...(input.title !== undefined ? { title: input.title } : {}),
  });
  ctx.out(`case ${caseId}`);
}

async function runAddMember(ctx: CommandContext, input: { caseId: string; user: string; roles: CaseRole[] }): Promise<void> {
  try {
    const memberId = await addMember(ctx.db.pool, input.caseId, input.user, input.roles);
    ctx.out(`member ${memberId}`);
  } catch (error) {
    // The database allows one patient per case; say so instead of naming an index.
    if ((error as { code?: string; constraint?: string }).code === '23505' && (error as { constraint?: string }).constraint === 'case_members_one_patient_idx') {
      throw new AdminInputError(`Case ${input.caseId} has a patient already.`);
    }
    throw error;
  }
}

/** Pads columns for a terminal; the table is read by people, never parsed. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd());
}

function demoReport(seeded: SeededAccount[]): string[] {
  const team = DEMO_ACCOUNTS.filter((a) => a.caseRole).map((a) => a.username);
  return [
    `Demo accounts, all with the password "${DEMO_PASSWORD}":`,
    '',
    ...table([
      ['username', 'roles', 'case', ''],
      ...seeded.map((s) => [s.username, s.flags.join(', '), s.caseId ?? '', s.created ? 'created' : 'existed already']),
    ]),
    '',
    `${team.join(', ')} are members of every demo patient's case.`,
    '',
    'WARNING: demo accounts share a published password. They must never exist in production;',
    'seed them only on a laptop or a test system that will never hold real patient data.',
  ];
}

async function runSeedDemo(ctx: CommandContext): Promise<void> {
  const seeded = await seedDemo(ctx.db.pool);
  ctx.out(demoReport(seeded).join('\n'));
  if (!ctx.config) return;
  // The trial, messages, bookings and answers go through the app's own routes (no listening port).
  // Quiet: the seed's own requests are not news in the terminal.
  const sanad = await buildApp({ config: { ...ctx.config, workflowIntervalMs: 0, notificationIntervalMs: 0, logLevel: 'warn' }, db: ctx.db, serveWebApp: false });
  try {
    const done = await seedDemoActivity({ inject: (request) => sanad.app.inject(request as never), tick: () => sanad.workflow.tick() }, ctx.db.pool, seeded);
    if (done.length > 0) ctx.out(['', 'Demo activity:', ...done.map((line) => `  ${line}`)].join('\n'));
  } finally {
    await sanad.close();
  }
}

/** Recounts the kept message figures of every case member (app_hidden.rebuild_case_inbox, 0032). */
async function runRebuildCaseInbox(ctx: CommandContext): Promise<void> {
  const { rows } = await ctx.db.pool.query<{ kept: number }>('select app_hidden.rebuild_case_inbox() as kept');
  ctx.out(`case inbox rebuilt: ${rows[0]!.kept} memberships counted`);
}

/** Reads, checks and installs a wording file in one transaction: all of it or nothing. */
async function runImportWording(ctx: CommandContext, file: string): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read ${file} as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const checked = checkWordingFile(parsed, ctx.config?.locales ?? LOCALES);
  if (!checked.ok) throw new CliError(`${file}: nothing was installed.\n${checked.problems.map((p) => `  - ${p}`).join('\n')}`);
  const stored = await withOwner(ctx.db.pool, (sql) => installWording(sql, checked.install));
  ctx.out(`wording installed: ${checked.install.instrument} (${checked.install.locale}), ${stored} texts`);
}

/** Prints each log's verdict; a broken chain fails the command (exit code 1). */
async function runVerifyAudit(ctx: CommandContext): Promise<void> {
  const { ok, lines } = describeVerdicts(await verifyChains(ctx.db.pool));
  for (const line of lines) ctx.out(line);
  if (!ok) throw new CliError('The logs were tampered with: see the broken links above.');
}

/** Re-derives every allocation from the revealed seed (issue 30); a mismatch fails the command. */
async function runVerifyAllocation(ctx: CommandContext, given: { seed?: string | undefined; commitment?: string | undefined }): Promise<void> {
  const stored = await withOwner(ctx.db.pool, readStoredAllocation);
  if (!stored) throw new CliError('No allocation is configured: there is nothing to verify.');
  let result;
  try {
    result = verifyStored(stored, given);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  ctx.out(`allocation (${stored.parameters.method}): ${result.checked} assignments checked against the seed`);
  for (const problem of result.problems) ctx.out(`MISMATCH ${problem.message}`);
  if (!result.ok) throw new CliError(`The allocation does not match its seed and commitment: ${result.problems.length} problem(s) above.`);
  ctx.out('every assignment matches the committed sequence');
}

/** Runs a parsed and prepared command against an open, migrated database. */
export async function executeCommand(command: Command, ctx: CommandContext): Promise<void> {
  switch (command.name) {
    case 'help':
      ctx.out(usage());
      return;
    case 'create-user':
      return runCreateUser(ctx, command.user);
    case 'create-case':
      return runCreateCase(ctx, command);
    case 'add-member':
      return runAddMember(ctx, command);
    case 'seed-demo':
      return runSeedDemo(ctx);
    case 'rebuild-case-inbox':
      return runRebuildCaseInbox(ctx);
    case 'import-wording':
      return runImportWording(ctx, command.file);
    case 'verify-audit':
      return runVerifyAudit(ctx);
    case 'verify-allocation':
      return runVerifyAllocation(ctx, command);
  }
}

/** Parses, prepares and runs one command line: what the process does, minus opening the database. */
export async function runCommand(argv: readonly string[], ctx: CommandContext): Promise<void> {
  const command = await prepareCommand(parseCommand(argv), ctx);
  await executeCommand(command, ctx);
}

// ---------------------------------------------------------------------------------------------
// Failures

export interface FailureReport {
  exitCode: number;
  message: string;
}

/** A system error (ECONNREFUSED, EACCES) or a database one (SQLSTATE, such as 28P01 for a wrong password). */
function operationalCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (/^E[A-Z]+$/.test(code) || /^[0-9A-Z]{5}$/.test(code)) ? code : undefined;
}

/** The text and exit code for a failed command; a stack trace only where a bug is likely. */
export function describeFailure(error: unknown): FailureReport {
  if (error instanceof UsageError) {
    return { exitCode: 2, message: error.showUsage ? `${error.message}\n\n${usage()}` : `${error.message}\n${HELP_HINT}` };
  }
  if (error instanceof DataDirLockedError) {
    return { exitCode: 1, message: `${error.message}\nStop the server first, then run the command again.` };
  }
  if (error instanceof AdminInputError || error instanceof CliError || error instanceof MigrationError || error instanceof BackupError) {
    return { exitCode: 1, message: error.message };
  }
  // These come from the machine or the database server, not from a bug: the message is enough.
  const code = operationalCode(error);
  if (code) return { exitCode: 1, message: (error as Error).message || code };
  return { exitCode: 1, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
