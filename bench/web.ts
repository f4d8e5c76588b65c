/**
 * `npm run bench:web` (also run by `npm run bench`): how much JavaScript a phone downloads for
 * /login and for the heaviest route (gzipped, as sent), and how long /login takes until it can
 * be used, in headless chromium. Figures are printed, never asserted. Target: /login ≤ 150 KB.
 */
import './production-mode';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/server/app';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/database';
import { migrate } from '../src/server/db/migrate';
import { seedDefaultPages } from '../src/server/content/pages';
import { buildWeb, WEB_DIST, webBuildIsStale } from '../src/server/web/static';
import { ROUTES } from '../src/domain/routes';
import { launchBrowser } from '../test/helpers/browser';
import { describeMachine } from './report';
import { describeCommand, describeDatabase, figuresTable, writeResults } from './results-file';

const LOGIN_TARGET_KB = 150;

function gzipSize(file: string): number {
  return zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
}

/** The JavaScript files a page loaded, by their path under dist/web. */
async function scriptsFor(url: string, browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<{ files: string[]; interactiveMs: number }> {
  const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
  const page = await context.newPage();
  const files = new Set<string>();
  page.on('response', (response) => {
    const pathname = new URL(response.url()).pathname;
    if (pathname.endsWith('.js')) files.add(pathname);
  });
  await page.goto(url);
  await page.locator('h1').first().waitFor();
  const interactiveMs = await page.evaluate(() => performance.now());
  // Then let late chunks arrive, so the byte count includes everything the route loads.
  await page.waitForLoadState('networkidle');
  await context.close();
  return { files: [...files], interactiveMs };
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

async function main() {
  if (webBuildIsStale()) await buildWeb();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-bench-web-'));
  const db = await openDatabase({ dataDir });
  await migrate(db.pool);
  await seedDefaultPages(db.pool);
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(48) });
  const sanad = await buildApp({ config, db });
  await sanad.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(sanad.app.server.address() as AddressInfo).port}`;
  const browser = await launchBrowser();
  try {
    const sizeOf = (files: string[]) => files.reduce((sum, f) => sum + gzipSize(path.join(WEB_DIST, f)), 0);

    // /login, cold, five times: the median time until its heading shows and the network is idle.
    const times: number[] = [];
    let loginFiles: string[] = [];
    for (let i = 0; i < 5; i++) {
      const run = await scriptsFor(`${base}/login`, browser);
      times.push(run.interactiveMs);
      loginFiles = run.files;
    }
    times.sort((a, b) => a - b);
    const loginBytes = sizeOf(loginFiles);

    let largest = { path: '', bytes: 0 };
    for (const route of ROUTES.filter((r) => r.rules.length === 0)) {
      const run = await scriptsFor(base + route.path, browser);
      const bytes = sizeOf(run.files);
      if (bytes > largest.bytes) largest = { path: route.path, bytes };
    }

    const figures: [string, string][] = [
      ['/login JavaScript', `${kb(loginBytes)} KB gzipped in ${loginFiles.length} files (target ≤ ${LOGIN_TARGET_KB} KB: ${loginBytes / 1024 <= LOGIN_TARGET_KB ? 'met' : 'MISSED'})`],
      ['largest open route', `${largest.path}, ${kb(largest.bytes)} KB gzipped`],
      ['/login usable after', `median ${times[2]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[4]!.toFixed(0)}) on localhost`],
    ];
    const title = 'Web app (open routes, 360 px, headless chromium, gzip -9 of the loaded JavaScript)';
    console.log(`\n${title}`);
    for (const [name, value] of figures) console.log(`  ${`${name}:`.padEnd(26)}${value}`);
    writeResults({
      bench: 'web',
      title: `${title} (bench/web.ts)`,
      command: describeCommand(process.argv, process.env),
      machine: describeMachine(),
      date: new Date(),
      databases: [await describeDatabase('pglite', db.pool, 'the shipped information pages')],
      tables: [figuresTable(figures)],
    });
  } finally {
    await browser.close();
    await sanad.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
