/**
 * Platform behaviour around the API: health probes, maintenance mode, security headers,
 * rate limits, the mail outbox, the single-process lock on the data directory and the
 * committed GraphQL schema.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, pgliteDirectory } from '../../src/server/db/database';
import { DataDirLockedError } from '../../src/server/db/dir-lock';
import { createMailer, outboxDirectory } from '../../src/server/mail/mailer';
import { MAIL_KINDS, renderMail } from '../../src/server/mail/templates';
import { createLogger } from '../../src/server/logger';
import { schemaSdl, SCHEMA_FILE } from '../../src/server/graphql/schema-sdl';
import { SUPPORTED_LOCALES } from '../../src/server/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { pgliteTemplateDir, testDatabaseKind } from '../helpers/databases';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('health', () => {
  it('healthz says the process is up; readyz that the database is migrated', async () => {
    expect((await t.api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.api('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', database: testDatabaseKind() });
  });
});

describe('security headers and errors', () => {
  it('sends a content security policy and the usual hardening headers', async () => {
    const response = await t.api('GET', '/healthz');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    // PUBLIC_URL is http here: no HSTS and no upgrade of requests (issue 28, item 7; the https
    // case in src/server/http/plain-http.test.ts).
    expect(response.headers.get('strict-transport-security')).toBeNull();
    expect(response.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
  });

  it('answers an unknown API path with a JSON 404', async () => {
    const response = await t.api('GET', '/api/no-such-thing');
    expect(response.status).toBe(404);
    // /api/<name> is the collections' namespace: PostgREST's answer for an unknown table.
    expect(response.body.code).toBe('PGRST205');
    const deeper = await t.api('GET', '/api/no/such/thing');
    expect(deeper.status).toBe(404);
    expect(deeper.body.error).toBe('not_found');
  });

  it('refuses a body that is not JSON', async () => {
    const response = await t.api('POST', '/api/auth/tokens', { rawBody: 'username=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(415);
    expect(response.body.message).toMatch(/application\/json/);
  });
});

describe('maintenance mode', () => {
  it('answers every API call with 503 and a JSON body that says so, while health stays up', async () => {
    const m = await startTestApp({ MAINTENANCE: '1' });
    try {
      const me = await m.api('GET', '/api/auth/users/me');
      expect(me.status).toBe(503);
      expect(me.body).toMatchObject({ error: 'maintenance', maintenance: true });
      const gql = await m.api('POST', '/api/graphql', { body: { query: '{ __typename }' } });
      expect(gql.status).toBe(503);
      expect((await m.api('GET', '/healthz')).status).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('is off by default', async () => {
    expect((await t.api('GET', '/api/status')).body.maintenance).toBe(false);
  });
});

describe('rate limits', () => {
  it('limits the account routes per IP with a clear 429', async () => {
    const limited = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      let last: { body: { error: string; message: string } } | undefined;
      for (let i = 0; i < 5; i++) {
        last = await limited.api('POST', '/api/auth/tokens', { body: { username: 'x', password: 'y' } });
        statuses.push((last as unknown as { status: number }).status);
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(last?.body.error).toBe('rate_limited');
      expect(last?.body.message).toMatch(/Too many requests/);
    } finally {
      await limited.close();
    }
  });
});

describe('mail', () => {
  it('has every template in every locale, and none leaks an empty placeholder', () => {
    for (const kind of MAIL_KINDS) {
      for (const locale of SUPPORTED_LOCALES) {
        const mail = renderMail(kind, locale, { username: 'amal', link: 'https://x.test/l?token=t', newEmail: 'n@x.test' });
        expect(mail.subject.length).toBeGreaterThan(5);
        expect(mail.text).not.toMatch(/undefined|\$\{/);
      }
    }
  });

  it('without SMTP_URL writes each mail to DATA_DIR/outbox as .eml', async () => {
    const dataDir = fs.mkdtempSync(path.join(t.database.dataDir, 'outbox-test-'));
    const mailer = createMailer({ smtpUrl: undefined, mailFrom: 'Sanad <no-reply@sanad.test>', dataDir }, createLogger({ logLevel: 'silent' }));
    const sent = await mailer.send({ to: 'amal@example.org', kind: 'confirm_registration', locale: 'de', params: { username: 'amal', link: 'http://x/confirm-registration?token=abc' } });
    expect(sent).toBe(true);
    const files = fs.readdirSync(outboxDirectory(dataDir));
    expect(files).toHaveLength(1);
    const eml = fs.readFileSync(path.join(outboxDirectory(dataDir), files[0]!), 'utf8');
    expect(eml).toContain('To: amal@example.org');
    expect(eml).toContain('Content-Language: de');
    mailer.close();
  });
});

describe('the embedded database directory', () => {
  it('refuses a second opener in the same process', async () => {
    if (testDatabaseKind() !== 'pglite') return;
    await expect(openDatabase({ dataDir: t.database.dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
  });

  it('makes a second server process exit with a clear message', async () => {
    if (testDatabaseKind() !== 'pglite') return;
    const child = spawn(path.resolve('node_modules/.bin/tsx'), ['src/server/main.ts'], {
      env: { ...process.env, DATA_DIR: t.database.dataDir, PORT: '0', DATABASE_URL: '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/already in use by another Sanad process/);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM finishes, closes the database cleanly, releases the lock and exits 0', async () => {
    if (testDatabaseKind() !== 'pglite') return;
    const dataDir = fs.mkdtempSync(path.join(t.database.dataDir, 'shutdown-'));
    fs.cpSync(pgliteDirectory(pgliteTemplateDir()), pgliteDirectory(dataDir), { recursive: true });
    const child = spawn(path.resolve('node_modules/.bin/tsx'), ['src/server/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', LOG_LEVEL: 'info', SANAD_SKIP_WEB_BUILD: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 30_000;
    while (!/Sanad is listening/.test(output)) {
      if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.existsSync(path.join(dataDir, 'sanad.lock'))).toBe(true);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(output).toMatch(/stopped cleanly/);
    expect(fs.existsSync(path.join(dataDir, 'sanad.lock'))).toBe(false);
    // The directory opens again at once: nothing left half-closed.
    const reopened = await openDatabase({ dataDir });
    const { rows } = await reopened.pool.query('select count(*) as n from app_migrations.migrations');
    expect(rows[0].n).toBeGreaterThan(0);
    await reopened.close();
  });
});

describe('GraphQL contract', () => {
  it('schema.graphql is up to date (run `npm run schema:graphql` after changing the SQL)', async () => {
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    expect(await schemaSdl(t.database.db.pool)).toBe(committed);
  });

  it('GraphiQL is served outside production only', async () => {
    const response = await fetch(`${t.url}/api/graphiql`);
    expect(response.status).toBe(200);
    const production = await startTestApp({ NODE_ENV: 'production' });
    try {
      expect((await fetch(`${production.url}/api/graphiql`)).status).toBe(404);
    } finally {
      await production.close();
    }
  });
});
