/**
 * The GraphQL request limits (issue 16) over the committed schema: the probe's crash queries
 * are refused, and every operation the web app sends (its declared documents) passes with
 * room to spare under the production defaults.
 */
import fs from 'node:fs';
import { buildSchema, parse, validate } from 'postgraphile/graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config';
import { checkRequest, measureOperation, ParsedDocuments, selectOperation } from '../src/server/graphql/limits';
import { DOCUMENTS, documentText, operationName } from '../src/web/api/graphql';

const schema = buildSchema(fs.readFileSync('schema.graphql', 'utf8'));
const limits = loadConfig({ NODE_ENV: 'production' }).graphqlLimits;
const signedIn = { introspectionAllowed: true };

/** The probe's query: cases → members → user → memberships → case …, `levels` lists deep. */
function nestedCaseQuery(levels: number): string {
  let inner = 'id';
  for (let i = 0; i < levels; i++) {
    inner = i % 2 === 0 ? `caseMembersByCaseIdList { userByUserId { caseMembersByUserIdList { caseByCaseId { ${inner} } } } }` : `id ${inner}`;
  }
  return `query Crash { allCasesList { ${inner} } }`;
}

function measure(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  return measureOperation(schema, document, selectOperation(document, undefined)!, variables, limits.defaultPageSize);
}

describe('measuring an operation', () => {
  it('weights list fields by first, by the default page size without it, and multiplies nested lists', () => {
    expect(measure('{ allCasesList(first: 10) { id } }').cost).toBe(10);
    expect(measure('{ allCasesList { id } }').cost).toBe(limits.defaultPageSize);
    expect(measure('query($n: Int) { allCasesList(first: $n) { id } }', { n: 7 }).cost).toBe(7);
    expect(measure('query($n: Int = 3) { allCasesList(first: $n) { id } }').cost).toBe(3);
    // 10 cases, each with up to a default page of members, each with its user
    const page = limits.defaultPageSize;
    expect(measure('{ allCasesList(first: 10) { caseMembersByCaseIdList { userByUserId { id } } } }').cost).toBe(10 + 2 * 10 * page);
    // A connection is one wrapper and its page of nodes.
    expect(measure('{ allCases(first: 5) { totalCount nodes { id } } }').cost).toBe(6);
  });

  it('counts depth through fragments, aliases and root fields', () => {
    const m = measure('query { a: allCasesList(first: 1) { ...F } b: allCasesList(first: 1) { id } } fragment F on Case { caseMembersByCaseIdList { id } }');
    expect(m).toMatchObject({ depth: 3, aliases: 2, rootFields: 2, introspection: false });
    expect(measure('{ __schema { types { name } } }').introspection).toBe(true);
    expect(measure('{ __typename }').introspection).toBe(false);
  });

  it('stays finite on a fragment that spreads itself (invalid GraphQL, refused later by validation)', () => {
    expect(() => measure('query { allCasesList { ...F } } fragment F on Case { caseMembersByCaseIdList { caseByCaseId { ...F } } }')).not.toThrow();
  });
});

describe('refusing what the probe sent (issue 16 findings)', () => {
  it('refuses the nested crash query by depth and by cost, with a clear code', () => {
    const verdict = checkRequest(schema, { query: nestedCaseQuery(22) }, limits, signedIn);
    expect(verdict).toMatchObject({ ok: false, code: 'QUERY_TOO_DEEP' });
    const shallow = checkRequest(schema, { query: nestedCaseQuery(3) }, { ...limits, maxDepth: 100 }, signedIn);
    expect(shallow).toMatchObject({ ok: false, code: 'QUERY_TOO_COSTLY' });
    expect(shallow.ok ? '' : shallow.message).toMatch(/at most 100000/);
  });

  it('refuses 150 aliases and 5,000 aliases', () => {
    for (const count of [150, 5000]) {
      const fields = Array.from({ length: count }, (_, i) => `a${i}: currentUser { id }`).join(' ');
      const verdict = checkRequest(schema, { query: `{ ${fields} }` }, limits, signedIn);
      expect(verdict.ok).toBe(false);
      expect(verdict.ok ? '' : verdict.code).toMatch(/TOO_MANY_ALIASES|QUERY_TOO_LONG/);
    }
  });

  it('refuses many root fields without aliases', () => {
    const fields = Array.from({ length: limits.maxRootFields + 1 }, () => 'currentUser { id }').join(' ');
    expect(checkRequest(schema, { query: `{ ${fields} }` }, limits, signedIn)).toMatchObject({ ok: false, code: 'TOO_MANY_ROOT_FIELDS' });
  });

  it('refuses introspection to anonymous callers when told to, and lets signed-in people introspect', () => {
    const query = '{ __schema { queryType { name } } }';
    expect(checkRequest(schema, { query }, limits, { introspectionAllowed: false })).toMatchObject({ ok: false, code: 'INTROSPECTION_DISABLED' });
    expect(checkRequest(schema, { query }, limits, { introspectionAllowed: true }).ok).toBe(true);
  });

  it('refuses subscriptions, which this API does not offer', () => {
    expect(checkRequest(schema, { query: 'subscription { x }' }, limits, signedIn)).toMatchObject({ ok: false, code: 'SUBSCRIPTIONS_UNSUPPORTED' });
  });

  it('passes what does not parse or names no operation on to PostGraphile, which explains it', () => {
    expect(checkRequest(schema, { query: '{ nope' }, limits, signedIn).ok).toBe(true);
    expect(checkRequest(schema, { query: 42 }, limits, signedIn).ok).toBe(true);
    expect(checkRequest(schema, { query: 'query A { currentUser { id } }', operationName: 'B' }, limits, signedIn).ok).toBe(true);
  });
});

describe('parsed documents kept by their text', () => {
  it('give the same verdicts as a fresh parse, the second time too, whatever the variables', () => {
    const documents = new ParsedDocuments();
    const paged = 'query($n: Int) { allCasesList(first: $n) { caseMembersByCaseIdList { userByUserId { id } } } }';
    const requests = [
      { query: nestedCaseQuery(22) },
      { query: nestedCaseQuery(3) },
      { query: paged, variables: { n: 2 } },
      { query: paged, variables: { n: 100000 } },
      { query: '{ __schema { queryType { name } } }' },
      { query: '{ nope' },
      { query: `{ ${'a: id '.repeat(limits.maxTokens)} }` },
    ];
    for (const request of requests) {
      for (const introspectionAllowed of [true, false]) {
        const fresh = checkRequest(schema, request, limits, { introspectionAllowed });
        expect(checkRequest(schema, request, limits, { introspectionAllowed, documents })).toEqual(fresh);
        expect(checkRequest(schema, request, limits, { introspectionAllowed, documents })).toEqual(fresh);
      }
    }
    expect(checkRequest(schema, { query: paged, variables: { n: 100000 } }, limits, { ...signedIn, documents })).toMatchObject({ ok: false, code: 'QUERY_TOO_COSTLY' });
  });

  it('keep a bounded number of texts, oldest out first, and neither long nor broken ones', () => {
    const documents = new ParsedDocuments(2, 40);
    const first = documents.parse('{ a }', 100);
    expect(documents.parse('{ a }', 100)).toBe(first);
    documents.parse('{ b }', 100);
    documents.parse('{ c }', 100);
    expect(documents.size).toBe(2);
    expect(documents.parse('{ a }', 100)).not.toBe(first);
    const long = `{ ${'x '.repeat(30)}}`;
    expect(documents.parse(long, 100)).not.toBe(documents.parse(long, 100));
    expect(() => documents.parse('{ nope', 100)).toThrow();
    expect(documents.size).toBe(2);
  });
});

/**
 * Every web-app operation through the limiter: the documents every feature declares with
 * `graphql()` (src/web/api/graphql.ts keeps them in DOCUMENTS; the same registry the document
 * validation test reads), sent as the app sends them.
 */
describe('every operation of the web app', () => {
  // Importing the features' api modules declares their documents.
  import.meta.glob(['../src/web/features/*/api.ts', '../src/web/session/api.ts'], { eager: true });
  const operations = [...DOCUMENTS].map((document) => ({ where: operationName(document) ?? '(unnamed)', text: documentText(document) }));

  it('finds the documents of the features', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it('each is valid against schema.graphql and uses at most half of every limit', () => {
    const report: string[] = [];
    for (const { where, text } of operations) {
      const document = parse(text);
      const errors = validate(schema, document);
      if (errors.length > 0) report.push(`${where}: ${errors[0]!.message}`);
      for (const definition of document.definitions) {
        if (definition.kind !== 'OperationDefinition') continue;
        const verdict = checkRequest(schema, { query: text, operationName: definition.name?.value }, limits, { introspectionAllowed: false });
        if (!verdict.ok) {
          report.push(`${where}: ${verdict.message}`);
          continue;
        }
        const m = verdict.measure!;
        if (m.cost > limits.maxCost / 2 || m.depth > limits.maxDepth / 2 || m.aliases > limits.maxAliases * 0.75 || m.rootFields > limits.maxRootFields / 2) {
          report.push(`${where}: close to a limit ${JSON.stringify(m)}`);
        }
      }
    }
    expect(report).toEqual([]);
  });
});
