/**
 * One read transaction per GraphQL query request (src/server/graphql/pg-adaptor.ts): what a
 * request sends to the database, that a failing field leaves its siblings' answers as they were,
 * and that the request's connection goes back to the pool exactly once however the request ends,
 * on the one-connection PGlite pool as on PostgreSQL.
 */
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pgSettingsFor } from '../../src/server/db/transaction';
import { asksOnlyCaseLists, RequestTransaction, transactionSetup } from '../../src/server/graphql/pg-adaptor';
import { parse } from 'postgraphile/graphql';
import { documentText, operationName } from '../../src/web/api/graphql';
import { CaseListWithMessageCounts } from '../../src/web/features/cases/api';
import { startTestApp, type TestApp } from '../helpers/app';
import { testDatabaseKind } from '../helpers/databases';

let t: TestApp;
let pool: pg.Pool;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person;
let patient: Person;

/** Every message the app's pool sends, in order (the app's own connections, recorded as they are lent). */
const sent: string[] = [];

function recordStatements(target: pg.Pool): void {
  const recorded = new WeakSet<object>();
  target.on('acquire', (client) => {
    if (recorded.has(client)) return;
    recorded.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    Object.assign(client, {
      query: (...args: unknown[]) => {
        const config = args[0] as string | { text: string };
        sent.push(typeof config === 'string' ? config : config.text);
        return query(...args);
      },
    });
  });
}

/**
 * What a GraphQL request sent, without the bearer token's check that precedes every request and
 * the access log's write that follows a read of case records (issue 30, one message of its own).
 */
function graphqlStatements(): string[] {
  return sent.filter((text) => !text.includes('app_private.login_tokens') && !text.includes('app_hidden.record_case_reads'));
}

/** No connection is lent out and nobody waits for one: every request gave its connection back. */
function expectPoolAtRest(): void {
  expect(pool.totalCount - pool.idleCount, 'connections still lent out').toBe(0);
  expect(pool.waitingCount, 'callers waiting for a connection').toBe(0);
}

const CASE_LIST = documentText(CaseListWithMessageCounts);
/** A case list's request settings: the bearer's, and generic plans (pg-adaptor.ts GENERIC_PLAN_ROOT_FIELDS). */
const caseListSetup = (userId: string) => transactionSetup({ ...pgSettingsFor({ userId }), plan_cache_mode: 'force_generic_plan' });
const CASE_LIST_VARIABLES = { search: null, stage: null, first: 100, offset: 0 };
/** PostgreSQL refuses this time (out of timestamptz's range): a real failing statement, no mock. */
const OUT_OF_RANGE = '294277-01-01T00:00:00Z';
const FAILING_AND_SIBLING = `query FailingAndSibling($since: Datetime!) {
  failing: interviewOffersFrom(since: $since) { nodes { id } }
  sibling: caseList(first: 100) { totalCount nodes { id shortId stage patient { id username } } }
}`;
const SIBLING_ALONE = `query SiblingAlone { sibling: caseList(first: 100) { totalCount nodes { id shortId stage patient { id username } } } }`;

beforeAll(async () => {
  // PostGraphile's read transaction: the web's exact case-list texts are otherwise answered by
  // the compiled lists (compiled-lists.ts, tested in compiled-lists.int.test.ts).
  t = await startTestApp({ GRAPHQL_COMPILED_LISTS: '0' });
  pool = t.database.db.requestPool; // the authenticator pool of requests (the owner pool on PGlite)
  recordStatements(pool);
  coordinator = await t.user({ flags: ['coordinator'] });
  patient = await t.user({ flags: ['patient'] });
  await t.user({ flags: ['patient'] });
});
afterAll(() => t.close());
beforeEach(() => {
  sent.length = 0;
});

describe('a query request', () => {
  it("sends the web's CaseListWithMessageCounts as setup, the count, the page and commit: 4 messages", async () => {
    sent.length = 0;
    const response = await t.api('POST', '/api/graphql', {
      body: { query: CASE_LIST, variables: CASE_LIST_VARIABLES, operationName: operationName(CaseListWithMessageCounts) },
      token: coordinator.token,
    });
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.caseList.totalCount).toBeGreaterThanOrEqual(2);
    const statements = graphqlStatements();
    expect(statements).toHaveLength(4);
    expect(statements[0]).toBe(caseListSetup(coordinator.id));
    expect(statements.slice(1, 3).every((text) => text.startsWith('select'))).toBe(true);
    expect(statements[3]).toBe('commit');
    expectPoolAtRest();
  });

  it('runs as the server’s settings for the bearer, whatever the client sends', async () => {
    const response = await t.api('POST', '/api/graphql', {
      body: { query: CASE_LIST, variables: CASE_LIST_VARIABLES },
      token: coordinator.token,
      headers: { 'x-role': 'postgres', 'x-jwt-claims-user-id': patient.id },
    });
    expect(response.body.data.caseList.totalCount).toBeGreaterThanOrEqual(2);
    expect(graphqlStatements()[0]).toBe(caseListSetup(coordinator.id));
  });

  it('plans the case lists generically for that transaction only, and other reads as PostgreSQL chooses', async () => {
    const lists = await t.graphql(`query Lists { caseList(first: 5) { nodes { id } } pagedCases(first: 5) { totalCount } }`, {}, coordinator.token);
    expect(lists.errors, JSON.stringify(lists.errors)).toBeUndefined();
    expect(graphqlStatements()[0]).toBe(caseListSetup(coordinator.id));
    sent.length = 0;
    const mixed = await t.graphql(`query Mixed { caseList(first: 5) { nodes { id } } allCoordinatorsList { id } }`, {}, coordinator.token);
    expect(mixed.errors, JSON.stringify(mixed.errors)).toBeUndefined();
    expect(graphqlStatements()[0]).toBe(transactionSetup(pgSettingsFor({ userId: coordinator.id })));
    // The setting is local to the request's transaction: the connection goes back with PostgreSQL's default.
    const { rows } = await pool.query<{ plan_cache_mode: string }>('show plan_cache_mode');
    expect(rows[0]!.plan_cache_mode).toBe('auto');
    expectPoolAtRest();
  });

  it('keeps a mutation in transactions of its own, as before', async () => {
    const response = await t.graphql(
      `mutation Touch($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { title: "Renamed" } }) { case { id title } } }`,
      { id: patient.caseId },
      coordinator.token,
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    const statements = graphqlStatements();
    expect(statements[0]).toBe(transactionSetup(pgSettingsFor({ userId: coordinator.id })));
    expect(statements.at(-1)).toBe('commit');
    // Each of the mutation's statements opens and commits its own transaction.
    expect(statements.filter((text) => text.startsWith('begin')).length).toBe(statements.filter((text) => text === 'commit').length);
    expectPoolAtRest();
  });
});

describe('asksOnlyCaseLists', () => {
  it('is true only when every root field is a case list', () => {
    const asks = (text: string) => asksOnlyCaseLists(parse(text), undefined);
    expect(asks(CASE_LIST)).toBe(true);
    expect(asks('query { __typename pagedCases { totalCount } }')).toBe(true);
    expect(asks('query { caseList { totalCount } allCasesList { id } }')).toBe(false);
    expect(asks('query { __typename }')).toBe(false);
    expect(asks('query { ...Root } fragment Root on Query { caseList { totalCount } }')).toBe(false);
    expect(asksOnlyCaseLists(parse('query A { caseList { totalCount } } query B { allCasesList { id } }'), 'B')).toBe(false);
  });
});

describe('a failing field', () => {
  it("leaves its sibling's answer as the sibling gets it alone, and the error is its own", async () => {
    const alone = await t.graphql(SIBLING_ALONE, {}, coordinator.token);
    expect(alone.errors).toBeUndefined();
    expect(alone.data.sibling.nodes.length).toBeGreaterThanOrEqual(2);

    sent.length = 0;
    const both = await t.graphql(FAILING_AND_SIBLING, { since: OUT_OF_RANGE }, coordinator.token);
    expect(both.data.sibling).toEqual(alone.data.sibling);
    expect(both.data.failing).toBeNull();
    expect(both.errors).toHaveLength(1);
    expect(both.errors![0]).toMatchObject({ path: ['failing'], extensions: { code: '22008' } });
    // The failed transaction was rolled back and a fresh one opened for the statements after it.
    expect(graphqlStatements().some((text) => text.startsWith('rollback; begin'))).toBe(true);
    expectPoolAtRest();
  });

  it('answers the same whichever field comes first', async () => {
    const reversed = `query Reversed($since: Datetime!) {
      sibling: caseList(first: 100) { totalCount nodes { id shortId stage patient { id username } } }
      failing: interviewOffersFrom(since: $since) { nodes { id } }
    }`;
    const alone = await t.graphql(SIBLING_ALONE, {}, coordinator.token);
    const both = await t.graphql(reversed, { since: OUT_OF_RANGE }, coordinator.token);
    expect(both.data.sibling).toEqual(alone.data.sibling);
    expect(both.errors!.map((error) => (error as { path?: unknown }).path)).toEqual([['failing']]);
    expectPoolAtRest();
  });
});

describe('the connection', () => {
  it('goes back to the pool after many requests, answered or failed', async () => {
    for (let i = 0; i < 30; i++) {
      const result = i % 3 === 0 ? await t.graphql(FAILING_AND_SIBLING, { since: OUT_OF_RANGE }, coordinator.token) : await t.graphql(CASE_LIST, CASE_LIST_VARIABLES, coordinator.token);
      expect(result.data).toBeDefined();
    }
    expectPoolAtRest();
  });

  it('serves concurrent requests of several people, reads and writes, on every pool (PGlite has one connection)', async () => {
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 6 === 5) return t.graphql(`mutation { updateCaseById(input: { id: "${patient.caseId}", casePatch: { title: "T${i}" } }) { case { id } } }`, {}, coordinator.token);
      if (i % 4 === 3) return t.graphql(FAILING_AND_SIBLING, { since: OUT_OF_RANGE }, coordinator.token);
      if (i % 2 === 1) return t.api('GET', '/api/auth/users/me', { token: patient.token }).then((response) => ({ data: response.body }));
      return t.graphql(CASE_LIST, CASE_LIST_VARIABLES, i % 4 === 0 ? coordinator.token : patient.token);
    });
    const results = await Promise.all(requests);
    for (const result of results) expect(result.data, JSON.stringify(result)).toBeDefined();
    expectPoolAtRest();
  });
});

describe('RequestTransaction', () => {
  const settings = () => pgSettingsFor({ userId: coordinator.id });

  it('ends once: commits after the statements already asked, and a statement asked later gets a transaction of its own', async () => {
    const transaction = new RequestTransaction(pool, transactionSetup(settings()));
    const slow = transaction.pgClient.query<{ id: string }>({ text: `select pg_sleep(0.1), current_setting('jwt.claims.user_id') as id`, values: [] });
    // As when grafast's execution time-out ends a request while a statement still runs.
    const ending = transaction.end();
    expect(transaction.end()).toBe(ending);
    const late = transaction.pgClient.query<{ id: string }>({ text: `select current_setting('jwt.claims.user_id') as id`, values: [] });
    expect((await slow).rows[0]!.id).toBe(coordinator.id);
    await ending;
    expect((await late).rows[0]!.id).toBe(coordinator.id);
    expectPoolAtRest();
  });

  // PGlite runs statements on the event loop's thread: its statement_timeout never fires.
  it.runIf(testDatabaseKind() === 'postgres')('after a statement time-out, answers the next statement in a fresh transaction with the same settings', async () => {
    const transaction = new RequestTransaction(pool, transactionSetup({ ...settings(), statement_timeout: '50' }));
    const failing = transaction.pgClient.query({ text: 'select pg_sleep(2)', values: [] });
    const next = transaction.pgClient.query<{ id: string; timeout: string }>({
      text: `select current_setting('jwt.claims.user_id') as id, current_setting('statement_timeout') as timeout`,
      values: [],
    });
    await expect(failing).rejects.toMatchObject({ code: '57014' });
    expect((await next).rows[0]).toEqual({ id: coordinator.id, timeout: '50ms' });
    await transaction.end();
    expectPoolAtRest();
  });

  it('after a failed statement, answers the next one in a fresh transaction with the same settings', async () => {
    const transaction = new RequestTransaction(pool, transactionSetup(settings()));
    const failing = transaction.pgClient.query({ text: 'select 1/0', values: [] });
    const next = transaction.pgClient.query<{ id: string }>({ text: `select current_setting('jwt.claims.user_id') as id`, values: [] });
    await expect(failing).rejects.toMatchObject({ code: '22012' });
    expect((await next).rows[0]).toEqual({ id: coordinator.id });
    await transaction.end();
    expect(sent.filter((text) => text.startsWith('rollback; begin'))).toHaveLength(1);
    expect(sent.at(-1)).toBe('commit');
    expectPoolAtRest();
  });

  it('never connects when no statement was asked', async () => {
    const transaction = new RequestTransaction(pool, transactionSetup(settings()));
    await transaction.end();
    expect(sent).toEqual([]);
    expectPoolAtRest();
  });

  it('gives the connection back rolled back when the last statement failed', async () => {
    const transaction = new RequestTransaction(pool, transactionSetup(settings()));
    await expect(transaction.pgClient.query({ text: 'select 1/0', values: [] })).rejects.toMatchObject({ code: '22012' });
    await transaction.end();
    expect(sent.at(-1)).toBe('rollback');
    expectPoolAtRest();
    // The connection is usable and outside any transaction: the statement is a transaction of its own.
    const { rows } = await pool.query<{ fresh: boolean }>(`select now() = statement_timestamp() as fresh`);
    expect(rows[0]!.fresh).toBe(true);
  });
});
