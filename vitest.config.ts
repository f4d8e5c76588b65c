import fs from 'node:fs';
import { defineConfig } from 'vitest/config';

// Integration tests (*.int.test.ts) run once per database: always on the embedded PGlite, and
// on a PostgreSQL server too when TEST_DATABASE_URL is set (.ci/run sets it when one answers).
const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

// End-to-end tests need Debian's chromium (.ci/run installs it). Without it a developer's
// `npm test` says so and skips them; in CI a missing browser is a failure.
const chromium = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', process.env.CHROMIUM_PATH].some((p) => p && fs.existsSync(p));
if (!chromium && !process.env.CI) {
  console.warn('\n[sanad] chromium not found: end-to-end tests are skipped. Install it with `apt-get install chromium`.\n');
}
const e2e = chromium || Boolean(process.env.CI);

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.unit.test.ts'],
        },
      },
      ...databases.map((database) => ({
        test: {
          name: database,
          include: ['test/**/*.int.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          env: { SANAD_TEST_DB: database, NODE_ENV: 'test', GRAPHILE_ENV: 'production' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      })),
      ...(e2e
        ? [
            {
              test: {
                name: 'e2e',
                include: ['test/e2e/**/*.e2e.ts'],
                globalSetup: ['test/helpers/e2e-setup.ts'],
                env: { SANAD_TEST_DB: 'pglite', NODE_ENV: 'test', GRAPHILE_ENV: 'production' },
                // Browsers are heavy on two cores: one file at a time.
                fileParallelism: false,
                testTimeout: 60_000,
                hookTimeout: 120_000,
              },
            },
          ]
        : []),
    ],
  },
});
