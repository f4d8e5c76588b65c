/**
 * Issue 28, item 5: the production start. The two builds of `npm run build` (the web app, and
 * the server bundled by vite.server.config.ts) written into a fresh folder, then that compiled
 * server started with plain `node` — no tsx loader, no Vite — in production mode: it serves the
 * web app, the API and its probes, and never builds anything itself.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/admin/accounts';
import { apiClient } from '../helpers/app';
import { serverDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('the compiled server', () => {
  // Inside the checkout (the bundle imports packages from its node_modules), one folder per
  // run: the PGlite and PostgreSQL runs of this file may build at the same time.
  const out = fs.mkdtempSync(path.join(ROOT, 'dist-test-'));
  let database: Awaited<ReturnType<typeof serverDatabase>>;
  let server: ServerProcess;

  beforeAll(async () => {
    const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
    await run(process.execPath, [vite, 'build', '--outDir', path.join(out, 'web')], { cwd: ROOT });
    await run(process.execPath, [vite, 'build', '--config', 'vite.server.config.ts', '--outDir', path.join(out, 'server')], { cwd: ROOT });
    database = await serverDatabase(async (pool) => {
      await createUser(pool, { username: 'prod_patient', email: 'prod@example.org', password: 'correct horse battery', confirmed: true });
    });
    server = await startServerProcess(
      { ...database.env, NODE_ENV: 'production', SANAD_SKIP_WEB_BUILD: '' },
      { args: [path.join(out, 'server/main.js')] },
    );
  }, 300_000);

  afterAll(async () => {
    await server?.stop(10_000);
    await database?.destroy();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('is JavaScript that imports no TypeScript source', () => {
    const files = fs.readdirSync(path.join(out, 'server')).filter((f) => f.endsWith('.js'));
    expect(files).toContain('main.js');
    expect(files).toContain('cli.js');
    for (const file of files) expect(fs.readFileSync(path.join(out, 'server', file), 'utf8')).not.toMatch(/from ["'][^"']*\.ts["']|["']tsx["']/);
  });

  it('runs under plain node and serves the web app, the API and the probes', async () => {
    expect(server.child.spawnargs).toEqual([process.execPath, path.join(out, 'server/main.js')]);
    const api = apiClient(server.url);
    expect((await api('GET', '/healthz')).status).toBe(200);
    expect((await api('GET', '/readyz')).status).toBe(200);

    const page = await fetch(`${server.url}/some/screen`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toBe(fs.readFileSync(path.join(out, 'web/index.html'), 'utf8'));
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${server.url}${script}`)).status).toBe(200);

    const signIn = await api('POST', '/api/auth/tokens', { body: { username: 'prod_patient', password: 'correct horse battery' } });
    expect(signIn.status).toBe(201);
    const me = await api('GET', '/api/auth/users/me', { token: signIn.body.encoded as string });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('prod_patient');
    expect(server.output()).not.toContain('building the web app');
  });
});
