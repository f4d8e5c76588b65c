/**
 * The questionnaire bench's floor server (bench/floor-server.ts) answers a whole-record
 * `POST /api/phq9` as the API does, by the server's own functions (the collection's plan, which
 * validates and scores, buildPlannedUpsert and queryOnceAsUser in the plan's role): the same
 * status, content type and body, the clock of its own write aside; the record as the API then
 * reads it; the same row stored, scores included. Its GETs of the records and its refusals of a
 * bad record are byte for byte the API's. The check fails when the floor answers otherwise: a
 * partial record (the API's hooks' path, which the floor does not have) and a floor that takes
 * the token as someone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFloorRequests, checkUpsertFloor, startFloorServer, type FloorRequest, type FloorServer } from '../../bench/floor-server';
import { PHQ9, score } from '../../src/domain/instruments';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, therapist: Person, otherPatient: Person;
let caseId: string;
let floor: FloorServer;

const TABLE = 'app_public.phq9';
const CALM = { item1: 0, item2: 1, item3: 0, item4: 1, item5: 0, item6: 0, item7: 1, item8: 0, item9: 0, item10: 'not_difficult' };
const AT_RISK = { ...CALM, item2: 3, item4: 3, item9: 2 };

beforeAll(async () => {
  // PHQ-9 alone is due before treatment: a whole record there also completes the measurement.
  t = await startTestApp({ MEASUREMENTS_PRE: 'phq9' });
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  otherPatient = await t.user({ flags: ['patient'] });
  const users = new Map([patient, therapist, otherPatient].map((p) => [p.token, p.id]));
  floor = await startFloorServer(t.database.db.pool, users, { schedule: t.config.measurementSchedule });
}, 120_000);

afterAll(async () => {
  await floor?.close();
  await t?.close();
});

function post(person: Person, body: unknown): FloorRequest {
  return {
    method: 'POST',
    path: '/api/phq9',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      prefer: 'resolution=merge-duplicates, return=representation',
      authorization: `Bearer ${person.token}`,
    },
    body: JSON.stringify(body),
  };
}

function get(person: Person, path: string): FloorRequest {
  return { method: 'GET', path, headers: { accept: 'application/json', authorization: `Bearer ${person.token}` } };
}

const stored = () => ({ pool: t.database.db.pool, table: TABLE });

describe("the questionnaire bench's floor server", () => {
  it('answers a whole-record POST as the API does and stores the same row, scores included', async () => {
    const reordered = Object.fromEntries(Object.entries({ case_id: caseId, time_of_measurement: 'fu1', ...CALM }).reverse());
    await checkUpsertFloor(
      'POST /api/phq9',
      [
        // A new record (the API inserts it, the floor updates it), then changed answers, a
        // completed measurement, keys in another order and a body that is an array of one.
        post(patient, { case_id: caseId, time_of_measurement: 'post', ...CALM }),
        post(patient, { case_id: caseId, time_of_measurement: 'post', ...AT_RISK }),
        post(patient, { case_id: caseId, time_of_measurement: 'pre', ...CALM }),
        post(patient, reordered),
        post(patient, [{ case_id: caseId, time_of_measurement: 'fu2', ...AT_RISK }]),
      ],
      t.url,
      floor.baseUrl,
      stored(),
    );
    // The floor wrote last: the scores are the server's, though the patient's answer hides them.
    const { rows } = await t.database.db.pool.query<{ total: number; submitter_id: string }>(
      `select total::int as total, submitter_id from ${TABLE} where case_id = $1 and time_of_measurement = 'fu2'`,
      [caseId],
    );
    expect(rows).toEqual([{ total: score(PHQ9, AT_RISK).total, submitter_id: patient.id }]);
  });

  it('answers the GETs of the records and the refusals of a bad record byte for byte as the API does', async () => {
    await checkFloorRequests(
      'GET and refused POSTs',
      [
        get(therapist, `/api/phq9?case_id=eq.${caseId}`),
        get(patient, `/api/phq9?case_id=eq.${caseId}&select=id,time_of_measurement,total`),
        post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...CALM, total: 0 }),
        post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...CALM, item1: 4 }),
        post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...CALM, item10: 'sometimes' }),
        post(patient, { case_id: otherPatient.caseId, time_of_measurement: 'fu1', ...CALM }),
      ],
      t.url,
      floor.baseUrl,
    );
    // The therapist's read holds the records written above, with their scores.
    const read = await fetch(`${floor.baseUrl}/api/phq9?case_id=eq.${caseId}`, { headers: { authorization: `Bearer ${therapist.token}` } });
    const records = (await read.json()) as { total: number | null }[];
    expect(records.length).toBe(4);
    expect(records.every((r) => r.total !== null)).toBe(true);
  });

  it('fails the check when the floor answers otherwise than the API', async () => {
    // A partial record takes the API's hooks' path, which the floor refuses: 201 against 404.
    const partial = post(patient, { case_id: caseId, time_of_measurement: 'fu1', item1: 2 });
    await expect(checkUpsertFloor('a partial record', [partial], t.url, floor.baseUrl, stored())).rejects.toThrow(/status 404\/201/);
    // A floor that takes the patient's token as the therapist writes and answers as the therapist.
    const impostor = await startFloorServer(t.database.db.pool, new Map([[patient.token, therapist.id]]), { schedule: t.config.measurementSchedule });
    try {
      const whole = post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...AT_RISK });
      await expect(checkUpsertFloor('as someone else', [whole], t.url, impostor.baseUrl, stored())).rejects.toThrow(/otherwise than the API/);
      const read = get(patient, `/api/phq9?case_id=eq.${caseId}`);
      await expect(checkFloorRequests('a read as someone else', [read], t.url, impostor.baseUrl)).rejects.toThrow(/otherwise than the API/);
    } finally {
      await impostor.close();
    }
  });
});
