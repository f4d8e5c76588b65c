/**
 * The bench's floor server (bench/floor-server.ts) answers the requests it measures byte for byte
 * as the API does, so its figures are those of the same answer: `me`, the unread poll in both its
 * forms, and the web's compiled documents (a case list with and without a search, a paged list,
 * the case screen). The bench checks this before measuring; this test keeps the floor from
 * drifting from the server between bench runs. What it cannot answer (a document PostGraphile's
 * general path answers) it refuses with a 404, and it takes no one it was not given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFloor, startFloorServer, type FloorServer } from '../../bench/floor-server';
import type { LoadRequest } from '../../bench/load';
import { CASE_LIST_QUERY, PAGED_CASES_QUERY } from '../../src/domain/case-list-operations';
import { CASE_WITH_MESSAGES_QUERY } from '../../src/domain/case-operations';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast } from '../helpers/people';

let t: TestApp;
let cast: Cast;
let floor: FloorServer;

beforeAll(async () => {
  t = await startTestApp();
  const pool = t.database.db.pool;
  cast = await castOfRoles(t, { patient: { alias: 'Haddad' } });
  const { therapist, patient, coordinator } = cast.people;
  await pool.query(`update app_public.cases set title = 'Haddad "family"' where id = $1`, [cast.caseA]);
  for (const [minutes, sender, subject] of [
    [1, patient.id, 'Hello ع 😀'],
    [2, therapist.id, 'Re: "hello"\n'],
  ] as const) {
    await pool.query(
      `insert into app_public.case_messages (case_id, sender_id, subject, body, sent_at, to_therapists, to_patients) values ($1, $2, $3, 'body', $4, true, true)`,
      [cast.caseA, sender, subject, new Date(Date.UTC(2026, 2, 1, 8, minutes)).toISOString()],
    );
  }
  floor = await startFloorServer(
    pool,
    new Map([
      [therapist.token, therapist.id],
      [coordinator.token, coordinator.id],
    ]),
  );
}, 120_000);

afterAll(async () => {
  await floor?.close();
  await t?.close();
});

function get(path: string, token: string): LoadRequest {
  return { method: 'GET', path, headers: { accept: 'application/json', authorization: `Bearer ${token}` } };
}

function graphql(query: string, variables: Record<string, unknown>, token: string, operationName: string): LoadRequest {
  return {
    method: 'POST',
    path: '/api/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    bodies: [JSON.stringify({ query, variables, operationName })],
  };
}

describe("the bench's floor server", () => {
  it('answers me, the unread poll and the compiled documents byte for byte as the API does', async () => {
    const { therapist, coordinator } = cast.people;
    const requests: [string, LoadRequest][] = [
      ['me', get('/api/auth/users/me', therapist.token)],
      ['unread', get('/api/my_messages?select=id,case_id,is_unread&is_unread=is.true', therapist.token)],
      ['unread, 50 newest', get('/api/my_messages?select=id,case_id,is_unread&is_unread=is.true&limit=50&order=sent_at.desc', therapist.token)],
      ['all my messages', get('/api/my_messages', coordinator.token)],
      ['case list', graphql(CASE_LIST_QUERY, { search: null, stage: null, first: 100, offset: 0 }, therapist.token, 'CaseListWithMessageCounts')],
      ['case list, search', graphql(CASE_LIST_QUERY, { search: 'haddad', stage: null, first: 100, offset: 0 }, coordinator.token, 'CaseListWithMessageCounts')],
      ['paged cases', graphql(PAGED_CASES_QUERY, { filterUnassigned: false, first: 200, offset: 0 }, coordinator.token, 'PagedCases')],
      ['case screen', graphql(CASE_WITH_MESSAGES_QUERY, { id: cast.caseA }, therapist.token, 'CaseWithMessages')],
    ];
    for (const [name, request] of requests) await checkFloor({ name, request }, t.url, floor.baseUrl);
    // The answers hold rows: an empty answer on both sides would prove little.
    const unread = await fetch(`${floor.baseUrl}/api/my_messages?is_unread=is.true`, { headers: { authorization: `Bearer ${therapist.token}` } });
    expect(((await unread.json()) as unknown[]).length).toBe(1);
  });

  it('fails the check when the floor answers otherwise than the API', async () => {
    // The floor cannot answer a document outside the compiled ones: the API's 200 against its 404.
    const other = graphql('query Me { currentUser { id } }', {}, cast.people.therapist.token, 'Me');
    await expect(checkFloor({ name: 'a general document', request: other }, t.url, floor.baseUrl)).rejects.toThrow(/status 404\/200/);
  });

  it('answers no one it was not given', async () => {
    const response = await fetch(`${floor.baseUrl}/api/auth/users/me`, { headers: { authorization: `Bearer ${cast.people.patient.token}` } });
    expect(response.status).toBe(401);
  });
});
