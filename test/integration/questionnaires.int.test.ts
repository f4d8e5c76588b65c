/**
 * The questionnaire collections (spec §3, §7) over real HTTP and a real database: upserts of
 * one record per case and time, scores computed by the server and shown to the care team only,
 * bad input refused with nothing stored, row-level security per role, deletes, the screening
 * exclusions of spec §4 at their thresholds, and a standard PostgREST client.
 */
import { PostgrestClient } from '@supabase/postgrest-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { INSTRUMENT_CODES, INSTRUMENTS, shownItems, type AnswerValue, type InstrumentDefinition, type ItemDefinition } from '../../src/domain/instruments';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, therapist: Person, coordinator: Person, outsider: Person, otherPatient: Person;
let caseId: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const PHQ9 = { item1: 1, item2: 1, item3: 2, item4: 2, item5: 1, item6: 1, item7: 0, item8: 1, item9: 2, item10: 'somewhat' };

beforeAll(async () => {
  t = await startTestApp();
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  otherPatient = await t.user({ flags: ['patient'] });
  outsider = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, otherPatient.caseId!, outsider.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

function post(person: Person, collection: string, body: unknown, headers: Record<string, string> = UPSERT) {
  return t.api('POST', `/api/${collection}`, { body, token: person.token, headers });
}

function get(person: Person, path: string) {
  return t.api('GET', path, { token: person.token });
}

/** The stored row as the owner sees it, scores included. */
async function stored(collection: string, where: string, values: unknown[]): Promise<Record<string, any>[]> {
  return (await t.database.db.pool.query(`select * from app_public.${collection} where ${where}`, values)).rows;
}

async function account(person: Person): Promise<Record<string, boolean>> {
  const { rows } = await t.database.db.pool.query(
    `select excluded, excluded_for_bdi_gte45, excluded_for_lack_of_email, excluded_for_lack_of_internet_access, excluded_for_minor_age,
            excluded_for_no_trauma_or_low_bdi, excluded_for_upcoming_treatment
       from app_public.users where id = $1`,
    [person.id],
  );
  return rows[0];
}

describe('POST with merge-duplicates', () => {
  it('stores one record per case and time of measurement and scores it on the server', async () => {
    const created = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'pre', ...PHQ9 });
    expect(created.status).toBe(201);
    expect(created.body).toHaveLength(1);
    const [row] = created.body;
    expect(row).toMatchObject({ case_id: caseId, time_of_measurement: 'pre', submitter_id: patient.id, ...PHQ9 });

    const read = await get(therapist, `/api/phq9?case_id=eq.${caseId}&time_of_measurement=eq.pre`);
    expect(read.body).toEqual([
      expect.objectContaining({
        id: row.id,
        total: 11,
        band: 'moderate',
        subscales: { phq2: 2 },
        flags: ['suicide_item', 'screen_positive'],
        diagnoses: { major_depressive_syndrome: false, other_depressive_syndrome: false },
        complete: true,
      }),
    ]);

    // The same case and time again: the record is updated, not duplicated, and rescored.
    const updated = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'pre', ...PHQ9, item9: 0 });
    expect(updated.status).toBe(201);
    expect(updated.body).toHaveLength(1);
    expect(updated.body[0].id).toBe(row.id);
    const rows = await stored('phq9', 'case_id = $1', [caseId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ item9: 0, total: '9', band: 'mild', flags: [] });
  });

  it('merges a partial answer into the stored ones and scores the whole record', async () => {
    const partial = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'pre', item1: 3 });
    expect(partial.status).toBe(201);
    const [row] = await stored('phq9', 'case_id = $1 and time_of_measurement = $2', [caseId, 'pre']);
    expect(row).toMatchObject({ item1: 3, item2: 1, item9: 0, total: '11', band: 'moderate', complete: true, flags: ['screen_positive', 'phq2_positive'] });
  });

  it('keeps an unfinished record without a total, but raises a safety flag at once', async () => {
    const draft = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'post', item9: 1 });
    expect(draft.status).toBe(201);
    const [row] = await stored('phq9', 'case_id = $1 and time_of_measurement = $2', [caseId, 'post']);
    expect(row).toMatchObject({ total: null, band: null, complete: false, flags: ['suicide_item'] });
    // PHQ-9 item 9 itself can be asked for, by everyone in the case.
    const flagged = await get(patient, `/api/phq9?select=time_of_measurement,item9&case_id=eq.${caseId}&item9=gte.1`);
    expect(flagged.body).toEqual([{ time_of_measurement: 'post', item9: 1 }]);
  });

  it('refuses scores sent by the client, storing nothing', async () => {
    const before = await stored('phq9', 'case_id = $1', [caseId]);
    for (const score of [{ total: 0 }, { flags: [] }, { band: 'minimal' }, { complete: true }]) {
      const response = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'pre', ...PHQ9, ...score });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('PGRST204');
      expect(response.body.message).toBe(`The '${Object.keys(score)[0]}' column of 'phq9' cannot be written`);
    }
    expect(await stored('phq9', 'case_id = $1', [caseId])).toEqual(before);
  });

  it('refuses answers off the scale, unknown columns and hidden items with a PostgREST error, storing nothing', async () => {
    const before = await stored('phq9', 'case_id = $1', [caseId]);
    const offScale = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'fu1', ...PHQ9, item1: 4, item10: 'sometimes' });
    expect(offScale.status).toBe(400);
    expect(offScale.body).toMatchObject({ code: '23514', message: 'The answers do not fit phq9: item1 out_of_range, item10 unknown_option' });
    expect(JSON.parse(offScale.body.details)).toEqual([
      { field: 'item1', code: 'out_of_range', message: 'The value is outside the scale' },
      { field: 'item10', code: 'unknown_option', message: 'Not an option of this item' },
    ]);
    const wrongType = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'fu1', item1: 'often' });
    expect(wrongType.status).toBe(400);
    const unknown = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'fu1', item11: 1 });
    expect(unknown.body).toMatchObject({ code: 'PGRST204', message: "Could not find the 'item11' column of 'phq9' in the schema cache" });
    const twice = await post(patient, 'phq9', [
      { case_id: caseId, time_of_measurement: 'fu1', ...PHQ9 },
      { case_id: caseId, time_of_measurement: 'fu1', ...PHQ9 },
    ]);
    expect([twice.status, twice.body.code]).toEqual([400, '21000']);
    const badTime = await post(patient, 'phq9', { case_id: caseId, time_of_measurement: 'later', ...PHQ9 });
    expect(badTime.status).toBe(400);
    expect(badTime.body.code).toBe('23514');
    expect(await stored('phq9', 'case_id = $1', [caseId])).toEqual(before);

    // An answer to an item that another answer hides must be cleared in the same request.
    const demographics = { internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'Syria', country_of_residence: 'Germany', fled: true, flight_reason: 'war', loss: false };
    expect((await post(patient, 'demographics', { case_id: caseId, time_of_measurement: 'pre', ...demographics })).status).toBe(201);
    const hidden = await post(patient, 'demographics', { case_id: caseId, time_of_measurement: 'pre', fled: false });
    expect(hidden.status).toBe(400);
    expect(JSON.parse(hidden.body.details)).toEqual([expect.objectContaining({ field: 'flight_reason', code: 'not_applicable' })]);
    const cleared = await post(patient, 'demographics', { case_id: caseId, time_of_measurement: 'pre', fled: false, flight_reason: null });
    expect(cleared.status).toBe(201);
    expect(cleared.body[0]).toMatchObject({ fled: false, flight_reason: null });
  });

  it('answers malformed filters and unknown filter columns with PostgREST errors', async () => {
    expect((await get(therapist, `/api/phq9?case_id=eq`)).body.code).toBe('PGRST100');
    expect((await get(therapist, `/api/phq9?total=between.1`)).body.code).toBe('PGRST100');
    const unknown = await get(therapist, `/api/phq9?item99=eq.1`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('42703');
    expect((await get(therapist, `/api/phq9?case_id=eq.not-a-uuid`)).status).toBe(400);
  });

  it('writes only to the patient’s own case: another patient and the care team are refused, nothing stored', async () => {
    for (const person of [otherPatient, therapist, coordinator]) {
      const response = await post(person, 'gad7', { case_id: caseId, time_of_measurement: 'pre', item1: 1 });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('42501');
    }
    const unknownCase = await post(patient, 'gad7', { case_id: '00000000-0000-4000-8000-000000000000', time_of_measurement: 'pre', item1: 1 });
    expect(unknownCase.status).toBeGreaterThanOrEqual(400);
    expect(unknownCase.status).toBeLessThan(500);
    expect(await stored('gad7', 'true', [])).toEqual([]);
  });
});

describe('reading', () => {
  it('shows a case’s records to its members and coordinators, filtered by case', async () => {
    expect((await get(therapist, `/api/phq9?case_id=eq.${caseId}`)).body).toHaveLength(2);
    expect((await get(coordinator, `/api/phq9?case_id=eq.${caseId}`)).body).toHaveLength(2);
    expect((await get(patient, `/api/phq9?case_id=eq.${caseId}&order=time_of_measurement`)).body.map((r: any) => r.time_of_measurement)).toEqual(['post', 'pre']);
    expect((await get(otherPatient, `/api/phq9?case_id=eq.${caseId}`)).body).toEqual([]);
    expect((await get(outsider, '/api/phq9')).body).toEqual([]);
    expect((await t.api('GET', '/api/phq9')).status).toBe(401);
  });

  it('never shows a patient a score, not even through a filter', async () => {
    const own = await get(patient, `/api/phq9?case_id=eq.${caseId}&time_of_measurement=eq.pre`);
    expect(own.body[0]).toMatchObject({ item1: 3, total: null, band: null, subscales: null, flags: null, diagnoses: null, complete: null });
    expect((await get(patient, `/api/phq9?total=gte.0`)).body).toEqual([]);
    expect((await get(patient, `/api/phq9?flags=cs.{screen_positive}`)).body).toEqual([]);
    expect((await get(therapist, `/api/phq9?flags=cs.{screen_positive}`)).body).toHaveLength(1);
    expect((await get(coordinator, `/api/phq9?select=total&time_of_measurement=eq.pre`)).body).toEqual([{ total: 11 }]);
  });

  it('serves every questionnaire collection of spec §7, and the database takes every answer the definitions allow', async () => {
    for (const code of INSTRUMENT_CODES) {
      for (const end of ['min', 'max'] as const) {
        const time = end === 'min' ? 'fu1' : 'fu2';
        const response = await post(patient, code, { case_id: caseId, time_of_measurement: time, ...validAnswers(INSTRUMENTS[code], end) });
        expect(`${code} ${end}: ${response.status} ${response.body?.message ?? ''}`).toBe(`${code} ${end}: 201 `);
      }
      const read = await get(therapist, `/api/${code}?case_id=eq.${caseId}&time_of_measurement=eq.fu2`);
      expect(read.status).toBe(200);
      expect(read.body[0].complete).toBe(true);
    }
  });
});

describe('DELETE', () => {
  it('deletes by id for the patient who filled it in; the care team cannot, and the log keeps the answers', async () => {
    const [row] = (await post(patient, 'gad2', { case_id: caseId, time_of_measurement: 'pre', item1: 2, item2: 2 })).body;
    const denied = await t.api('DELETE', `/api/gad2?id=eq.${row.id}`, { token: therapist.token });
    expect(denied.status).toBe(204);
    expect(await stored('gad2', 'id = $1', [row.id])).toHaveLength(1);
    const deleted = await t.api('DELETE', `/api/gad2?id=eq.${row.id}`, { token: patient.token, headers: { prefer: 'return=representation' } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual([expect.objectContaining({ id: row.id, item1: 2, total: null })]);
    expect(await stored('gad2', 'id = $1', [row.id])).toEqual([]);
    const { rows } = await t.database.db.pool.query(`select operation, actor_id, old_data from app_public.audit_log where record_id = $1 order by id`, [row.id]);
    expect(rows.map((r) => r.operation)).toEqual(['INSERT', 'DELETE']);
    expect(rows[1]).toMatchObject({ actor_id: patient.id, old_data: expect.objectContaining({ item1: 2, total: 4 }) });
  });
});

describe('screening exclusions (spec §4, §9)', () => {
  const BASELINE = { internet_access: true, email: true, age: 30, gender: 'MALE', country_of_origin: 'Iraq', country_of_residence: 'Iraq', fled: false, loss: false };
  const bdi = (total: number) => Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`item${i + 1}`, bdiItem(i + 1, Math.max(0, Math.min(3, total - 3 * i)))]));
  const bdiItem = (n: number, points: number) => (n === 16 || n === 18 ? (points === 0 ? '0' : `${points}a`) : points);

  async function screen(collection: string, answers: object, person?: Person): Promise<Person> {
    const who = person ?? (await t.user({ flags: ['patient'] }));
    const response = await post(who, collection, { case_id: who.caseId, time_of_measurement: 'screening', ...answers });
    expect(response.status).toBe(201);
    return who;
  }

  it('excludes at a BDI-II total of 45, not 44', async () => {
    const at44 = await screen('bdi2', bdi(44));
    expect((await stored('bdi2', 'case_id = $1', [at44.caseId]))[0]?.total).toBe('44');
    expect(await account(at44)).toMatchObject({ excluded: false, excluded_for_bdi_gte45: false });
    const at45 = await screen('bdi2', bdi(45));
    expect(await account(at45)).toMatchObject({ excluded: true, excluded_for_bdi_gte45: true, excluded_for_no_trauma_or_low_bdi: false });
    // The excluded patient sees their answers, never the score behind the exclusion.
    const own = await get(at45, `/api/bdi2?case_id=eq.${at45.caseId}`);
    expect(own.body[0]).toMatchObject({ item1: 3, total: null, band: null, flags: null });
  });

  // The default reading (issue 27): excluded only with neither a trauma nor a BDI-II total above 13.
  const noTraumaRecord = { worst_event: 'war', time_since: '1to5y', to_whom: 'self', danger_of_death: false, serious_injury: false, sexual_violence: false };
  it('excludes at a BDI-II total of 13 without a trauma, not 14; never with a criterion-A trauma', async () => {
    expect(await account(await screen('bdi2', bdi(14), await screen('traumalisteneu', noTraumaRecord)))).toMatchObject({ excluded: false, excluded_for_no_trauma_or_low_bdi: false });
    expect(await account(await screen('bdi2', bdi(13), await screen('traumalisteneu', noTraumaRecord)))).toMatchObject({ excluded: true, excluded_for_no_trauma_or_low_bdi: true });
    const traumatized = await screen('traumalisteneu', { ...noTraumaRecord, danger_of_death: true });
    expect(await account(await screen('bdi2', bdi(10), traumatized))).toMatchObject({ excluded: false, excluded_for_no_trauma_or_low_bdi: false });
  });

  it('excludes a minor (17), not an adult (18); without email or internet access', async () => {
    expect(await account(await screen('demographics', { ...BASELINE, age: 18 }))).toMatchObject({ excluded: false, excluded_for_minor_age: false });
    expect(await account(await screen('demographics', { ...BASELINE, age: 17 }))).toMatchObject({ excluded: true, excluded_for_minor_age: true });
    expect(await account(await screen('demographics', { ...BASELINE, email: false }))).toMatchObject({ excluded: true, excluded_for_lack_of_email: true, excluded_for_minor_age: false });
    expect(await account(await screen('demographics', { ...BASELINE, internet_access: false }))).toMatchObject({ excluded: true, excluded_for_lack_of_internet_access: true });
  });

  it('excludes without a trauma: the trauma record’s criterion A, or no event at all on the LEC-5', async () => {
    // With a low BDI-II total (the default reading needs both, issue 27).
    const low = async () => screen('bdi2', bdi(5));
    const trauma = noTraumaRecord;
    expect(await account(await screen('traumalisteneu', trauma, await low()))).toMatchObject({ excluded: true, excluded_for_no_trauma_or_low_bdi: true });
    expect(await account(await screen('traumalisteneu', { ...trauma, danger_of_death: true }, await low()))).toMatchObject({ excluded: false });
    const nothing = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`item${i + 1}`, ['not_applicable']]));
    expect(await account(await screen('lec5', nothing, await low()))).toMatchObject({ excluded: true, excluded_for_no_trauma_or_low_bdi: true });
    expect(await account(await screen('lec5', { ...nothing, item10: ['happened'] }, await low()))).toMatchObject({ excluded: false });
  });

  it('decides nothing from an unfinished record or another time of measurement, and never lowers a flag', async () => {
    const person = await screen('demographics', { email: false });
    expect(await account(person)).toMatchObject({ excluded: false });
    const pre = await t.user({ flags: ['patient'] });
    expect((await post(pre, 'bdi2', { case_id: pre.caseId, time_of_measurement: 'pre', ...bdi(60) })).status).toBe(201);
    expect(await account(pre)).toMatchObject({ excluded: false });

    const minor = await screen('demographics', { ...BASELINE, age: 17 });
    await screen('demographics', { age: 40 }, minor);
    expect(await account(minor)).toMatchObject({ excluded: true, excluded_for_minor_age: true });
  });
});

describe('a standard PostgREST client', () => {
  it('upserts with postgrest-js and gets the one record back', async () => {
    const client = new PostgrestClient(`${t.url}/api`, { headers: { Authorization: `Bearer ${patient.token}` } });
    const answers = { item1: 2, item2: 1, item3: 3, item4: 0, item5: 1, item6: 2, item7: 1, item8: 'somewhat' };
    const first = await client.from('gad7').upsert({ case_id: caseId, time_of_measurement: 'post', ...answers }, { onConflict: 'case_id,time_of_measurement' }).select().single();
    expect(first.error).toBeNull();
    const again = await client.from('gad7').upsert({ case_id: caseId, time_of_measurement: 'post', ...answers, item1: 3 }, { onConflict: 'case_id,time_of_measurement' }).select().single();
    expect(again.error).toBeNull();
    expect(again.data).toMatchObject({ id: first.data!.id, item1: 3, total: null });
    const [row] = await stored('gad7', 'id = $1', [first.data!.id]);
    expect(row).toMatchObject({ total: '11', band: 'moderate', complete: true });
    const refused = await client.from('gad7').upsert({ case_id: caseId, time_of_measurement: 'post', item1: 9 }).select();
    expect(refused.error?.code).toBe('23514');
  });
});

/** Valid answers at the low or high end of every shown item's scale. */
function validAnswers(definition: InstrumentDefinition, end: 'min' | 'max'): Record<string, AnswerValue> {
  const answers: Record<string, AnswerValue> = {};
  for (const item of definition.items) {
    if (!shownItems(definition, answers).has(item.id)) continue;
    answers[item.id] = endValue(item, end);
  }
  return answers;
}

function endValue(item: ItemDefinition, end: 'min' | 'max'): AnswerValue {
  const scale = item.scale;
  switch (scale.kind) {
    case 'integer':
      return end === 'min' ? scale.min : scale.max;
    case 'options':
      return (end === 'min' ? scale.options[0] : scale.options.at(-1))!.code;
    case 'multi': {
      const combinable = scale.options.filter((o) => !o.exclusive).map((o) => o.code);
      return end === 'min' ? [combinable[0]!] : combinable;
    }
    case 'yesno':
      return end === 'max';
    case 'text':
      return 'ش'.repeat(end === 'min' ? 1 : scale.maxLength);
    case 'date':
      return end === 'min' ? '1900-01-01' : '2099-12-31';
  }
}
