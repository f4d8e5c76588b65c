/**
 * Issue 27, item 7: every refusal is a code and a sentence, never a database text. The scan
 * reads every constraint and every table with row-level security of the migrated database and
 * asserts each has a refusal code; then violating input goes through REST, GraphQL and the
 * workflow routes (every REST collection with bad values, as a patient and as a coordinator)
 * and no response may carry PostgreSQL's wording or a 5xx.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_DATABASE_TEXT, refusalCodeForConstraint, refusalForDatabaseError } from '../../src/domain/refusals';
import { appCollections } from '../../src/server/collections';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast } from '../helpers/people';

let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await startTestApp();
  cast = await castOfRoles(t);
});
afterAll(() => t?.close());

const query = async <T>(text: string) => (await t.database.db.pool.query(text)).rows as T[];

/** What a constraint's definition checks, to hold the written-out kinds to the database. */
function kindOf(definition: string): string {
  if (/ANY \(ARRAY|<@/.test(definition)) return 'not_a_choice';
  if (/length\(/.test(definition)) return 'text_length';
  if (/[<>]=?/.test(definition)) return 'out_of_range';
  return 'other';
}

function expectNoDatabaseText(body: unknown, what: string) {
  expect(JSON.stringify(body ?? null), what).not.toMatch(RAW_DATABASE_TEXT);
}

describe('the scan over the database', () => {
  it('gives every check, unique and exclusion constraint and every unique index a refusal code', async () => {
    const constraints = await query<{ name: string; kind: string; definition: string }>(
      `select c.conname as name, c.contype as kind, pg_get_constraintdef(c.oid) as definition
         from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname in ('app_public', 'app_private', 'app_hidden') and c.contype in ('c', 'u', 'x', 'p')`,
    );
    const indexes = await query<{ name: string }>(
      `select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
        where n.nspname in ('app_public', 'app_private', 'app_hidden') and x.indisunique and not x.indisprimary
          and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)`,
    );
    expect(constraints.length).toBeGreaterThan(500);
    const unmapped = [...constraints, ...indexes].map((c) => c.name).filter((name) => !refusalCodeForConstraint(name));
    expect(unmapped).toEqual([]);
    // PostgreSQL's own `<table>_<column>_check` names are written out by kind: the kind must
    // be what the definition checks.
    const mismatched = constraints
      .filter((c) => c.kind === 'c' && c.name.endsWith('_check'))
      .filter((c) => ['not_a_choice', 'text_length', 'out_of_range'].includes(refusalCodeForConstraint(c.name)!))
      .filter((c) => kindOf(c.definition) !== refusalCodeForConstraint(c.name));
    expect(mismatched.map((c) => `${c.name}: ${c.definition}`)).toEqual([]);
  });

  it('says every foreign key, not-null column and row-level-security table in words a person can act on', async () => {
    const foreignKeys = await query<{ name: string; tbl: string }>(
      `select c.conname as name, c.conrelid::regclass::text as tbl from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname like 'app\\_%' and c.contype = 'f'`,
    );
    for (const fk of foreignKeys) {
      const refusal = refusalForDatabaseError({ code: '23503', constraint: fk.name, message: `insert or update on table "${fk.tbl}" violates foreign key constraint "${fk.name}"` });
      expect(refusal?.code, fk.name).toBe('reference_missing');
    }
    const notNull = await query<{ tbl: string; col: string }>(
      `select c.relname as tbl, a.attname as col from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname like 'app\\_%' and c.relkind = 'r' and a.attnum > 0 and a.attnotnull and not a.attisdropped`,
    );
    for (const { tbl, col } of notNull) {
      const refusal = refusalForDatabaseError({ code: '23502', message: `null value in column "${col}" of relation "${tbl}" violates not-null constraint` });
      expect(refusal?.code).toBe('value_required');
    }
    const protectedTables = await query<{ tbl: string }>(
      `select c.relname as tbl from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname like 'app\\_%' and c.relkind = 'r' and c.relrowsecurity`,
    );
    expect(protectedTables.length).toBeGreaterThan(30);
    for (const { tbl } of protectedTables) {
      const refusal = refusalForDatabaseError({ code: '42501', message: `new row violates row-level security policy for table "${tbl}"` });
      expect([refusal?.code, refusal?.status]).toEqual(['forbidden', 403]);
      expect(refusal!.message).not.toMatch(RAW_DATABASE_TEXT);
    }
  });
});

describe('violating input over every route family', () => {
  const rest = (path: string, body: unknown, token: string) =>
    t.api('POST', path, { body, token, headers: { prefer: 'return=representation' } });

  it('REST: a patient writing an interview report is refused as not allowed', async () => {
    const answer = await rest('/api/interview_reports', { case_id: cast.caseA }, cast.people.patient.token);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expectNoDatabaseText(answer.body, 'interview_reports');
  });

  it('REST: a sent letter without a text is refused by its code, with nothing stored', async () => {
    const letter = await rest('/api/letters', { id: randomUUID(), case_id: cast.caseA, subject: 'Hi', body: '   ', published_at: new Date().toISOString() }, cast.people.therapist.token);
    expect([letter.status, letter.body.error]).toEqual([400, 'sent_needs_content']);
    expectNoDatabaseText(letter.body, 'letter');
    const stored = await query<{ n: number }>(`select count(*)::int as n from app_public.letters`);
    expect(stored[0]!.n).toBe(0);
  });

  it('GraphQL: a suicide-risk score off its range is out_of_range, with nothing stored', async () => {
    const answer = await t.graphql(
      `mutation($input: CreateCaseSuicideCallInput!) { createCaseSuicideCall(input: $input) { caseSuicideCall { id } } }`,
      { input: { caseSuicideCall: { caseId: cast.caseA, suicideScore: 99, riskOfSuicide: 'low' } } },
      cast.people.therapist.token,
    );
    expect(answer.errors?.[0]?.extensions?.refusal).toBe('out_of_range');
    expectNoDatabaseText(answer, 'suicide call');
    expect((await query<{ n: number }>(`select count(*)::int as n from app_public.case_suicide_calls`))[0]!.n).toBe(0);
  });

  it('GraphQL: writing a row into another case is forbidden in words', async () => {
    const answer = await t.graphql(
      `mutation($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id } } }`,
      { input: { caseMessage: { caseId: cast.caseB, body: 'hello' } } },
      cast.people.patient.token,
    );
    expect(answer.errors?.length).toBeGreaterThan(0);
    expectNoDatabaseText(answer, 'message into another case');
  });

  it('workflow routes: a malformed id is a 4xx without database text', async () => {
    const answer = await t.api('POST', '/api/workflow/rest/task/not-a-uuid/submit-form', { body: {}, token: cast.people.therapist.token });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expectNoDatabaseText(answer.body, 'workflow');
  });

  /** A value of each column type that breaks the usual constraints (length, range, choice, reference). */
  const BAD: Record<string, unknown> = {
    uuid: '00000000-0000-4000-8000-000000000000',
    text: 'x'.repeat(60_000),
    int: -99_999,
    numeric: -99_999.5,
    bool: true,
    timestamptz: '1900-01-01T00:00:00Z',
    date: '1900-01-01',
    jsonb: { nonsense: true },
    'text[]': ['nonsense'],
  };

  it('REST: every collection, written with values that break its rules, answers 4xx in words', async () => {
    const collections = appCollections({} as never).filter((c) => c.methods.includes('POST'));
    expect(collections.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const collection of collections) {
      const writable = (collection.writable ?? []) as string[];
      if (writable.length === 0) continue;
      const types = collection.columns as Record<string, string>;
      const bad = Object.fromEntries(writable.filter((c) => c !== 'id').map((c) => [c, c === 'case_id' ? cast.caseA : BAD[types[c]!]]));
      for (const who of ['patient', 'coordinator', 'therapist'] as const) {
        for (const body of [bad, { case_id: cast.caseA }, { case_id: cast.caseB }]) {
          const answer = await rest(`/api/${collection.name}`, body, cast.people[who].token);
          const text = JSON.stringify(answer.body ?? null);
          if (answer.status >= 500 || RAW_DATABASE_TEXT.test(text)) failures.push(`${who} ${collection.name} ${answer.status} ${text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
