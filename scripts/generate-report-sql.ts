/**
 * Writes db/migrations/0040-interview-reports.sql from the interview report definition
 * (src/domain/interview-report) through src/server/reports/migration.ts.
 *
 *   npx tsx scripts/generate-report-sql.ts          write the file
 *   npx tsx scripts/generate-report-sql.ts --check  exit 1 when the file is stale
 *
 * ONCE 0040 IS RELEASED it must never change again (the migration runner refuses a changed
 * checksum): freeze the generator's output as it is and put a new field into a new migration.
 */
import fs from 'node:fs';
import { REPORT_MIGRATION_FILE, reportMigration } from '../src/server/reports/migration';

const sql = reportMigration();
if (process.argv.includes('--check')) {
  const committed = fs.existsSync(REPORT_MIGRATION_FILE) ? fs.readFileSync(REPORT_MIGRATION_FILE, 'utf8') : '';
  if (committed !== sql) {
    console.error(`${REPORT_MIGRATION_FILE} is stale: run npx tsx scripts/generate-report-sql.ts`);
    process.exitCode = 1;
  } else console.log(`${REPORT_MIGRATION_FILE} is up to date`);
} else {
  fs.writeFileSync(REPORT_MIGRATION_FILE, sql);
  console.log(`wrote ${REPORT_MIGRATION_FILE}`);
}
