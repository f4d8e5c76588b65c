/**
 * The staff case screen's CaseWithMessages answered by one SQL statement
 * (src/server/graphql/compiled-lists.ts, migration 0108) gives, byte for byte, the answer
 * PostGraphile gives: for every kind of reader, on cases with drafts of the reader and of others,
 * messages sent to each group, a system message, read and unread ones, favorites, a removed
 * member's message, patient flags, long, unicode and control-character texts, members created at
 * the same moment, a case the reader cannot see and an unknown id. PostGraphile's answer is the
 * same document with one space more, which the fast path does not recognise. A doubtful id or an
 * extra variable is left to PostGraphile, and the switch turns the path off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { CASE_WITH_MESSAGES_QUERY } from '../../src/domain/case-operations';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
let cast: Cast;
const readers: Record<string, Person> = {};
/** A case with no staff but its patient, and one that was anonymized. */
const cases: Record<string, string> = {};

interface Answer {
  status: number;
  contentType: string | null;
  compiled: string | null;
  text: string;
}

async function post(query: string, variables: unknown, token: string | undefined, operationName?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const body: Record<string, unknown> = { query, variables };
  if (operationName !== undefined) body.operationName = operationName;
  const response = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    compiled: response.headers.get('x-sanad-compiled-list'),
    text: await response.text(),
  };
}

const CONTROL_BODY = 'Tab\there "quoted" \\ back\nline \u0001\u001f \u2028\u2029 \u007f é ع 😀 </script>';
const LONG_BODY = `${'كلمة word '.repeat(1990)}end`;

beforeAll(async () => {
  t = await startTestApp();
  const pool = t.database.db.pool;
  cast = await castOfRoles(t, { patient: { alias: 'Patient Ä', gender: 'FEMALE' }, therapist: { alias: 'Dr. "T"' } });
  const people = cast.people;
  Object.assign(readers, {
    coordinator: people.coordinator,
    therapist: people.therapist,
    supervisor: people.supervisor,
    interviewer: people.interviewer,
    supporter: people.supporter,
    counselor: people.counselor,
    patient: people.patient,
    otherTherapist: people.otherTherapist,
    noCases: people.outsider,
  });
  readers.memberCoordinator = await t.user({ flags: ['coordinator', 'therapist'] });
  await addMember(pool, cast.caseA, readers.memberCoordinator.username, ['therapist', 'supervisor']);
  // A member who wrote and was then removed from the case.
  const removed = await t.user({ flags: ['supporter'], alias: 'Gone' });
  await addMember(pool, cast.caseA, removed.username, ['supporter']);
  cases.lonely = (await t.user({ flags: ['patient'] })).caseId!;
  cases.anonymized = (await t.user({ flags: ['patient'] })).caseId!;
  await pool.query(`update app_public.cases set stage = 'anonymization' where id = $1`, [cases.anonymized]);
  await addMember(pool, cases.anonymized, people.therapist.username, ['therapist']);

  await pool.query(
    `update app_public.cases set title = $2, description = $3, diagnosis = 'F43.1', emergency_contact = 'Sister: +49 30 99',
            stage = 'therapy', is_dropout = true, dropout_reason = 'moved', ask_for_post_if_dropped_out = true,
            exclude_from_analysis = true, reason_for_exclusion = $4
      where id = $1`,
    [cast.caseA, 'Haddad "family"\n', CONTROL_BODY, 'ع\u0002'],
  );
  await pool.query(
    `update app_public.users set phone = '+49 30 1234', excluded = true, excluded_for_minor_age = true, is_counseling_only = true, registered_for_counseling = true
      where id = $1`,
    [people.patient.id],
  );
  // Two members created at the same moment (the id decides between them).
  await pool.query(
    `update app_public.case_members set created_at = '2026-01-02 03:04:05.678901+00' where case_id = $1 and user_id = any($2)`,
    [cast.caseA, [people.supervisor.id, people.interviewer.id]],
  );

  const base = Date.UTC(2026, 2, 1, 8, 0, 0, 123);
  const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
  const messages: [string, string | null, string | null, string, number | null, Record<string, boolean>][] = [
    [cast.caseA, people.therapist.id, 'Hello', 'Welcome', 1, { to_patients: true, to_therapists: true, to_supervisors: true }],
    [cast.caseA, people.patient.id, 'Re: "hello"', CONTROL_BODY, 2, { to_therapists: true, to_counselors: true }],
    [cast.caseA, null, 'System', 'An interview was booked.', 3, { to_interviewers: true, to_patients: true, to_therapists: true }],
    [cast.caseA, people.counselor.id, null, LONG_BODY, 4, { to_counselors: true, to_supporters: true }],
    [cast.caseA, removed.id, 'From a supporter', 'Bye', 5, { to_supporters: true, to_therapists: true }],
    [cast.caseA, people.supervisor.id, 'Same time a', 'one', 6, { to_therapists: true, to_supervisors: true }],
    [cast.caseA, people.interviewer.id, 'Same time b', 'two', 6, { to_interviewers: true, to_patients: true, to_therapists: true }],
    [cast.caseA, people.therapist.id, 'draft', 'my draft', null, { to_patients: true }],
    [cast.caseA, people.counselor.id, null, 'draft\tof the counselor', null, {}],
    [cast.caseA, people.patient.id, 'patient draft', 'ع', null, { to_therapists: true }],
    [cases.anonymized, people.therapist.id, 'x', 'y', 7, { to_patients: true }],
  ];
  const ids: string[] = [];
  for (const [caseId, sender, subject, body, minutes, to] of messages) {
    const flags = Object.keys(to);
    const row = await pool.query<{ id: string }>(
      `insert into app_public.case_messages (case_id, sender_id, from_system, subject, body, sent_at, created_at${flags.map((f) => `, ${f}`).join('')})
       values ($1, $2::uuid, $2::uuid is null, $3, $4, $5, $6${flags.map(() => ', true').join('')}) returning id`,
      [caseId, sender, subject, body, minutes === null ? null : at(minutes), at(minutes === null ? 10 : minutes - 0.5)],
    );
    ids.push(row.rows[0]!.id);
  }
  await pool.query('delete from app_public.case_members where case_id = $1 and user_id = $2', [cast.caseA, removed.id]);
  // Read up to the third message (therapist), everything (supervisor), nothing (the rest); favorites.
  await pool.query(`update app_public.case_members set new_messages_after = $3 where case_id = $1 and user_id = $2`, [cast.caseA, people.therapist.id, at(3)]);
  await pool.query(`update app_public.case_members set new_messages_after = $3 where case_id = $1 and user_id = $2`, [cast.caseA, people.supervisor.id, at(100)]);
  await pool.query(`update app_public.case_members set favorite_message = $3 where case_id = $1 and user_id = $2`, [cast.caseA, people.therapist.id, ids[1]]);
  await pool.query(`update app_public.case_members set favorite_message = $3 where case_id = $1 and user_id = $2`, [cast.caseA, people.patient.id, ids[0]]);
  await pool.query(`update app_public.case_members set favorite_message = $3 where case_id = $1 and user_id = $2`, [cast.caseA, people.counselor.id, ids[3]]);
}, 240_000);

afterAll(async () => {
  await t?.close();
});

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('the compiled CaseWithMessages', () => {
  it('answers every reader and case byte for byte as PostGraphile does', async () => {
    const ids = [cast.caseA, cast.caseB, cases.lonely!, cases.anonymized!, UNKNOWN_ID, cast.caseA.toUpperCase()];
    let seen = 0;
    let messages = 0;
    for (const [who, person] of Object.entries(readers)) {
      for (const id of ids) {
        const label = `${who} ${id}`;
        const fast = await post(CASE_WITH_MESSAGES_QUERY, { id }, person.token, 'CaseWithMessages');
        const graphql = await post(`${CASE_WITH_MESSAGES_QUERY} `, { id }, person.token, 'CaseWithMessages');
        expect(fast.compiled, label).toBe('CaseWithMessages');
        expect(graphql.compiled, label).toBeNull();
        expect(fast.status, label).toBe(graphql.status);
        expect(fast.contentType, label).toBe(graphql.contentType);
        expect(JSON.parse(graphql.text).errors, label).toBeUndefined();
        expect(JSON.parse(fast.text), label).toEqual(JSON.parse(graphql.text));
        expect(fast.text, label).toBe(graphql.text);
        const found = JSON.parse(fast.text).data.caseById;
        if (found) {
          seen++;
          messages += found.sentMessagesList.length + found.unsentMessagesList.length;
        }
      }
    }
    expect(seen).toBeGreaterThan(12);
    expect(messages).toBeGreaterThan(40);
  }, 300_000);

  it('compares answers that hold every field (the data covers each of them)', async () => {
    const read = async (who: Person) => JSON.parse((await post(CASE_WITH_MESSAGES_QUERY, { id: cast.caseA }, who.token)).text).data.caseById;
    const therapist = await read(readers.therapist!);
    expect(therapist.patient).toMatchObject({ alias: 'Patient Ä', gender: 'FEMALE', excluded: true, isCounselingOnly: true });
    expect(therapist.description).toBe(CONTROL_BODY);
    expect(therapist.unsentMessagesList.map((m: { subject: string }) => m.subject)).toContain('draft');
    expect(therapist.sentMessagesList.some((m: { fromSystem: boolean; sender: unknown }) => m.fromSystem && m.sender === null)).toBe(true);
    expect(therapist.sentMessagesList.some((m: { isUnread: boolean }) => m.isUnread)).toBe(true);
    expect(therapist.sentMessagesList.some((m: { isUnread: boolean }) => !m.isUnread)).toBe(true);
    expect(therapist.sentMessagesList.filter((m: { isFavorite: boolean }) => m.isFavorite)).toHaveLength(1);
    expect(therapist.myInvolvement.favoriteMessage).not.toBeNull();
    expect(therapist.newMessages).toBeGreaterThan(0);
    expect(therapist.members.length).toBeGreaterThan(6);
    expect(therapist.members.some((m: { user: { lastLogin: string | null } }) => m.user?.lastLogin)).toBe(true);
    const coordinator = await read(readers.coordinator!);
    expect(coordinator.myInvolvement).toBeNull();
    expect(await read(readers.otherTherapist!)).toBeNull();
  });

  it('leaves a doubtful id or another variable to PostGraphile, which answers as before', async () => {
    const token = readers.therapist!.token;
    const variables: [string, unknown][] = [
      ['no id', {}],
      ['a null id', { id: null }],
      ['an id not a UUID', { id: 'not-a-uuid' }],
      ['an id without hyphens', { id: cast.caseA.replaceAll('-', '') }],
      ['an id of a number', { id: 5 }],
      ['an extra variable', { id: cast.caseA, first: 1 }],
      ['variables not an object', [cast.caseA]],
    ];
    for (const [label, value] of variables) {
      const exact = await post(CASE_WITH_MESSAGES_QUERY, value, token);
      const other = await post(`${CASE_WITH_MESSAGES_QUERY} `, value, token);
      expect(exact.compiled, label).toBeNull();
      expect({ ...exact, text: JSON.parse(exact.text) }, label).toEqual({ ...other, text: JSON.parse(other.text) });
    }
    const signedOut = await post(CASE_WITH_MESSAGES_QUERY, { id: cast.caseA }, undefined);
    expect(signedOut.compiled).toBeNull();
  });

  it('is answered by PostGraphile when GRAPHQL_COMPILED_LISTS is off', async () => {
    const off = await startTestApp({ GRAPHQL_COMPILED_LISTS: '0' });
    try {
      const person = await off.user({ flags: ['patient'] });
      const response = await fetch(`${off.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${person.token}` },
        body: JSON.stringify({ query: CASE_WITH_MESSAGES_QUERY, variables: { id: person.caseId } }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-sanad-compiled-list')).toBeNull();
      expect((await response.json()).data.caseById.id).toBe(person.caseId);
    } finally {
      await off.close();
    }
  });
});
