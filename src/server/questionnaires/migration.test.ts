import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INSTRUMENT_CODES, INSTRUMENTS } from '../../domain/instruments';
import { ident, MIGRATION_FILE, questionnaireMigration } from './migration';
import { questionnaireColumns, SCORE_COLUMNS } from './columns';
import { READS_MIGRATION_FILE, readsMigration } from './reads-migration';
import { COMPLETION_MIGRATION_FILE, completionMigration } from './completion-migration';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the questionnaire migration', () => {
  it(`${MIGRATION_FILE} is what the generator writes (run npx tsx scripts/generate-questionnaire-sql.ts; see its header once released)`, () => {
    expect(fs.readFileSync(path.join(ROOT, MIGRATION_FILE), 'utf8')).toBe(questionnaireMigration());
  });

  it('has a table, a read view and policies for every collection, and never grants a score column', () => {
    const sql = questionnaireMigration();
    for (const code of INSTRUMENT_CODES) {
      expect(sql).toContain(`create table app_public.${code} (`);
      expect(sql).toContain(`create view app_public.${code}_records with (security_barrier) as`);
      expect(sql).toContain(`alter table app_public.${code} enable row level security;`);
    }
    const grants = sql.match(/grant (select|insert|update) \([^)]*\)/g) ?? [];
    expect(grants.length).toBe(3 * INSTRUMENT_CODES.length);
    for (const grant of grants) for (const column of Object.keys(SCORE_COLUMNS)) expect(grant).not.toMatch(new RegExp(`\\b${column}\\b`));
  });

  it('copies each scale into a check', () => {
    const sql = questionnaireMigration();
    expect(sql).toContain('item9 integer constraint item9_on_scale check (item9 between 0 and 3)');
    expect(sql).toContain("item16 text constraint item16_on_scale check (item16 in ('0', '1a', '1b', '2a', '2b', '3a', '3b'))");
    expect(sql).toMatch(/item1 text\[\] constraint item1_on_scale check \(app_hidden\.is_selection\(item1, array\[.*'not_applicable'\]::text\[\], array\['not_applicable'\]::text\[\]\)\)/);
    expect(sql).toContain('comment text constraint comment_on_scale check (char_length(comment) <= 5000)');
    expect(sql).toContain('email boolean,');
  });

  it('quotes only the names PostgreSQL reserves', () => {
    expect(ident('item1')).toBe('item1');
    expect(ident('order')).toBe('"order"');
    expect(ident('Mixed')).toBe('"Mixed"');
  });

  it('shows the same columns as the REST collections', () => {
    const sql = questionnaireMigration();
    for (const code of INSTRUMENT_CODES) {
      const view = sql.slice(sql.indexOf(`create view app_public.${code}_records`), sql.indexOf(`comment on view app_public.${code}_records`));
      for (const column of Object.keys(questionnaireColumns(INSTRUMENTS[code]))) expect(view).toMatch(new RegExp(`\\b${column}\\b`));
    }
  });
});

describe('the questionnaire reads migration', () => {
  it(`${READS_MIGRATION_FILE} is what the generator writes (run npx tsx scripts/generate-questionnaire-sql.ts)`, () => {
    expect(fs.readFileSync(path.join(ROOT, READS_MIGRATION_FILE), 'utf8')).toBe(readsMigration());
  });

  it("replaces every read view with 0009's columns, in 0009's order", () => {
    const before = questionnaireMigration();
    const after = readsMigration();
    const columnsOf = (sql: string, code: string, opening: string) => {
      const start = sql.indexOf(`${opening} app_public.${code}_records with (security_barrier) as`);
      const list = sql.slice(sql.indexOf('select', start) + 'select'.length, sql.indexOf('\n  from ', start));
      return [...list.matchAll(/(?:r\.(\w+|"[^"]+")\s*(?:,|$))|(?:as (\w+),)/gm)].map((m) => m[1] ?? m[2]);
    };
    for (const code of INSTRUMENT_CODES) {
      const columns = columnsOf(after, code, 'create or replace view');
      expect(columns.length).toBe(Object.keys(questionnaireColumns(INSTRUMENTS[code])).length);
      expect(columns).toEqual(columnsOf(before, code, 'create view'));
    }
  });
});

describe('the measurement completion migration', () => {
  it(`${COMPLETION_MIGRATION_FILE} is what the generator writes (run npx tsx scripts/generate-questionnaire-sql.ts)`, () => {
    expect(fs.readFileSync(path.join(ROOT, COMPLETION_MIGRATION_FILE), 'utf8')).toBe(completionMigration());
  });

  it('checks every collection in its own table, chosen by its own name', () => {
    const sql = completionMigration();
    for (const code of INSTRUMENT_CODES) expect(sql).toContain(`when '${code}' then\n        done := exists (select 1 from app_public.${code} r\n`);
    expect(sql.slice(sql.indexOf('create or replace function'))).not.toMatch(/\bexecute\b/);
  });
});
