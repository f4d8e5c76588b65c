/**
 * Issue 28, item 6: safe retries. A write whose answer was lost (the client dropped the
 * connection before the answer came) is sent again with the same Idempotency-Key: the first
 * answer comes back and nothing happens twice — for a message, a questionnaire answer, a booking
 * and a task completion. The same key with another body is refused (422) and changes nothing;
 * another person's use of a key neither sees nor replays the first person's answer; two
 * requests with one key at once have one effect.
 */
import net from 'node:net';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import type { Person } from '../helpers/trial';

let t: TestApp;
let patient: Person;
let therapist: Person;
let coordinator: Person;
let interviewer: Person;
let caseId: string;

const SEND = `mutation SendMessage($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id body } } }`;
const OFFER = `mutation CreateOffer($startsAt: Datetime!, $endsAt: Datetime!) { createOffer(input: { startsAt: $startsAt, endsAt: $endsAt }) { interviewOffer { id } } }`;
const BOOK = `mutation BookInterview($offerId: UUID!, $caseId: UUID!) { bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }`;
const PHQ9 = { item1: 1, item2: 1, item3: 2, item4: 2, item5: 1, item6: 1, item7: 0, item8: 1, item9: 0, item10: 'somewhat' };

const newKey = () => crypto.randomUUID();

beforeAll(async () => {
  t = await startTestApp();
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
});
afterAll(async () => {
  await t?.close();
});

async function count(sql: string, values: unknown[]): Promise<number> {
  const { rows } = await t.database.db.pool.query<{ n: number }>(`select count(*)::int as n from ${sql}`, values);
  return rows[0]!.n;
}

function graphqlBody(query: string, variables: Record<string, unknown>) {
  return { query, variables };
}

/**
 * The answer is lost on its way back: the request goes over a raw connection, and the moment
 * the first byte of the answer arrives the client resets the connection without reading it (as
 * a proxy timeout, a dropped mobile link or a killed client does). The server ran the request
 * and kept its answer before sending it (onSend), so the key holds the answer by then.
 */
async function sendAndLoseAnswer(person: Person, method: string, path: string, body: unknown, key: string, contentType = 'application/json'): Promise<void> {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const { port } = new URL(t.url);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(
        [
          `${method} ${path} HTTP/1.1`,
          `host: 127.0.0.1:${port}`,
          `authorization: Bearer ${person.token}`,
          `content-type: ${contentType}`,
          `content-length: ${payload.length}`,
          `idempotency-key: ${key}`,
          '',
          '',
        ].join('\r\n'),
      );
      socket.write(payload);
    });
    socket.once('data', () => {
      socket.resetAndDestroy();
      resolve();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
  const kept = await count('app_private.idempotency_keys where user_id = $1 and key = $2 and status_code is not null', [person.id, key]);
  expect(kept, 'the answer was kept before it was sent').toBe(1);
}

function retry(person: Person, method: string, path: string, body: unknown, key: string) {
  return t.api(method, path, { body, token: person.token, headers: { 'idempotency-key': key } });
}

describe('a retry after a lost answer repeats nothing', () => {
  it('message: the retry gets the first message back, one message is stored', async () => {
    const body = graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Lost on the way back', toTherapists: true } } });
    const key = newKey();
    await sendAndLoseAnswer(patient, 'POST', '/api/graphql', body, key);
    const again = await retry(patient, 'POST', '/api/graphql', body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const id = again.body.data.createCaseMessage.caseMessage.id;
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Lost on the way back'`, [caseId])).toBe(1);
    const { rows } = await t.database.db.pool.query(`select id from app_public.case_messages where case_id = $1 and body = 'Lost on the way back'`, [caseId]);
    expect(rows[0].id).toBe(id);
    // Without a key the same request is a second message: the key is what prevents it.
    const unkeyed = await t.api('POST', '/api/graphql', { body, token: patient.token });
    expect(unkeyed.body.errors).toBeUndefined();
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Lost on the way back'`, [caseId])).toBe(2);
  });

  it('questionnaire answer: the retry gets the first 201 back instead of a conflict, one record', async () => {
    const body = { case_id: caseId, time_of_measurement: 'pre', ...PHQ9 };
    const key = newKey();
    await sendAndLoseAnswer(patient, 'POST', '/api/phq9', body, key);
    const again = await t.api('POST', '/api/phq9', { body, token: patient.token, headers: { 'idempotency-key': key, prefer: 'return=representation' } });
    // The lost request asked for no representation: the retry gets exactly what it got.
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(`app_public.phq9 where case_id = $1 and time_of_measurement = 'pre'`, [caseId])).toBe(1);
    // Without the key the insert runs again and is refused as a duplicate.
    const unkeyed = await t.api('POST', '/api/phq9', { body, token: patient.token });
    expect(unkeyed.status).toBe(409);
  });

  it('booking: the retry gets the first booking back, one booking', async () => {
    const start = Math.ceil((Date.now() + 3 * 86_400_000) / 60_000) * 60_000;
    const offer = await t.graphql(OFFER, { startsAt: new Date(start).toISOString(), endsAt: new Date(start + 3_600_000).toISOString() }, interviewer.token);
    const offerId = offer.data.createOffer.interviewOffer.id;
    const body = graphqlBody(BOOK, { offerId, caseId });
    const key = newKey();
    await sendAndLoseAnswer(patient, 'POST', '/api/graphql', body, key);
    const again = await retry(patient, 'POST', '/api/graphql', body, key);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.bookInterview.interviewBooking.id).toEqual(expect.any(String));
    expect(await count('app_public.interview_bookings where offer_id = $1', [offerId])).toBe(1);
    const { rows } = await t.database.db.pool.query('select sequence from app_public.interview_bookings where offer_id = $1', [offerId]);
    expect(rows[0].sequence).toBe(0);
  });

  it('task completion: the retry gets 204 back, the process moves on once', async () => {
    const other = await t.user({ flags: ['patient'] });
    const pool = t.database.db.pool;
    await pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [other.caseId]);
    await t.sanad.workflow.tick();
    const { rows } = await pool.query<{ id: string; process_instance_id: string }>(
      `select id, process_instance_id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'screeningTask' and end_time is null`,
      [other.caseId],
    );
    const task = rows[0]!;
    const path = `/api/workflow/rest/task/${task.id}/submit-form`;
    const key = newKey();
    await sendAndLoseAnswer(coordinator, 'POST', path, {}, key);
    const again = await retry(coordinator, 'POST', path, {}, key);
    expect(again.status).toBe(204);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await t.sanad.workflow.tick();
    expect(await count(`app_public.workflow_tasks where process_instance_id = $1 and task_definition_key = 'bookTask'`, [task.process_instance_id])).toBe(1);
    expect(await count(`app_public.workflow_history where process_instance_id = $1 and activity_id = 'interviewStage'`, [task.process_instance_id])).toBe(1);
    // Without the key the task is gone: the completion is not repeated but refused.
    expect((await t.api('POST', path, { body: {}, token: coordinator.token })).status).toBe(404);
  });
});

describe('uploads', () => {
  it('an uploaded document sent again after a lost answer is stored once', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    const path = `/api/downloads?${new URLSearchParams({ locale: 'en', title: 'Sent once', fileName: 'once.png' })}`;
    const key = newKey();
    await sendAndLoseAnswer(coordinator, 'POST', path, png, key, 'application/octet-stream');
    const again = await fetch(t.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${coordinator.token}`, 'content-type': 'application/octet-stream', 'idempotency-key': key },
      body: new Uint8Array(png),
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(`app_public.download_documents where title = 'Sent once'`, [])).toBe(1);
    // Other bytes under the same key are another request.
    const other = await fetch(t.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${coordinator.token}`, 'content-type': 'application/octet-stream', 'idempotency-key': key },
      body: new Uint8Array(Buffer.concat([png, Buffer.from([0])])),
    });
    expect(other.status).toBe(422);
    expect(await count(`app_public.download_documents where title = 'Sent once'`, [])).toBe(1);
  });
});

describe('what a key does not allow', () => {
  it('the same key with another body is refused with 422 and changes nothing', async () => {
    const key = newKey();
    const first = await retry(patient, 'POST', '/api/graphql', graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'First text', toTherapists: true } } }), key);
    expect(first.body.errors).toBeUndefined();
    const other = await retry(patient, 'POST', '/api/graphql', graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Other text', toTherapists: true } } }), key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: 'idempotency_key_reused', message: expect.stringContaining('different request') });
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Other text'`, [caseId])).toBe(0);
    // The same key on another route is another request too.
    expect((await retry(patient, 'POST', '/api/phq9', { case_id: caseId, time_of_measurement: 'post', ...PHQ9 }, key)).status).toBe(422);
    expect(await count(`app_public.phq9 where case_id = $1 and time_of_measurement = 'post'`, [caseId])).toBe(0);
  });

  it("another person's use of a key runs as their own request and never gets the first person's answer", async () => {
    const key = newKey();
    const body = graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Same words, two people', toTherapists: true } } });
    const mine = await retry(patient, 'POST', '/api/graphql', body, key);
    const theirs = await retry(therapist, 'POST', '/api/graphql', body, key);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.errors).toBeUndefined();
    expect(theirs.body.data.createCaseMessage.caseMessage.id).not.toBe(mine.body.data.createCaseMessage.caseMessage.id);
    const { rows } = await t.database.db.pool.query(`select sender_id from app_public.case_messages where case_id = $1 and body = 'Same words, two people' order by sender_id`, [caseId]);
    expect(rows.map((r) => r.sender_id).sort()).toEqual([patient.id, therapist.id].sort());
    // The request roles cannot read the kept answers at all.
    const peek = await t.graphql('{ __type(name: "IdempotencyKey") { name } }', {}, therapist.token);
    expect(peek.data?.__type ?? null).toBeNull();
  });

  it('two requests with one key at the same time have one effect', async () => {
    const key = newKey();
    const body = graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Sent twice at once', toTherapists: true } } });
    const answers = await Promise.all([retry(patient, 'POST', '/api/graphql', body, key), retry(patient, 'POST', '/api/graphql', body, key)]);
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Sent twice at once'`, [caseId])).toBe(1);
    for (const answer of answers) {
      // Either the answer (first or replayed) or "still running, try again".
      if (answer.status === 409) {
        expect(answer.body.error).toBe('idempotency_key_in_use');
        expect(answer.headers.get('retry-after')).toBe('1');
      } else {
        expect(answer.status).toBe(200);
        expect(answer.body.data.createCaseMessage.caseMessage.body).toBe('Sent twice at once');
      }
    }
    expect(answers.some((a) => a.status === 200)).toBe(true);
    // Once the first has finished, a retry always gets its answer.
    const later = await retry(patient, 'POST', '/api/graphql', body, key);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Sent twice at once'`, [caseId])).toBe(1);
  });

  it('a malformed key is refused with a message a person can act on', async () => {
    const body = graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Bad key', toTherapists: true } } });
    const refused = await retry(patient, 'POST', '/api/graphql', body, 'short');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'idempotency_key_invalid' });
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Bad key'`, [caseId])).toBe(0);
  });

  it('the account routes keep nothing: their answers carry tokens', async () => {
    const key = newKey();
    const body = { username: patient.username, password: patient.password };
    const signIn = await t.api('POST', '/api/auth/tokens', { body, token: patient.token, headers: { 'idempotency-key': key } });
    expect(signIn.status).toBe(201);
    expect(await count('app_private.idempotency_keys where user_id = $1 and key = $2', [patient.id, key])).toBe(0);
  });

  it('keys expire: after the time to live the key is free again', async () => {
    const key = newKey();
    const body = graphqlBody(SEND, { input: { caseMessage: { caseId, body: 'Kept for a day', toTherapists: true } } });
    await retry(patient, 'POST', '/api/graphql', body, key);
    await t.database.db.pool.query(`update app_private.idempotency_keys set expires_at = now() - interval '1 second' where user_id = $1 and key = $2`, [patient.id, key]);
    const { rows } = await t.database.db.pool.query('select app_private.idempotency_sweep() as n');
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
    const again = await retry(patient, 'POST', '/api/graphql', body, key);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(`app_public.case_messages where case_id = $1 and body = 'Kept for a day'`, [caseId])).toBe(2);
  });
});
