import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DERIVED_FIELDS, INPUT_FIELDS, REPORT_FIELDS } from '../../domain/interview-report';
import { REPORT_MIGRATION_FILE, reportMigration } from './migration';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the interview report migration', () => {
  it(`${REPORT_MIGRATION_FILE} is what the generator writes (npx tsx scripts/generate-report-sql.ts)`, () => {
    expect(fs.readFileSync(path.join(ROOT, REPORT_MIGRATION_FILE), 'utf8')).toBe(reportMigration());
  });

  it('has a column per field and never grants a derived column', () => {
    const sql = reportMigration();
    for (const field of REPORT_FIELDS) expect(sql).toMatch(new RegExp(`\\n  ${field.id} (boolean|integer|text|date|text\\[\\])`));
    const grants = sql.match(/grant (insert|update) \([^)]*\)\s+on app_public.interview_reports/g) ?? [];
    expect(grants).toHaveLength(2);
    for (const grant of grants) {
      for (const field of DERIVED_FIELDS) expect(grant).not.toMatch(new RegExp(`\\b${field.id}\\b`));
      for (const field of INPUT_FIELDS) expect(grant).toMatch(new RegExp(`\\b${field.id}\\b`));
      for (const column of ['state', 'finalized_at', 'finalized_by', 'trial_outcome', 'case_id', 'interviewer_id']) expect(grant).not.toMatch(new RegExp(`\\b${column}\\b`));
    }
  });
});
