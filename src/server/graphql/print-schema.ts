/**
 * Writes schema.graphql from a freshly migrated temporary database, so every change to the
 * SQL shows its effect on the API in review. Run: npm run schema:graphql
 */
import '../env-defaults';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/database';
import { migrate } from '../db/migrate';
import { schemaSdl, SCHEMA_FILE } from './schema-sdl';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-schema-'));
const db = await openDatabase({ dataDir });
try {
  await migrate(db.pool);
  fs.writeFileSync(SCHEMA_FILE, await schemaSdl(db.pool));
  console.log(`wrote ${SCHEMA_FILE}`);
} finally {
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
