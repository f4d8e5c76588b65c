/**
 * Case messaging under row-level security: the visibility matrix (each sender role × each
 * recipient group × draft/sent × each viewer), the record rules, unread state, favourites,
 * case search and the content-free notification mails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { createLogger } from '../../src/server/logger';
import { processNotifications } from '../../src/server/notifications/worker';
import { RECIPIENT_GROUPS } from '../../src/domain/messages';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
const m: Record<string, Person> = {};
let caseId: string;
let otherCaseId: string;
const ROLES = ['patient', 'therapist', 'supervisor', 'supporter', 'counselor', 'interviewer'] as const;

beforeAll(async () => {
  t = await startTestApp({ NOTIFICATION_QUIET_SECONDS: '3600' });
  m.patient = await t.user({ flags: ['patient'], locale: 'en' });
  caseId = m.patient.caseId!;
  for (const role of ROLES.slice(1)) {
    m[role] = await t.user({ flags: [role === 'counselor' ? 'counselor' : role], locale: 'de' });
    await addMember(t.database.db.pool, caseId, m[role]!.username, [role]);
  }
  m.coordinator = await t.user({ flags: ['coordinator'] });
  m.outsider = await t.user({ flags: ['therapist'] });
  m.otherPatient = await t.user({ flags: ['patient'] });
  otherCaseId = m.otherPatient.caseId!;
  await addMember(t.database.db.pool, otherCaseId, m.outsider.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

const CREATE = `mutation($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id sentAt senderId } } }`;
async function send(sender: Person, message: Record<string, unknown>) {
  return t.graphql(CREATE, { input: { caseMessage: { caseId, body: 'How are you this week?', ...message } } }, sender.token);
}
async function visible(viewer: Person, id: string): Promise<boolean> {
  const result = await t.graphql(`query($id: UUID!) { caseMessageById(id: $id) { id } }`, { id }, viewer.token);
  expect(result.errors).toBeUndefined();
  return result.data.caseMessageById !== null;
}

describe('visibility matrix', () => {
  for (const senderRole of ['patient', 'therapist'] as const) {
    for (const { group, flag, role: addressed } of RECIPIENT_GROUPS) {
      for (const state of ['draft', 'sent'] as const) {
        it(`${senderRole} → ${group}, ${state}`, async () => {
          const created = await send(m[senderRole]!, { [flag]: true, ...(state === 'sent' ? { sentAt: new Date().toISOString() } : {}) });
          if (senderRole === 'patient' && group === 'patients') {
            // A patient cannot address the patient group: refused, nothing stored.
            expect(created.errors?.[0]?.message).toMatch(/row-level security|not allowed/i);
            return;
          }
          expect(created.errors).toBeUndefined();
          const id = created.data.createCaseMessage.caseMessage.id;
          for (const viewer of [...ROLES, 'coordinator', 'outsider', 'otherPatient']) {
            // A coordinator oversees the trial and reads every sent message (0140); drafts stay private.
            const expected = viewer === senderRole || (state === 'sent' && (viewer === addressed || viewer === 'coordinator'));
            expect(`${viewer}: ${await visible(m[viewer]!, id)}`).toBe(`${viewer}: ${expected}`);
          }
        });
      }
    }
  }
});

describe('the case record', () => {
  it('stamps sentAt on the server and records the signed-in sender', async () => {
    const created = await send(m.therapist!, { toPatients: true, sentAt: '2001-01-01T00:00:00Z' });
    const message = created.data.createCaseMessage.caseMessage;
    expect(message.senderId).toBe(m.therapist!.id);
    expect(Math.abs(new Date(message.sentAt).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('cannot pose as another sender', async () => {
    const posed = await send(m.patient!, { toTherapists: true, senderId: m.therapist!.id });
    expect(posed.errors?.[0]?.message).toMatch(/senderId/);
  });

  it('refuses an empty body, an unknown case and a case one is not in, storing nothing', async () => {
    const before = await t.database.db.pool.query('select count(*) as n from app_public.case_messages');
    const empty = await send(m.patient!, { body: '   ', toTherapists: true });
    expect(empty.errors?.[0]?.extensions?.code).toBe('23514');
    const unknown = await t.graphql(CREATE, { input: { caseMessage: { caseId: '00000000-0000-4000-8000-000000000000', body: 'x', toTherapists: true } } }, m.patient!.token);
    expect(unknown.errors?.length).toBeGreaterThan(0);
    const foreign = await t.graphql(CREATE, { input: { caseMessage: { caseId: otherCaseId, body: 'x', toTherapists: true } } }, m.patient!.token);
    expect(foreign.errors?.length).toBeGreaterThan(0);
    const noRecipients = await send(m.therapist!, { sentAt: new Date().toISOString() });
    expect(noRecipients.errors?.[0]?.extensions?.code).toBe('23514');
    const after = await t.database.db.pool.query('select count(*) as n from app_public.case_messages');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('lets the sender edit, send and delete a draft', async () => {
    const draft = (await send(m.patient!, { toTherapists: true, subject: 'Draft' })).data.createCaseMessage.caseMessage;
    const edited = await t.graphql(
      `mutation($id: UUID!) { updateCaseMessageById(input: { id: $id, caseMessagePatch: { body: "Edited", toSupporters: true } }) { caseMessage { body toSupporters sentAt } } }`,
      { id: draft.id },
      m.patient!.token,
    );
    expect(edited.data.updateCaseMessageById.caseMessage).toEqual({ body: 'Edited', toSupporters: true, sentAt: null });
    const other = await t.graphql(`mutation($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }`, { id: draft.id }, m.therapist!.token);
    expect(other.errors?.[0]?.extensions?.code).toBe('NOT_FOUND_OR_DENIED');
    const deleted = await t.graphql(`mutation($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }`, { id: draft.id }, m.patient!.token);
    expect(deleted.errors).toBeUndefined();
  });

  it('never changes or deletes a sent message', async () => {
    const sent = (await send(m.patient!, { toTherapists: true, sentAt: new Date().toISOString() })).data.createCaseMessage.caseMessage;
    const edit = await t.graphql(`mutation($id: UUID!) { updateCaseMessageById(input: { id: $id, caseMessagePatch: { body: "Rewritten" } }) { caseMessage { id } } }`, { id: sent.id }, m.patient!.token);
    expect(edit.errors?.[0]?.message).toBe('A sent message is part of the case record and cannot be changed');
    expect(edit.errors?.[0]?.extensions?.code).toBe('SENT_MESSAGE_IMMUTABLE');
    const del = await t.graphql(`mutation($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }`, { id: sent.id }, m.patient!.token);
    expect(del.errors?.[0]?.message).toBe('A sent message is part of the case record and cannot be deleted');
    const { rows } = await t.database.db.pool.query('select body from app_public.case_messages where id = $1', [sent.id]);
    expect(rows[0].body).toBe('How are you this week?');
  });

  it('logs messages in the audit log without their text', async () => {
    const sent = (await send(m.therapist!, { toPatients: true, subject: 'Secret subject', body: 'Secret body', sentAt: new Date().toISOString() })).data.createCaseMessage.caseMessage;
    const { rows } = await t.database.db.pool.query(`select new_data from app_public.audit_log where record_id = $1`, [sent.id]);
    expect(rows[0].new_data.to_patients).toBe(true);
    expect(JSON.stringify(rows)).not.toMatch(/Secret/);
  });
});

describe('unread state and favourites', () => {
  const CASE = `query($id: UUID!) { caseById(id: $id) { newMessages latestMessage { id } myInvolvement { newMessagesAfter favoriteMessage } sentMessagesList { id isUnread isFavorite } unsentMessagesList { id } } }`;

  it('counts new messages from others, clears when read, and moves the sender’s own mark', async () => {
    await t.graphql(`mutation($c: UUID!) { updateNewMessagesAfter(input: { caseId: $c, newMessagesAfter: "2100-01-01T00:00:00Z" }) { caseMember { id } } }`, { c: caseId }, m.supervisor!.token);
    const sent = (await send(m.therapist!, { toSupervisors: true, sentAt: new Date().toISOString() })).data.createCaseMessage.caseMessage;
    const before = (await t.graphql(CASE, { id: caseId }, m.supervisor!.token)).data.caseById;
    expect(before.newMessages).toBe(1);
    expect(before.latestMessage.id).toBe(sent.id);
    expect(before.sentMessagesList.find((x: { id: string }) => x.id === sent.id).isUnread).toBe(true);
    const marked = await t.graphql(
      `mutation($c: UUID!, $at: Datetime!) { updateNewMessagesAfter(input: { caseId: $c, newMessagesAfter: $at }) { caseMember { newMessagesAfter } } }`,
      { c: caseId, at: new Date(Date.now() + 5000).toISOString() },
      m.supervisor!.token,
    );
    expect(marked.errors).toBeUndefined();
    const after = (await t.graphql(CASE, { id: caseId }, m.supervisor!.token)).data.caseById;
    expect(after.newMessages).toBe(0);
    // The therapist wrote it, so it is not new for them.
    const sender = (await t.graphql(CASE, { id: caseId }, m.therapist!.token)).data.caseById;
    expect(sender.sentMessagesList.find((x: { id: string }) => x.id === sent.id).isUnread).toBe(false);
  });

  it('refuses marking read for a non-member, but not for a coordinator', async () => {
    const mark = `mutation($c: UUID!) { updateNewMessagesAfter(input: { caseId: $c, newMessagesAfter: "2020-01-01T00:00:00Z" }) { caseMember { id } } }`;
    const outsider = await t.graphql(mark, { c: caseId }, m.outsider!.token);
    expect(outsider.errors?.[0]?.message).toBe('Not involved in this case');
    expect(outsider.errors?.[0]?.extensions?.code).toBe('NOT_INVOLVED');
    const coordinator = await t.graphql(mark, { c: caseId }, m.coordinator!.token);
    expect(coordinator.errors).toBeUndefined();
  });

  it('never moves the last-read mark backwards, and reads it as a real time', async () => {
    const query = `query($id: UUID!) { caseById(id: $id) { myInvolvement { newMessagesAfter } } }`;
    const before = (await t.graphql(query, { id: caseId }, m.counselor!.token)).data.caseById.myInvolvement.newMessagesAfter;
    expect(new Date(before).getTime()).not.toBeNaN();
    await t.graphql(`mutation($c: UUID!) { updateNewMessagesAfter(input: { caseId: $c, newMessagesAfter: "2026-01-01T00:00:00Z" }) { caseMember { id } } }`, { c: caseId }, m.counselor!.token);
    await t.graphql(`mutation($c: UUID!) { updateNewMessagesAfter(input: { caseId: $c, newMessagesAfter: "2020-01-01T00:00:00Z" }) { caseMember { id } } }`, { c: caseId }, m.counselor!.token);
    const after = (await t.graphql(query, { id: caseId }, m.counselor!.token)).data.caseById.myInvolvement.newMessagesAfter;
    expect(new Date(after).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('pins and unpins a favourite message', async () => {
    const sent = (await send(m.therapist!, { toPatients: true, sentAt: new Date().toISOString() })).data.createCaseMessage.caseMessage;
    const fav = `mutation($id: UUID!, $on: Boolean!) { updateFavoriteMessage(input: { messageId: $id, isFavorite: $on }) { caseMember { favoriteMessage } } }`;
    expect((await t.graphql(fav, { id: sent.id, on: true }, m.patient!.token)).data.updateFavoriteMessage.caseMember.favoriteMessage).toBe(sent.id);
    const listed = (await t.graphql(CASE, { id: caseId }, m.patient!.token)).data.caseById.sentMessagesList;
    expect(listed.find((x: { id: string }) => x.id === sent.id).isFavorite).toBe(true);
    expect((await t.graphql(fav, { id: sent.id, on: false }, m.patient!.token)).data.updateFavoriteMessage.caseMember.favoriteMessage).toBeNull();
    const hidden = await t.graphql(fav, { id: sent.id, on: true }, m.supervisor!.token);
    expect(hidden.errors?.[0]?.message).toMatch(/does not exist, or you cannot see it/);
  });

  it('lists drafts newest created first and sent messages newest sent first', async () => {
    const result = (await t.graphql(CASE, { id: caseId }, m.therapist!.token)).data.caseById;
    const { rows } = await t.database.db.pool.query(
      `select id from app_public.case_messages where case_id = $1 and sent_at is not null and (sender_id = $2 or to_therapists) order by sent_at desc, id`,
      [caseId, m.therapist!.id],
    );
    expect(result.sentMessagesList.map((x: { id: string }) => x.id)).toEqual(rows.map((r) => r.id));
  });
});

describe('case lists', () => {
  it('finds a case by the patient’s username with its similarity, and filters by stage', async () => {
    const query = `query($s: String, $stage: String) { caseList(search: $s, stage: $stage, first: 100) { nodes { id shortId stage searchSimilarity(search: $s) newMessages } } }`;
    const found = await t.graphql(query, { s: m.patient!.username }, m.coordinator!.token);
    expect(found.errors).toBeUndefined();
    expect(found.data.caseList.nodes[0].id).toBe(caseId);
    expect(found.data.caseList.nodes[0].searchSimilarity).toBe(1);
    const byShortId = await t.graphql(query, { s: found.data.caseList.nodes[0].shortId.slice(0, 5) }, m.coordinator!.token);
    expect(byShortId.data.caseList.nodes.map((n: { id: string }) => n.id)).toContain(caseId);
    const staged = await t.graphql(query, { stage: 'no-such-stage' }, m.coordinator!.token);
    expect(staged.data.caseList.nodes).toEqual([]);
  });

  it('never lists cases in anonymization, and shows staff only their cases', async () => {
    const anonymized = await t.user({ flags: ['patient'] });
    await t.database.db.pool.query(`update app_public.cases set stage = 'anonymization' where id = $1`, [anonymized.caseId]);
    const all = await t.graphql(`{ caseList(first: 100) { nodes { id } } }`, {}, m.coordinator!.token);
    const ids = all.data.caseList.nodes.map((n: { id: string }) => n.id);
    expect(ids).toContain(caseId);
    expect(ids).not.toContain(anonymized.caseId);
    const own = await t.graphql(`{ caseList(first: 100) { nodes { id } } }`, {}, m.outsider!.token);
    expect(own.data.caseList.nodes.map((n: { id: string }) => n.id)).toEqual([otherCaseId]);
  });

  it('filters unassigned cases (no therapist or counselor yet)', async () => {
    const fresh = await t.user({ flags: ['patient'] });
    const result = await t.graphql(`{ pagedCases(filterUnassigned: true, first: 200) { nodes { id } } }`, {}, m.coordinator!.token);
    const ids = result.data.pagedCases.nodes.map((n: { id: string }) => n.id);
    expect(ids).toContain(fresh.caseId);
    expect(ids).not.toContain(caseId);
  });
});

describe('notifications', () => {
  it('mails each recipient once per quiet period, in their language, without the message', async () => {
    await t.database.db.pool.query('delete from app_private.notification_queue');
    t.smtp.clear();
    const ctx = { pool: t.database.db.pool, config: t.config, mailer: t.sanad.mailer, log: createLogger({ logLevel: 'silent' }) };
    await send(m.therapist!, { toPatients: true, toSupporters: true, body: 'Private words about sleep', sentAt: new Date().toISOString() });
    await send(m.therapist!, { toPatients: true, body: 'A second note', sentAt: new Date().toISOString() });
    const counts = await processNotifications(ctx);
    expect(counts).toEqual({ sent: 2, quiet: 1, failed: 0 });
    const patientMail = await t.smtp.waitFor(m.patient!.email, /new message/);
    expect(patientMail.text).toContain('http://sanad.test/conversation');
    expect(patientMail.text).not.toMatch(/sleep|second note/);
    const supporterMail = await t.smtp.waitFor(m.supporter!.email, /neue Nachricht/);
    expect(supporterMail.text).not.toMatch(/sleep/);
    expect(t.smtp.mails.some((mail) => mail.to.includes(m.therapist!.email.toLowerCase()))).toBe(false);
    // Within the quiet period a further message queues no new mail.
    await send(m.therapist!, { toPatients: true, body: 'Third', sentAt: new Date().toISOString() });
    expect(await processNotifications(ctx)).toEqual({ sent: 0, quiet: 1, failed: 0 });
  });
});

describe('GET /api/my_messages', () => {
  it('lists the person’s messages with unread state, and never another case’s', async () => {
    const sent = (await send(m.therapist!, { toPatients: true, body: 'For the patient', sentAt: new Date().toISOString() })).data.createCaseMessage.caseMessage;
    const mine = await t.api('GET', '/api/my_messages?select=id,case_id,is_unread&is_unread=is.true', { token: m.patient!.token });
    expect(mine.status).toBe(200);
    expect(mine.body.map((r: { id: string }) => r.id)).toContain(sent.id);
    expect(mine.body.every((r: { case_id: string; is_unread: boolean }) => r.case_id === caseId && r.is_unread)).toBe(true);
    const other = await t.api('GET', '/api/my_messages?select=id,case_id', { token: m.otherPatient!.token });
    expect(other.body.some((r: { case_id: string }) => r.case_id === caseId)).toBe(false);
    const supervisor = await t.api('GET', `/api/my_messages?id=eq.${sent.id}`, { token: m.supervisor!.token });
    expect(supervisor.body).toEqual([]);
  });

  it('is read-only and answers bad filters with a PostgREST error', async () => {
    const post = await t.api('POST', '/api/my_messages', { token: m.patient!.token, body: { body: 'x' } });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(post.status).toBeLessThan(500);
    const bad = await t.api('GET', '/api/my_messages?sent_at=gt.not-a-time', { token: m.patient!.token });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.code).toBe('string');
    expect(typeof bad.body.message).toBe('string');
    const anonymous = await t.api('GET', '/api/my_messages');
    expect(anonymous.status).toBe(401);
  });
});
