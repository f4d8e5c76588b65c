/**
 * Issue 14, worksheets: who may write and read each worksheet collection and the therapist's
 * feedback, for every case role of case A, outsider staff, a coordinator and another case's
 * patient and therapist; a sent entry never changes for anyone (the connection owner
 * included); bad input is a 4xx that stores nothing; sending queues content-free mails.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSHEETS, WORKSHEET_CODES, type WorksheetCode } from '../../src/domain/worksheets';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, STAFF_ROLES } from '../helpers/people';
import type { Person } from '../helpers/trial';
import { withOwner } from '../../src/server/db/transaction';

let t: TestApp;
const people: Record<string, Person> = {};
let caseA: string, caseB: string;

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t);
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const CARE_TEAM = STAFF_ROLES;
const OUTSIDERS = ['outsider', 'coordinator', 'otherPatient', 'otherTherapist'] as const;
const EVERYONE = ['patient', ...CARE_TEAM, ...OUTSIDERS];

/** A filled draft of a worksheet, by its own fields. */
function filled(code: WorksheetCode, caseId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const row: Record<string, unknown> = { id: randomUUID(), case_id: caseId };
  for (const field of WORKSHEETS[code].fields) {
    row[field.name] = field.kind === 'scale' ? 7 : field.kind === 'choices' ? ['mind_reading'] : `${field.name} text`;
  }
  return { ...row, ...extra };
}

/** A statement as the connection owner (no row-level security), in its own transaction. */
const asOwner = (text: string, values: unknown[]) => withOwner(t.database.db.pool, (sql) => sql.query(text, values));

const post = (code: string, body: unknown, who: string) =>
  t.api('POST', `/api/${code}`, {
    body,
    token: people[who]!.token,
    headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
  });

async function stored(code: string, id: string) {
  const { rows } = await t.database.db.pool.query(`select * from app_public.${code} where id = $1`, [id]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe.each(WORKSHEET_CODES)('%s', (code) => {
  it('only the patient of the case writes a draft; everyone else is refused and nothing is stored', async () => {
    for (const who of EVERYONE) {
      for (const caseId of [caseA, caseB]) {
        const row = filled(code, caseId);
        const answer = await post(code, row, who);
        const allowed = who === 'patient' && caseId === caseA || who === 'otherPatient' && caseId === caseB;
        if (allowed) {
          expect(answer.status, `${who} → ${caseId === caseA ? 'A' : 'B'}`).toBe(201);
          expect(answer.body[0].submitter_id).toBe(people[who]!.id);
        } else {
          expect(answer.status, `${who} → ${caseId === caseA ? 'A' : 'B'}`).toBeGreaterThanOrEqual(400);
          expect(await stored(code, row.id as string)).toBeUndefined();
        }
      }
    }
  });

  it('a draft is read by its writer only; a sent entry by the patient and the care team, never by others', async () => {
    const draft = filled(code, caseA);
    const sent = filled(code, caseA, { published_at: '2001-01-01T00:00:00Z' });
    expect((await post(code, [draft, sent], 'patient')).status).toBe(201);
    const sentRow = await stored(code, sent.id as string);
    // the server's clock, not the client's
    expect(new Date(sentRow!.published_at as string).getFullYear()).toBeGreaterThan(2001);
    for (const who of EVERYONE) {
      const answer = await t.api('GET', `/api/${code}?id=in.(${draft.id},${sent.id})&select=id`, { token: people[who]!.token });
      expect(answer.status).toBe(200);
      const ids = (answer.body as { id: string }[]).map((r) => r.id).sort();
      const expected = who === 'patient' ? [draft.id, sent.id].sort() : (CARE_TEAM as string[]).includes(who) ? [sent.id] : [];
      expect(ids, who).toEqual(expected);
    }
  });

  it('a sent entry cannot be changed or deleted by anyone, the connection owner included', async () => {
    const row = filled(code, caseA);
    expect((await post(code, row, 'patient')).status).toBe(201);
    const field = WORKSHEETS[code].required;
    // still a draft: the patient may change it
    expect((await post(code, { id: row.id, case_id: caseA, [field]: 'changed while a draft' }, 'patient')).status).toBe(201);
    // sending posts the whole entry once more, with published_at
    const send = await post(code, { ...row, [field]: 'changed while a draft', published_at: new Date().toISOString() }, 'patient');
    expect(send.status).toBe(201);
    const before = await stored(code, row.id as string);
    for (const who of EVERYONE) {
      const change = await post(code, { id: row.id, case_id: caseA, [field]: 'rewritten' }, who);
      expect(change.status, who).toBeGreaterThanOrEqual(400);
      const unsend = await post(code, { id: row.id, case_id: caseA, published_at: null }, who);
      expect(unsend.status, who).toBeGreaterThanOrEqual(400);
      await t.api('DELETE', `/api/${code}?id=eq.${row.id}`, { token: people[who]!.token });
    }
    const patientChange = await post(code, { id: row.id, case_id: caseA, [field]: 'rewritten' }, 'patient');
    expect(patientChange.status).toBe(400);
    expect(patientChange.body.message).toMatch(/sent/);
    const patientDelete = await t.api('DELETE', `/api/${code}?id=eq.${row.id}`, { token: people.patient!.token });
    expect(patientDelete.status).toBe(400);
    await expect(asOwner(`update app_public.${code} set ${field} = 'by the owner' where id = $1`, [row.id])).rejects.toThrow(/cannot be changed/);
    await expect(asOwner(`delete from app_public.${code} where id = $1`, [row.id])).rejects.toThrow(/cannot be changed/);
    expect(await stored(code, row.id as string)).toEqual(before);
  });

  it('sending an empty worksheet is refused with a clear 400 and nothing changes', async () => {
    const row = { id: randomUUID(), case_id: caseA, published_at: new Date().toISOString() };
    const answer = await post(code, row, 'patient');
    expect(answer.status).toBe(400);
    // Issue 27: the refusal's code and sentence, never the constraint's name.
    expect(JSON.stringify(answer.body)).toMatch(/sent_needs_content/);
    expect(JSON.stringify(answer.body)).not.toMatch(/sent_is_filled/);
    expect(await stored(code, row.id)).toBeUndefined();
  });
});

describe('bad input', () => {
  it('an unknown field, an out-of-range importance and an unknown thinking trap are 400 and store nothing', async () => {
    const unknown = await post('cbt_thoughts', { ...filled('cbt_thoughts', caseA), mood: 3 }, 'patient');
    expect(unknown.status).toBe(400);
    const importance = filled('ipt_conflicts', caseA, { importance: 11 });
    expect((await post('ipt_conflicts', importance, 'patient')).status).toBe(400);
    expect(await stored('ipt_conflicts', importance.id as string)).toBeUndefined();
    const bias = filled('cbt_thoughts', caseA, { cognitive_biases: ['mind_reading', 'astrology'] });
    const answer = await post('cbt_thoughts', bias, 'patient');
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).not.toMatch(/cognitive_biases_known/);
    expect(await stored('cbt_thoughts', bias.id as string)).toBeUndefined();
  });

  it('an entry stays in its case', async () => {
    const row = filled('cbt_activities', caseA);
    expect((await post('cbt_activities', row, 'patient')).status).toBe(201);
    const moved = await asOwner(`update app_public.cbt_activities set case_id = $2 where id = $1`, [row.id, caseB]).catch((e: Error) => e);
    expect(moved).toBeInstanceOf(Error);
  });
});

describe('feedback', () => {
  let sent: Record<string, unknown>;
  let draft: Record<string, unknown>;
  beforeAll(async () => {
    sent = filled('cbt_thoughts', caseA, { published_at: new Date().toISOString() });
    draft = filled('cbt_thoughts', caseA);
    expect((await post('cbt_thoughts', [sent, draft], 'patient')).status).toBe(201);
  });
  const feedback = (entry: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: randomUUID(), case_id: caseA, worksheet: 'cbt_thoughts', worksheet_id: entry.id, body: 'Well noticed.', ...extra,
  });

  it('the therapist and counselor of the case answer a sent entry; nobody else may', async () => {
    for (const who of EVERYONE) {
      const row = feedback(sent);
      const answer = await post('worksheet_feedback', row, who);
      if (who === 'therapist' || who === 'counselor') expect(answer.status, who).toBe(201);
      else {
        expect(answer.status, who).toBeGreaterThanOrEqual(400);
        const { rows } = await t.database.db.pool.query('select 1 from app_public.worksheet_feedback where id = $1', [row.id]);
        expect(rows, who).toEqual([]);
      }
    }
  });

  it('a draft entry cannot be answered, nor an entry of another case', async () => {
    const onDraft = await post('worksheet_feedback', feedback(draft), 'therapist');
    expect(onDraft.status).toBe(400);
    expect(onDraft.body.message).toMatch(/sent worksheet entry/);
    const other = filled('cbt_thoughts', caseB, { published_at: new Date().toISOString() });
    expect((await post('cbt_thoughts', other, 'otherPatient')).status).toBe(201);
    expect((await post('worksheet_feedback', feedback(other), 'therapist')).status).toBe(400);
  });

  it('the patient reads sent feedback only, it never changes, and mails without content are queued', async () => {
    const { rows: queuedBefore } = await t.database.db.pool.query(
      `select kind, user_id from app_private.notification_queue where case_id = $1 and kind in ('new_worksheet', 'worksheet_feedback')`,
      [caseA],
    );
    expect(queuedBefore.filter((r) => r.kind === 'new_worksheet').map((r) => r.user_id)).toContain(people.therapist!.id);
    const draftFeedback = feedback(sent, { body: 'draft words' });
    expect((await post('worksheet_feedback', draftFeedback, 'therapist')).status).toBe(201);
    const seen = async () =>
      ((await t.api('GET', `/api/worksheet_feedback?id=eq.${draftFeedback.id}&select=id`, { token: people.patient!.token })).body as unknown[]).length;
    expect(await seen()).toBe(0);
    expect((await post('worksheet_feedback', { ...draftFeedback, published_at: new Date().toISOString() }, 'therapist')).status).toBe(201);
    expect(await seen()).toBe(1);
    const changed = await post('worksheet_feedback', { id: draftFeedback.id, case_id: caseA, body: 'rewritten' }, 'therapist');
    expect(changed.status).toBe(400);
    await expect(asOwner(`update app_public.worksheet_feedback set body = 'x' where id = $1`, [draftFeedback.id])).rejects.toThrow(/cannot be changed/);
    const { rows: queued } = await t.database.db.pool.query(
      `select user_id from app_private.notification_queue where case_id = $1 and kind = 'worksheet_feedback'`,
      [caseA],
    );
    expect(queued.map((r) => r.user_id)).toContain(people.patient!.id);
  });
});
