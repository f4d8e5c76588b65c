/**
 * Issue 27 item 7, the catalog walk: every refusal the migrated database can give — each check,
 * unique and exclusion constraint (pg_constraint), each row-level-security policy, and each
 * `raise exception` in the body of a PL/pgSQL function or trigger (pg_proc) — maps through the
 * one mapping (src/domain/refusals.ts) to a 4xx code with a translation in ar, de and en. A new
 * constraint or rule without a translated message fails here, on PGlite and on PostgreSQL.
 */
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_DATABASE_TEXT, refusalCodeForConstraint, refusalForDatabaseError, refusalKeys, ruleCode } from '../../src/domain/refusals';
import { maskError } from '../../src/server/graphql/preset';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';
import { raisesIn, sampleMessage, type RaiseStatement } from '../helpers/sql-raises';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 120_000);
afterAll(() => database?.destroy());

const query = async <T>(text: string) => (await database.db.pool.query(text)).rows as T[];

const CATALOGS = { ar, de, en } as const;
/** The locales in which the web app has no text for a refusal code (empty: translated everywhere). */
function untranslated(code: string): string[] {
  return Object.entries(CATALOGS)
    .filter(([, catalog]) => {
      const c = catalog as unknown as Record<string, Record<string, string> | undefined>;
      return !refusalKeys(code).some((key) => {
        const [ns, name] = key.split('.') as [string, string];
        return typeof c[ns]?.[name] === 'string' && c[ns]![name]!.trim() !== '';
      });
    })
    .map(([locale]) => locale);
}

async function everyRaise(): Promise<RaiseStatement[]> {
  const functions = await query<{ fn: string; body: string }>(
    `select n.nspname || '.' || p.proname as fn, p.prosrc as body
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
      where n.nspname in ('app_public', 'app_hidden', 'app_private') and l.lanname = 'plpgsql'`,
  );
  return functions.flatMap((f) => raisesIn(f.fn, f.body));
}

/**
 * A hint computed at run time names its possible codes elsewhere: the function whose literals
 * they are. `refuse_by_stage` raises what `stage_refusal` returns.
 */
const COMPUTED_HINTS: Record<string, { from: string; pattern: RegExp }> = {
  'app_hidden.refuse_by_stage': { from: 'stage_refusal', pattern: /return\s+'([A-Z_]+)'/g },
};

async function computedHintCodes(fn: string): Promise<string[]> {
  const source = COMPUTED_HINTS[fn];
  if (!source) return [];
  const [row] = await query<{ body: string }>(`select prosrc as body from pg_proc where proname = '${source.from}'`);
  return [...new Set([...(row?.body ?? '').matchAll(source.pattern)].map((m) => m[1]!))];
}

describe('every refusal of the database has a translated message (catalog walk)', () => {
  it('finds the rules of the migrated database', async () => {
    const raises = await everyRaise();
    expect(raises.length).toBeGreaterThan(200);
    // the walker reads what it should: one known rule of each form
    expect(raises).toContainEqual(expect.objectContaining({ fn: 'app_public.send_out_of_arm_worksheet', errcode: '42501', hint: 'NOT_CASE_THERAPIST' }));
    expect(raises).toContainEqual(expect.objectContaining({ fn: 'app_hidden.refuse_by_stage', hint: '{refusal}' }));
    expect(raises).toContainEqual(expect.objectContaining({ fn: 'app_hidden.tg_audit_log_append_only', errcode: '42501', hint: undefined }));
  });

  it('each raise exception maps to a 4xx code translated in ar, de and en, and keeps no database text', async () => {
    const problems: string[] = [];
    for (const raise of await everyRaise()) {
      const hints = raise.hint?.startsWith('{') ? await computedHintCodes(raise.fn) : [raise.hint];
      if (hints.length === 0) problems.push(`${raise.fn}: a computed hint whose codes this test cannot list (add it to COMPUTED_HINTS): ${raise.text}`);
      for (const hint of hints) {
        const message = raise.message === undefined ? 'A rule of the trial.' : sampleMessage(raise.message);
        const refusal = refusalForDatabaseError({ code: raise.errcode, hint, message });
        const where = `${raise.fn} (${raise.errcode}${hint ? `, ${hint}` : ''})`;
        if (!refusal) {
          problems.push(`${where}: no refusal (would be a 500): ${raise.text}`);
          continue;
        }
        if (refusal.status < 400 || refusal.status >= 500) problems.push(`${where}: status ${refusal.status}`);
        // The generic "This change is not allowed." says nothing a person can act on.
        if (refusal.code === 'rule_refused') problems.push(`${where}: no code of its own; give it a hint = '<code>': ${raise.text}`);
        if (hint && refusal.code !== ruleCode(hint)) problems.push(`${where}: hint not kept (the errcode has no status for rules)`);
        const missing = untranslated(refusal.code);
        if (missing.length > 0) problems.push(`${where}: code ${refusal.code} has no text in ${missing.join(', ')}`);
        if (RAW_DATABASE_TEXT.test(refusal.message)) problems.push(`${where}: its sentence reads like database text: ${refusal.message}`);
        // GraphQL answers through its own mask: the same refusal, never "An error occurred".
        const original = Object.assign(new Error(message), { code: raise.errcode, hint, severity: 'ERROR' });
        const masked = maskError(new GraphQLError('masked', { originalError: original }));
        if (masked.extensions?.refusal !== refusal.code) problems.push(`${where}: GraphQL answers ${JSON.stringify(masked.extensions)} instead of ${refusal.code}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('each check, unique and exclusion constraint and unique index maps to a code translated in ar, de and en', async () => {
    const names = await query<{ name: string }>(
      `select c.conname as name from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname in ('app_public', 'app_private', 'app_hidden') and c.contype in ('c', 'u', 'x', 'p')
       union
       select i.relname from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
        where n.nspname in ('app_public', 'app_private', 'app_hidden') and x.indisunique`,
    );
    expect(names.length).toBeGreaterThan(500);
    const problems = names.flatMap(({ name }) => {
      const code = refusalCodeForConstraint(name);
      if (!code) return [`${name}: no refusal code`];
      const missing = untranslated(code);
      return missing.length ? [`${name}: ${code} has no text in ${missing.join(', ')}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('a row-level-security refusal, a missing value and a dangling reference are translated too', () => {
    for (const [error, expected] of [
      [{ code: '42501', message: 'new row violates row-level security policy for table "letters"' }, 'forbidden'],
      [{ code: '42501', message: 'permission denied for table letters' }, 'forbidden'],
      [{ code: '23502', message: 'null value in column "case_id" of relation "letters" violates not-null constraint' }, 'value_required'],
      [{ code: '23503', message: 'insert or update on table "letters" violates foreign key constraint "letters_case_id_fkey"' }, 'reference_missing'],
      [{ code: '22P02', message: 'invalid input syntax for type uuid: "x"' }, 'invalid_value'],
    ] as const) {
      const refusal = refusalForDatabaseError(error);
      expect(refusal?.code).toBe(expected);
      expect(untranslated(expected)).toEqual([]);
    }
  });
});
