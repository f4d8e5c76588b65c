/**
 * The operations CLI, `npm run sanad -- <command>` (see usage() in commands.ts): opens the
 * server's database, applies pending migrations, runs one command, closes the database. Exit
 * codes: 0 done, 1 the command failed, 2 the command line was not understood.
 */
import { loadConfig, type Config } from '../config';
import { openDatabase } from '../db/database';
import { migrate } from '../db/migrate';
import { CliError, describeFailure, executeCommand, parseCommand, prepareCommand, usage } from './commands';

/** A bad setting is the operator's to fix; its message says which and how. */
function loadConfigOrFail(): Config {
  try {
    return loadConfig();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseCommand(argv);
  if (parsed.name === 'help') {
    printLine(usage());
    return 0;
  }
  const config = loadConfigOrFail();
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const failure = describeFailure(error);
    process.stderr.write(`${failure.message}\n`);
    process.exitCode = failure.exitCode;
  },
);
