/**
 * Starts Sanad: opens the database (PGlite in DATA_DIR, or PostgreSQL with DATABASE_URL),
 * applies migrations, serves HTTP, and shuts down cleanly on SIGINT/SIGTERM.
 */
import './env-defaults';
import { loadConfig } from './config';
import { openDatabase, type Database } from './db/database';
import { DataDirLockedError } from './db/dir-lock';
import { migrate } from './db/migrate';
import { syncAuthenticatorPassword } from './db/authenticator';
import { buildApp, type SanadApp } from './app';
import { answerBackupRequests } from './ops/commands';
import { createLogger } from './logger';
import { seedDefaultPages } from './content/pages';
import { buildWeb, webBuildExists, webBuildIsStale } from './web/static';
import { COMPILED } from './paths';

async function countCoordinators(db: Database): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('select count(*) as n from app_public.users where is_coordinator_account');
  return rows[0]?.n ?? 0;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config);
  let db: Database;
  try {
    db = await openDatabase({
      databaseUrl: config.databaseUrl,
      authenticatorUrl: config.authenticatorUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
    });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const migrated = await migrate(db.pool);
  // The request pool logs in as the authenticator the migrations created (issue 34).
  if (config.databaseUrl && !config.authenticatorUrl) await syncAuthenticatorPassword(db.pool, config.databaseUrl);
  log.info({ database: db.kind, applied: migrated.applied }, 'database ready');

  const seeded = await seedDefaultPages(db.pool);
  if (seeded > 0) log.info({ pages: seeded }, 'default information pages added');
  // `npm start` on a fresh clone builds the web app once; in production a build must exist.
  // `npm run dev` serves the web app through Vite instead (SANAD_SKIP_WEB_BUILD). The compiled
  // server (`npm run start:prod`) never builds: it runs without Vite, so `npm run build` made both.
  if (!process.env.SANAD_SKIP_WEB_BUILD) {
    if (COMPILED && !webBuildExists()) {
      log.error('the web app is not built (dist/web): run `npm run build` before `npm run start:prod`');
      await db.close();
      process.exit(1);
    }
    if (!COMPILED && (config.env === 'production' ? !webBuildExists() : webBuildIsStale())) {
      log.info('building the web app (dist/web)…');
      await buildWeb();
    }
  }

  const sanad: SanadApp = await buildApp({ config, db, logger: log });
  // `npm run sanad -- backup` while this server holds the embedded database (ops/commands.ts).
  answerBackupRequests(db, config.dataDir, log);
  let stopping = false;
  /**
   * Issue 28: SIGTERM (an orchestrator, systemd, a deploy) first turns /readyz not-ready and
   * keeps serving for SHUTDOWN_DELAY_MS, so a load balancer stops sending requests and requests
   * already on their way are answered; then the server stops accepting, finishes running
   * requests and the workers' current runs within SHUTDOWN_GRACE_MS, closes the database and
   * exits 0. SIGINT (Ctrl+C at the console) skips the delay, and a second signal during the
   * delay ends it: the server goes on to finish its requests and stop.
   */
  let endDelay: (() => void) | undefined;
  const stop = async (signal: string) => {
    if (stopping) {
      if (endDelay) log.info({ signal }, 'second signal: ending the shutdown delay');
      endDelay?.();
      return;
    }
    stopping = true;
    sanad.drain();
    const delayMs = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    log.info({ signal, delayMs, graceMs: config.shutdownGraceMs }, 'shutting down: not ready, finishing running requests');
    const force = setTimeout(() => {
      log.error({ graceMs: config.shutdownGraceMs }, 'shutdown took longer than the grace period; closing the remaining connections');
      sanad.app.server.closeAllConnections();
      process.exit(1);
    }, delayMs + config.shutdownGraceMs);
    force.unref();
    try {
      if (delayMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          endDelay = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        endDelay = undefined;
      }
      log.info('closing: no new connections, finishing running requests');
      await sanad.close();
      await db.close();
      log.info('stopped cleanly');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const address = await sanad.app.listen({ port: config.port, host: config.host });
  log.info({ address, database: db.kind, maintenance: config.maintenance }, 'Sanad is listening');
  console.log(`\nSanad is running at ${config.publicUrl} (database: ${db.kind === 'pglite' ? `embedded, in ${config.dataDir}` : 'PostgreSQL'})`);
  if ((await countCoordinators(db)) === 0) {
    console.log(
      [
        '',
        'No coordinator account exists yet. To create the first one:',
        db.kind === 'pglite' ? '  1. stop this server (Ctrl+C): the embedded database admits one process at a time' : '',
        COMPILED ? '  node dist/server/cli.js create-user --username coordinator --email you@example.org --coordinator' : '  npm run sanad -- create-user --username coordinator --email you@example.org --coordinator',
        '  (it asks for a password, or reads it from SANAD_PASSWORD)',
        '',
      ]
        .filter(Boolean)
        .join('\n'),
    );
  }
}

main().catch((error: unknown) => {
  console.error('Sanad could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
