/**
 * The read cache of polled GraphQL reads (src/server/graphql/read-cache.ts, migration 0015):
 * the interview screens' own operations are answered again while nothing they are built from
 * changed, per person (or shared where the answer is the same for everyone signed in), and a
 * committed change of any source table — through the API or straight in SQL — makes the next
 * answer fresh. Anything else is never kept.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVAILABLE_DATES_QUERY, availableUntil, OFFERS_QUERY, offersSince } from '../../src/domain/interview-operations';
import { GRAPHQL_PATH } from '../../src/server/graphql/preset';
import { ReadCache, type CachedOperation } from '../../src/server/graphql/read-cache';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let interviewer: Person;
let colleague: Person;
let patient: Person;
let otherPatient: Person;

const DAY = 86_400_000;
const CREATE = `mutation CreateOffer($startsAt: Datetime!, $endsAt: Datetime!) {
  createOffer(input: { startsAt: $startsAt, endsAt: $endsAt }) { interviewOffer { id } } }`;
const BOOK = `mutation BookInterview($offerId: UUID!, $caseId: UUID!) { bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }`;

let nextDay = 2;
async function createOffer(person: Person): Promise<string> {
  nextDay += 1;
  const start = Math.ceil((Date.now() + nextDay * DAY) / 60_000) * 60_000;
  const result = await t.graphql(CREATE, { startsAt: new Date(start).toISOString(), endsAt: new Date(start + 3_600_000).toISOString() }, person.token);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data.createOffer.interviewOffer.id as string;
}

/** One polled read as the web app sends it: status, whether it was kept, and the answer. */
async function poll(query: string, variables: Record<string, unknown>, token?: string) {
  const response = await t.api('POST', '/api/graphql', { body: { query, variables }, ...(token ? { token } : {}) });
  return { status: response.status, kept: response.headers.get('x-sanad-read-cache') === 'hit', body: response.body };
}

const offers = (token: string) => poll(OFFERS_QUERY, { since: offersSince(new Date()).toISOString() }, token);
const dates = (token?: string) => poll(AVAILABLE_DATES_QUERY, { until: availableUntil(new Date()).toISOString() }, token);
const offerIds = (answer: { body: any }): string[] => answer.body.data.interviewOffersFrom.nodes.map((o: { id: string }) => o.id);
const dateIds = (answer: { body: any }): string[] => answer.body.data.availableInterviewDatesList.map((d: { id: string }) => d.id);

async function version(): Promise<number> {
  const { rows } = await t.database.db.pool.query<{ version: string }>(`select version from app_private.read_versions where topic = 'interviews'`);
  return Number(rows[0]!.version);
}

beforeAll(async () => {
  t = await startTestApp();
  interviewer = await t.user({ flags: ['interviewer'] });
  colleague = await t.user({ flags: ['interviewer'] });
  patient = await t.user({ flags: ['patient'] });
  otherPatient = await t.user({ flags: ['patient'] });
});
afterAll(() => t.close());

describe('the interview reads', () => {
  it('answer a repeated poll from the kept answer, identical to a fresh one', async () => {
    await createOffer(interviewer);
    const first = await offers(interviewer.token);
    expect(first.kept).toBe(false);
    const second = await offers(interviewer.token);
    expect(second.kept).toBe(true);
    expect(second.body).toEqual(first.body);
  });

  it('are fresh right after a change through the API (read your own writes)', async () => {
    await offers(interviewer.token);
    const created = await createOffer(interviewer);
    const after = await offers(interviewer.token);
    expect(after.kept).toBe(false);
    expect(offerIds(after)).toContain(created);
  });

  it('are fresh after a booking by someone else, and a booked slot leaves the free list', async () => {
    const offerId = await createOffer(colleague);
    const before = await dates(patient.token);
    expect(dateIds(before)).toContain(offerId);
    await dates(patient.token);
    const booked = await t.graphql(BOOK, { offerId, caseId: otherPatient.caseId }, otherPatient.token);
    expect(booked.errors, JSON.stringify(booked.errors)).toBeUndefined();
    const after = await dates(patient.token);
    expect(after.kept).toBe(false);
    expect(dateIds(after)).not.toContain(offerId);
    // The colleague's own list shows the booking at once.
    const mine = await offers(colleague.token);
    const offer = mine.body.data.interviewOffersFrom.nodes.find((o: { id: string }) => o.id === offerId);
    expect(offer.activeBookings.nodes).toHaveLength(1);
  });

  it('are fresh after a change made straight in SQL, e.g. an interviewer renamed', async () => {
    await offers(interviewer.token);
    expect((await offers(interviewer.token)).kept).toBe(true);
    await t.database.db.pool.query(`update app_public.users set username = $2 where id = $1`, [interviewer.id, `${interviewer.username}_renamed`]);
    const after = await offers(interviewer.token);
    expect(after.kept).toBe(false);
    expect(after.body.data.interviewOffersFrom.nodes[0].interviewer.username).toBe(`${interviewer.username}_renamed`);
  });

  it('are kept per person: a colleague never gets the interviewer’s list', async () => {
    const own = await createOffer(interviewer);
    await offers(interviewer.token);
    const theirs = await offers(colleague.token);
    expect(theirs.kept).toBe(false);
    expect(offerIds(theirs)).not.toContain(own);
  });

  it('share the free slots among everyone signed in, and never answer anyone signed out', async () => {
    await dates(patient.token);
    const other = await dates(otherPatient.token);
    expect(other.kept).toBe(true);
    const signedOut = await dates();
    expect(signedOut.kept).toBe(false);
  });

  it('keep nothing for other operations, even the same fields asked differently', async () => {
    const reworded = OFFERS_QUERY.replace('query InterviewOffers', 'query  InterviewOffers');
    const variables = { since: offersSince(new Date()).toISOString() };
    await poll(reworded, variables, interviewer.token);
    expect((await poll(reworded, variables, interviewer.token)).kept).toBe(false);
  });
});

describe('the version of the interview topic', () => {
  it('rises once per committed transaction, however many rows it changed', async () => {
    const before = await version();
    await t.database.db.pool.query(`update app_public.interview_offers set external_link = null where interviewer_id = $1`, [interviewer.id]);
    expect(await version()).toBe(before + 1);
    const client = await t.database.db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`update app_public.interview_offers set external_link = null where interviewer_id = $1`, [interviewer.id]);
      await client.query(`update app_public.users set gender = gender where id = $1`, [colleague.id]);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await version()).toBe(before + 2);
  });

  it('does not rise for a rolled-back change or a sign-in, and rises for a new case member', async () => {
    const before = await version();
    const client = await t.database.db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`update app_public.interview_offers set external_link = null where interviewer_id = $1`, [interviewer.id]);
      await client.query('rollback');
    } finally {
      client.release();
    }
    await t.signIn(patient.username, patient.password);
    expect(await version()).toBe(before);
    // Membership is part of the topic: a patient sees the slots of their case's bookings.
    await addMember(t.database.db.pool, patient.caseId!, colleague.username, ['therapist']);
    expect(await version()).toBe(before + 1);
  });

  it('is out of reach of the request roles', async () => {
    const client = await t.database.db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`select set_config('role', 'sanad_user', true), set_config('jwt.claims.user_id', $1, true)`, [patient.id]);
      await expect(client.query(`update app_private.read_versions set version = 0`)).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe('the cache itself', () => {
  const QUERY = 'query Kept { kept }';
  const OPERATIONS = new Map<string, CachedOperation>([[QUERY, { topic: 'interviews', scope: 'person', maxAgeMs: 1000 }]]);
  let app: FastifyInstance;
  let url: string;
  let builds = 0;
  let failNext = false;
  let clock = 0;
  /** While set, the stand-in holds every answer until the promise settles. */
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    app = Fastify();
    app.decorateRequest('identity', null as never);
    app.addHook('onRequest', async (request) => {
      request.identity = { userId: (request.headers['x-user'] as string | undefined) ?? null };
    });
    new ReadCache({ pool: t.database.db.pool, operations: OPERATIONS, maxEntries: 3, now: () => clock }).register(app);
    // A stand-in for GraphQL that counts its work and can be held back or fail.
    app.post(GRAPHQL_PATH, async (_request, reply) => {
      builds += 1;
      if (gate) await gate;
      if (failNext) {
        failNext = false;
        return reply.send({ errors: [{ message: 'failed' }] });
      }
      return reply.send({ data: { kept: builds } });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${GRAPHQL_PATH}`;
  });
  afterAll(() => app.close());

  const ask = async (user = '00000000-0000-4000-8000-000000000001', variables: unknown = {}) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user }, body: JSON.stringify({ query: QUERY, variables }) });
    return { kept: response.headers.get('x-sanad-read-cache') === 'hit', body: (await response.json()) as { data?: { kept: number } } };
  };

  it('builds an answer once for requests that arrive while it is being built', async () => {
    const start = builds;
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const waiting = [ask(undefined, { n: 'together' }), ask(undefined, { n: 'together' }), ask(undefined, { n: 'together' })];
    await new Promise((resolve) => setTimeout(resolve, 200));
    gate = undefined;
    open();
    const answers = await Promise.all(waiting);
    expect(builds - start).toBe(1);
    expect(new Set(answers.map((a) => a.body.data?.kept)).size).toBe(1);
  });

  it('keeps no failed answer', async () => {
    failNext = true;
    const failed = await ask(undefined, { n: 'fail' });
    expect(failed.body.data).toBeUndefined();
    const next = await ask(undefined, { n: 'fail' });
    expect(next.kept).toBe(false);
    expect(next.body.data?.kept).toBeGreaterThan(0);
  });

  it('builds again once the answer is older than the operation allows', async () => {
    await ask(undefined, { n: 'age' });
    clock += 999;
    expect((await ask(undefined, { n: 'age' })).kept).toBe(true);
    clock += 2;
    expect((await ask(undefined, { n: 'age' })).kept).toBe(false);
  });

  it('forgets the least recently served answers beyond its size', async () => {
    for (const n of [1, 2, 3, 4]) await ask(undefined, { n });
    expect((await ask(undefined, { n: 4 })).kept).toBe(true);
    expect((await ask(undefined, { n: 1 })).kept).toBe(false);
  });

  it('serves nobody without a verified identity', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    await response.json();
    const again = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    expect(again.headers.get('x-sanad-read-cache')).toBeNull();
  });
});
