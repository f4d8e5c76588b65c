/**
 * Writes db/schema.sql from a freshly migrated temporary PGlite database (schema-dump.ts), so a
 * reader finds the current schema in one file and review shows what a migration changed.
 * Run: npm run schema:sql
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './database';
import { migrate } from './migrate';
import { dumpSchema, SCHEMA_SQL_FILE } from './schema-dump';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-schema-sql-'));
const db = await openDatabase({ dataDir });
try {
  await migrate(db.pool);
  fs.writeFileSync(SCHEMA_SQL_FILE, await dumpSchema(db.pool));
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_SQL_FILE)}`);
} finally {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
