/**
 * Writes db/migrations/0009-questionnaires.sql from the instrument definitions
 * (src/domain/instruments) through src/server/questionnaires/migration.ts: one table per
 * questionnaire collection, its checks, policies, grants and read view; and
 * db/migrations/0016-questionnaire-reads.sql through reads-migration.ts: the read views again,
 * cheaper, with the same rule; and db/migrations/0110-measurement-completion-planned-once.sql
 * through completion-migration.ts: the completion check planned once per connection.
 *
 *   npx tsx scripts/generate-questionnaire-sql.ts          write the file
 *   npx tsx scripts/generate-questionnaire-sql.ts --check  exit 1 when the file is stale
 *
 * The test src/server/questionnaires/migration.test.ts fails when a committed file and the
 * generator's output differ, so a definition change that the database must follow cannot
 * slip through unnoticed.
 *
 * ONCE 0009 IS RELEASED it must never change again: the migration runner refuses an applied
 * migration whose checksum changed. A later change to what this generator emits (a new
 * instrument, an item, a changed scale or option list, a new score column) then goes into a
 * NEW migration: freeze today's output (keep the function that produced 0009 unchanged, e.g.
 * as `questionnaireMigration0009`, so the staleness test keeps passing), and add a generator for
 * `NNNN-<name>.sql` that brings the tables from that state to the new one (`alter table … add
 * column`, `drop constraint … add constraint …`, new tables, `create or replace view`), with
 * its own staleness test. Never regenerate a released migration in place. The same holds for
 * 0016 once released; a new instrument also needs its read view in the form of 0016.
 */
import fs from 'node:fs';
import { MIGRATION_FILE, questionnaireMigration } from '../src/server/questionnaires/migration';
import { READS_MIGRATION_FILE, readsMigration } from '../src/server/questionnaires/reads-migration';
import { COMPLETION_MIGRATION_FILE, completionMigration } from '../src/server/questionnaires/completion-migration';

const FILES: readonly [string, () => string][] = [
  [MIGRATION_FILE, questionnaireMigration],
  [READS_MIGRATION_FILE, readsMigration],
  [COMPLETION_MIGRATION_FILE, completionMigration],
];

for (const [file, generate] of FILES) {
  const sql = generate();
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== sql) {
      console.error(`${file} is stale: run npx tsx scripts/generate-questionnaire-sql.ts`);
      process.exitCode = 1;
    } else {
      console.log(`${file} is up to date`);
    }
  } else {
    fs.writeFileSync(file, sql);
    console.log(`wrote ${file}`);
  }
}
