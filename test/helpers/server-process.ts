/**
 * Sanad as a real child process (issue 28): what only a process shows — that it stays up when
 * its database goes away, how it answers SIGTERM, two processes sharing one database. Runs
 * src/server/main.ts through tsx's loader (no wrapper process, so signals reach the server
 * itself), with the web build skipped; resolves once the server says it is listening.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once the process wrote a log line whose message starts with `message` (rejects if it exits first). */
  logged(message: string): Promise<void>;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code; SIGKILL after `ms` if it still runs. */
  stop(ms?: number): Promise<number | null>;
}

export const TEST_SERVER_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  PUBLIC_URL: 'http://sanad.test',
  HOST: '127.0.0.1',
  PORT: '0',
  SANAD_SKIP_WEB_BUILD: '1',
  JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
  AUTH_RATE_LIMIT_PER_MINUTE: '10000',
  RATE_LIMIT_PER_PERSON_PER_MINUTE: '0',
  RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
  LOCKOUT_MAX_ATTEMPTS_PER_ADDRESS: '10000',
  TOKEN_CACHE_SECONDS: '0',
  GRAPHILE_ENV: 'production',
};

export async function startServerProcess(env: Record<string, string>, options: { entry?: string; args?: string[] } = {}): Promise<ServerProcess> {
  const args = options.args ?? ['--import', 'tsx', options.entry ?? 'src/server/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...TEST_SERVER_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      // pino's line: {"level":30,…,"address":"http://127.0.0.1:PORT",…,"msg":"Sanad is listening"}
      const match = /"address":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"Sanad is listening"/.exec(text);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${text}`));
    });
  });
  return {
    url,
    child,
    output: () => text,
    logged: (message) =>
      new Promise<void>((resolve, reject) => {
        const seen = () => text.includes(`"msg":"${message}`);
        if (seen()) return resolve();
        const onData = () => {
          if (!seen()) return;
          child.stdout!.off('data', onData);
          resolve();
        };
        child.stdout!.on('data', onData);
        void exited.then(() => (seen() ? resolve() : reject(new Error(`the server exited without logging "${message}":\n${text}`))));
      }),
    exited,
    async stop(ms = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), ms);
      const code = await exited;
      clearTimeout(kill);
      return code;
    },
  };
}

/**
 * A migrated test database for server processes: `setup` runs on it first (accounts, …); the
 * embedded database is then closed, since only one process may open it.
 */
export async function serverDatabase(setup: (pool: import('pg').Pool) => Promise<void> = async () => undefined): Promise<{
  kind: 'pglite' | 'postgres';
  env: Record<string, string>;
  destroy(): Promise<void>;
}> {
  const { createTestDatabase } = await import('./databases');
  const { seedDefaultPages } = await import('../../src/server/content/pages');
  const t = await createTestDatabase();
  await seedDefaultPages(t.db.pool);
  await setup(t.db.pool);
  if (t.kind === 'pglite') {
    await t.db.close();
    const fs = await import('node:fs');
    return { kind: t.kind, env: { DATA_DIR: t.dataDir }, destroy: async () => fs.rmSync(t.dataDir, { recursive: true, force: true }) };
  }
  return { kind: t.kind, env: { DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl! }, destroy: () => t.destroy() };
}
