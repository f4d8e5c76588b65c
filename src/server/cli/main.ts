/**
 * The operations CLI, `npm run sanad -- <command>` (see usage() in commands.ts): opens the
 * server's database, applies pending migrations, runs one command, closes the database. Exit
 * codes: 0 done, 1 the command failed, 2 the command line was not understood.
 *
 * backup, restore and verify (ops/commands.ts) open the database their own way and load only
 * what they need: the account commands import the whole server (seed-demo builds the app),
 * which takes seconds to load that a restore in an emergency should not wait for.
 */
import '../env-defaults';
import { loadConfig, type Config } from '../config';
import { isOpsCommand, runOpsCommand } from '../ops/commands';
import { BackupError } from '../ops/backup';

/** A bad setting is the operator's to fix; its message says which and how. */
function loadConfigOrFail(fail: (message: string) => Error): Config {
  try {
    return loadConfig();
  } catch (error) {
    throw fail((error as Error).message);
  }
}

function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  const { CliError, executeCommand, parseCommand, prepareCommand, usage } = await import('./commands');
  const { openDatabase } = await import('../db/database');
  const { migrate } = await import('../db/migrate');
  const parsed = parseCommand(argv);
  if (parsed.name === 'help') {
    printLine(usage());
    return 0;
  }
  const config = loadConfigOrFail((message) => new CliError(message));
  // Ask for the password before opening: the embedded database stays locked while it is open.
  const command = await prepareCommand(parsed, { env: process.env });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    const migrated = await migrate(db.pool);
    if (migrated.applied.length > 0) process.stderr.write(`Applied migrations: ${migrated.applied.join(', ')}\n`);
    await executeCommand(command, { db, config, out: printLine });
  } finally {
    await db.close();
  }
  return 0;
}

/** backup, restore, verify: a failure they explain is printed without a stack trace. */
async function ops(argv: readonly string[]): Promise<number> {
  const name = argv[0]!;
  if (!isOpsCommand(name)) throw new Error(`not an operations command: ${name}`);
  return runOpsCommand(name, argv.slice(1), loadConfigOrFail((message) => new BackupError(message)), printLine);
}

const argv = process.argv.slice(2);
(isOpsCommand(argv[0]) ? ops(argv) : main(argv)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const { describeFailure } = await import('./commands');
    const failure = describeFailure(error);
    process.stderr.write(`${failure.message}\n`);
    process.exitCode = failure.exitCode;
  },
);
