import { defineConfig } from 'vitest/config';

// Integration tests (*.int.test.ts) run once per database: always on the embedded PGlite, and
// on a PostgreSQL server too when TEST_DATABASE_URL is set (.ci/run sets it when one answers).
const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

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
    ],
  },
});
