/**
 * Every table whose changes reach a case log (a _900_audit trigger in a migration, the
 * worksheets, the questionnaires) is named in ar, de and en, never by its table name.
 */
import fs from 'node:fs';
import path from 'node:path';
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { WORKSHEETS } from '../../../domain/worksheets';
import ar from '../../i18n/ar.json';
import de from '../../i18n/de.json';
import en from '../../i18n/en.json';
import { auditTableName } from './audit-table-name';

function auditedTables(): string[] {
  const dir = path.resolve(__dirname, '../../../../db/migrations');
  const names = new Set<string>(Object.keys(WORKSHEETS));
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const sql = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of sql.matchAll(/_900_audit after [a-z ]+ on app_[a-z]+\.([a-z0-9_]+)/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

describe('case log record names', () => {
  for (const [locale, catalog] of [['ar', ar], ['de', de], ['en', en]] as const) {
    it(`names every audited table in ${locale}`, async () => {
      const i18n = i18next.createInstance();
      await i18n.init({ lng: locale, resources: { [locale]: { translation: catalog } }, interpolation: { escapeValue: false } });
      const tables = auditedTables();
      expect(tables.length).toBeGreaterThan(30);
      const other = i18n.t('careTeam.tables.other');
      const unnamed = tables.filter((table) => {
        const name = auditTableName(i18n.t, table, locale);
        return name === other || name === table || name.includes('_');
      });
      expect(unnamed).toEqual([]);
    });
  }
});
