/**
 * Trial management (issue 15): concealed randomization, treatment assignments, exclusion and
 * dropout, the CONSORT flow against the participants export, invoice items; who may do what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createUser } from '../../src/server/admin/accounts';
import { generateTickets } from '../../src/domain/randomization';
import { SIGNATURE_HEADER } from '../../src/domain/signatures';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';
import { trialDriver, type Person } from '../helpers/trial';
import TREATMENT_MODULES from '../../workflows/treatment-modules.json';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, patient: Person, otherPatient: Person, outsider: Person;
const members: Record<string, Person> = {};

const pool = () => t.database.db.pool;
const TWO_ARMS = [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }];

async function configure(body: object, token = coordinator.token) {
  return t.api('POST', '/api/trial/allocation', { token, body });
}

/**
 * The interview decided the case: a real trial reaches "Record the interview outcome" and the
 * outcome is signed (the server's door of a signed report); an accepted case then waits at
 * "Randomize the patient", the only step that draws an arm (issue 27).
 */
async function accept(caseId: string, problem: 'ptsd' | 'depression' | 'rejected' | 'counseling' | 'later' = 'ptsd') {
  await trial.startTrial(caseId);
  await trial.advance(caseId, 'interview');
  await trial.signedOutcome(caseId, members.interviewer!, problem);
}

async function newPatient(gender?: 'FEMALE' | 'MALE' | 'DIVERSE'): Promise<Person> {
  return t.user({ flags: ['patient'], ...(gender ? { gender } : {}) });
}

async function randomize(caseId: string, token = coordinator.token) {
  return t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token });
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool().query(sql, params);
  return Number(rows[0].count);
}

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  patient = await newPatient('FEMALE');
  otherPatient = await newPatient('MALE');
  outsider = await t.user({ flags: ['therapist'] });
  for (const role of ['therapist', 'interviewer', 'supervisor', 'supporter', 'counselor'] as const) {
    const flag = role === 'counselor' ? 'therapist' : role;
    members[role] = await t.user({ flags: [flag] });
    await addMember(pool(), patient.caseId!, members[role].username, [role]);
  }
});

afterAll(async () => {
  await t?.close();
});

describe('allocation configuration', () => {
  it('refuses bad input with a clear 400 and stores nothing', async () => {
    const zero = await configure({ method: 'blocks', arms: [{ code: 'cbt', ratio: 0 }, { code: 'ipt', ratio: 1 }] });
    expect(zero.status).toBe(400);
    expect(zero.body.error).toBe('allocation_invalid');
    expect(zero.body.errors['arms.0.ratio']).toMatch(/ratio/);
    const unknownArm = await configure({ method: 'table', arms: TWO_ARMS, table: 'arm\ncbt\nipt\nplacebo\n' });
    expect(unknownArm.status).toBe(400);
    expect(unknownArm.body.message).toMatch(/Line 4: "placebo" is not one of the arms/);
    const oneArm = await configure({ method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }] });
    expect(oneArm.status).toBe(400);
    const noFactor = await configure({ method: 'minimization', arms: TWO_ARMS, factors: [] });
    expect(noFactor.status).toBe(400);
    const badFactor = await configure({ method: 'blocks', arms: TWO_ARMS, factors: ['age'] });
    expect(badFactor.status).toBe(400);
    expect((await t.api('POST', '/api/trial/allocation', { token: coordinator.token, rawBody: '[1]', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect(await count('select count(*) from app_private.allocation_config')).toBe(0);
    expect(await count('select count(*) from app_private.allocation_tickets')).toBe(0);
  });

  it('a draw before configuration is refused', async () => {
    await accept(patient.caseId!);
    const early = await randomize(patient.caseId!);
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('allocation_missing');
  });

  it('only coordinators configure, read the allocation and its balance', async () => {
    for (const person of [patient, outsider, ...Object.values(members)]) {
      const refused = await configure({ method: 'blocks', arms: TWO_ARMS }, person.token);
      expect(refused.status, person.username).toBe(403);
      expect((await t.api('GET', '/api/trial/allocation', { token: person.token })).status).toBe(403);
    }
    expect((await t.api('GET', '/api/trial/allocation')).status).toBe(401);
    expect(await count('select count(*) from app_private.allocation_config')).toBe(0);
  });

  it('keeps the sequence concealed: request roles cannot read app_private, the summary has no seed or ticket', async () => {
    const created = await configure({ method: 'blocks', arms: TWO_ARMS, factors: ['gender'], blockMultiples: [1, 2, 3], ticketsPerStratum: 60 });
    expect(created.status).toBe(201);
    expect(created.body.tickets).toBe(4 * 60);
    const client = await pool().connect();
    try {
      for (const table of ['allocation_config', 'allocation_tickets', 'allocation_counters']) {
        await client.query('begin');
        await client.query(`set local role sanad_user`);
        await client.query(`select set_config('jwt.claims.user_id', $1, true)`, [coordinator.id]);
        await expect(client.query(`select * from app_private.${table}`)).rejects.toThrow(/permission denied/);
        await client.query('rollback');
      }
    } finally {
      client.release();
    }
    const summary = await t.api('GET', '/api/trial/allocation', { token: coordinator.token });
    expect(summary.status).toBe(200);
    expect(summary.body.allocation).toMatchObject({ method: 'blocks', arms: TWO_ARMS, factors: ['gender'], draws: 0 });
    expect(JSON.stringify(summary.body)).not.toMatch(/seed|ticket|random1|position/);
    const introspection = await t.graphql('{ __schema { types { name } } }', {}, coordinator.token);
    expect(JSON.stringify(introspection.data)).not.toMatch(/Allocation(Ticket|Counter|Config)/);
  });
});

describe('drawing', () => {
  it('refuses a case not yet accepted (409), an unknown case (404), and non-coordinators (403); nothing stored', async () => {
    const fresh = await newPatient('FEMALE');
    const notAccepted = await randomize(fresh.caseId!);
    expect(notAccepted.status).toBe(409);
    expect(notAccepted.body.error).toBe('not_accepted');
    await accept(fresh.caseId!, 'rejected');
    expect((await randomize(fresh.caseId!)).status).toBe(409);
    expect((await randomize('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await randomize('not-a-uuid')).status).toBe(404);
    for (const person of [patient, outsider, ...Object.values(members)]) {
      expect((await randomize(patient.caseId!, person.token)).status, person.username).toBe(403);
    }
    expect(await count('select count(*) from app_public.treatment_assignments')).toBe(0);
    expect(await count('select count(*) from app_private.allocation_tickets where case_id is not null')).toBe(0);
    expect(await count(`select count(*) from app_private.allocation_counters where next_position <> 1`)).toBe(0);
  });

  it('draws the next ticket of the stratum, final, audited with its stratum, readable by the case members', async () => {
    const first = await randomize(patient.caseId!);
    expect(first.status).toBe(201);
    expect(first.body.stratum).toBe('gender=FEMALE');
    const { rows: ticket } = await pool().query(`select arm from app_private.allocation_tickets where stratum = 'gender=FEMALE' and position = 1`);
    expect(first.body.treatment).toBe(ticket[0].arm);
    const again = await randomize(patient.caseId!);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('already_randomized');
    expect(await count('select count(*) from app_public.treatment_assignments where case_id = $1', [patient.caseId])).toBe(1);
    expect(await count(`select count(*) from app_private.allocation_tickets where stratum = 'gender=FEMALE' and case_id is not null`)).toBe(1);
    const { rows: audit } = await pool().query(
      `select actor_id, new_data ->> 'stratum' as stratum, new_data ->> 'treatment' as treatment from app_public.audit_log
        where table_name = 'treatment_assignments' and case_id = $1`,
      [patient.caseId],
    );
    expect(audit).toEqual([{ actor_id: coordinator.id, stratum: 'gender=FEMALE', treatment: first.body.treatment }]);

    const query = `query($id: UUID!) { caseById(id: $id) { treatmentAssignmentsByCaseIdList(orderBy: ASSIGNED_AT_ASC) { treatment assignedAt } } }`;
    for (const person of [patient, members.therapist!, coordinator]) {
      const read = await t.graphql(query, { id: patient.caseId }, person.token);
      expect(read.data.caseById.treatmentAssignmentsByCaseIdList, person.username).toEqual([{ treatment: first.body.treatment, assignedAt: expect.any(String) }]);
    }
    const foreign = await t.graphql(query, { id: patient.caseId }, otherPatient.token);
    expect(foreign.data.caseById).toBeNull();
    const list = await t.graphql(`{ allTreatmentAssignmentsList { caseId } }`, {}, outsider.token);
    expect(list.data.allTreatmentAssignmentsList).toEqual([]);
  });

  it('the research export carries the treatment with every record of the case', async () => {
    const answers = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`item${i + 1}`, 1]));
    const posted = await t.api('POST', '/api/gad7', { token: patient.token, body: { case_id: patient.caseId, time_of_measurement: 'pre', ...answers }, headers: { prefer: 'return=representation' } });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const file = await fetch(`${t.url}/api/export/gad7.csv`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    const rows = csvObjects(await file.text());
    const { rows: assigned } = await pool().query('select treatment from app_public.treatment_assignments where case_id = $1', [patient.caseId]);
    expect(rows.find((r) => r.case_id === patient.caseId)?.treatment).toBe(assigned[0].treatment);
    const codebook = csvObjects(await (await fetch(`${t.url}/api/export/gad7/codebook.csv?locale=en`, { headers: { authorization: `Bearer ${coordinator.token}` } })).text());
    expect(codebook.find((r) => r.variable === 'treatment')).toMatchObject({ kind: 'case', type: 'code' });
  });

  it('50 concurrent draws take 50 tickets of the stratum: none twice, none skipped', async () => {
    const people = await Promise.all(Array.from({ length: 50 }, () => newPatient('MALE')));
    for (const p of people) await accept(p.caseId!, 'depression');
    // Issue 30: each draw is signed; the signatures are given first, so the draws themselves race.
    const signatures: string[] = [];
    for (const p of people) {
      const signed = await t.api('POST', '/api/signing/tokens', { token: coordinator.token, body: { act: 'randomize', recordId: p.caseId, password: coordinator.password } });
      expect(signed.status).toBe(201);
      signatures.push(signed.body.token);
    }
    const results = await Promise.all(people.map((p, i) => t.api('POST', `/api/trial/cases/${p.caseId}/randomize`, { token: coordinator.token, headers: { [SIGNATURE_HEADER]: signatures[i]! } })));
    expect(results.map((r) => r.status)).toEqual(people.map(() => 201));
    const { rows } = await pool().query(
      `select t.position, t.arm, a.treatment from app_private.allocation_tickets t
         join app_public.treatment_assignments a on a.case_id = t.case_id
        where t.stratum = 'gender=MALE' order by t.position`,
    );
    expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (const row of rows) expect(row.treatment).toBe(row.arm);
    expect(await count(`select count(*) from app_private.allocation_tickets where stratum = 'gender=MALE' and case_id is not null`)).toBe(50);
    const { rows: counter } = await pool().query(`select next_position from app_private.allocation_counters where stratum = 'gender=MALE'`);
    expect(counter[0].next_position).toBe(51);
    // Permuted blocks of at most 3×2: within the stratum the arms never differ by more than 3.
    let diff = 0;
    for (const row of rows) {
      diff += row.arm === 'cbt' ? 1 : -1;
      expect(Math.abs(diff)).toBeLessThanOrEqual(3);
    }
    const balance = await t.api('GET', '/api/trial/allocation', { token: coordinator.token });
    const male = balance.body.balance.filter((b: { stratum: string }) => b.stratum === 'gender=MALE');
    expect(male.reduce((s: number, b: { assignments: number }) => s + b.assignments, 0)).toBe(50);
   }, 180_000);

  it('refuses a new configuration once cases are randomized', async () => {
    const again = await configure({ method: 'blocks', arms: TWO_ARMS });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('allocation_in_use');
  });

  it('the randomization task of the trial draws through the allocation', async () => {
    // The real process: a case at "Randomize the patient" completed by a coordinator.
    const trialist = await newPatient('DIVERSE');
    await addMember(pool(), trialist.caseId!, members.interviewer!.username, ['interviewer']);
    await trial.startTrial(trialist.caseId!);
    // Fast-forward the process to the randomization task through its messages and the outcome.
    await trial.advance(trialist.caseId!, 'randomization', { interviewer: members.interviewer!, outcome: 'ptsd' });
    const { submit } = trial;
    const randomizeTask = (await trial.openTask(trialist.caseId!, 'randomizeTask')).id;
    expect((await submit(randomizeTask, coordinator.token, { treatment: { value: 'cbt', type: 'String' } })).status).toBe(400);
    expect(await count('select count(*) from app_public.treatment_assignments where case_id = $1', [trialist.caseId])).toBe(0);
    expect((await submit(randomizeTask, coordinator.token)).status).toBe(204);
    const { rows } = await pool().query(
      `select a.treatment, a.stratum, i.variables -> 'treatment' ->> 'value' as variable from app_public.treatment_assignments a
         join app_public.workflow_instances i on i.case_id = a.case_id where a.case_id = $1`,
      [trialist.caseId],
    );
    expect(rows).toEqual([{ treatment: expect.stringMatching(/^(cbt|ipt)$/), stratum: 'gender=DIVERSE', variable: rows[0].treatment }]);
  });
});

describe('minimization', () => {
  it('balances every factor level on a seeded sequence', { timeout: 300_000 }, async () => {
    // A fresh trial: a new database state for the allocation.
    const local = await startTestApp();
    try {
      const coord = await local.user({ flags: ['coordinator'] });
      const localInterviewer = await local.user({ flags: ['interviewer'] });
      const localTrial = trialDriver(() => local);
      const body = { method: 'minimization', arms: TWO_ARMS, factors: ['gender', 'problem'], probability: 0.8, ticketsPerStratum: 80 };
      expect((await local.api('POST', '/api/trial/allocation', { token: coord.token, body })).status).toBe(201);
      // Replace the secret random numbers by those of a known seed, so the test is reproducible.
      const tickets = generateTickets({ method: 'minimization', arms: TWO_ARMS, factors: ['gender', 'problem'], settings: { probability: 0.8, ticketsPerStratum: 80 } }, 'test-seed');
      await local.database.db.pool.query(
        `update app_private.allocation_tickets t set random1 = s.r1, random2 = s.r2
           from unnest($1::int[], $2::float8[], $3::float8[]) as s(position, r1, r2) where t.stratum = '*' and t.position = s.position`,
        [tickets.map((x) => x.position), tickets.map((x) => x.random1), tickets.map((x) => x.random2)],
      );
      const genders = ['FEMALE', 'MALE', 'FEMALE', 'FEMALE', 'DIVERSE', 'MALE'] as const;
      const problems = ['ptsd', 'depression', 'depression'] as const;
      for (let i = 0; i < 60; i++) {
        // Accounts without sign-in (no password hashing per case): the coordinator draws.
        const p = await createUser(local.database.db.pool, { username: `min${i}`, email: `min${i}@example.org`, password: 'correct horse battery', flags: ['patient'], gender: genders[i % genders.length]! });
        await localTrial.startTrial(p.caseId!);
        await localTrial.advance(p.caseId!, 'randomization', { interviewer: localInterviewer, outcome: problems[i % problems.length]! });
        expect((await local.api('POST', `/api/trial/cases/${p.caseId}/randomize`, { token: coord.token })).status).toBe(201);
      }
      const { rows } = await local.database.db.pool.query(
        `select factor_levels ->> 'gender' as gender, factor_levels ->> 'problem' as problem, treatment from app_public.treatment_assignments`,
      );
      const imbalance = (filter: (r: { gender: string; problem: string }) => boolean) => {
        const chosen = rows.filter(filter);
        return Math.abs(chosen.filter((r) => r.treatment === 'cbt').length - chosen.filter((r) => r.treatment === 'ipt').length);
      };
      expect(imbalance(() => true)).toBeLessThanOrEqual(2);
      for (const g of ['FEMALE', 'MALE', 'DIVERSE']) expect(imbalance((r) => r.gender === g), g).toBeLessThanOrEqual(3);
      for (const p of problems) expect(imbalance((r) => r.problem === p), p).toBeLessThanOrEqual(3);
      const stratum = await local.database.db.pool.query(`select distinct stratum from app_public.treatment_assignments order by 1`);
      expect(stratum.rows.map((r) => r.stratum)).toContain('gender=FEMALE;problem=ptsd');
    } finally {
      await local.close();
    }
  });
});

describe('the case, complete (spec §3, §7 PagedCases and CaseWithMessages)', () => {
  it('PagedCases gives task stats, next waiting date, treatment, therapists, counselors, interviewers, the latest PHQ-9 item 9', async () => {
    const query = `query PagedCases($filterUnassigned: Boolean = false, $search: String, $stage: String, $first: Int = 200, $offset: Int = 0) {
      pagedCases(filterUnassigned: $filterUnassigned, search: $search, stage: $stage, first: $first, offset: $offset) {
        totalCount
        nodes {
          id shortId stage isDropout dropoutReason askForPostIfDroppedOut excludeFromAnalysis reasonForExclusion
          patients: taskSummary(groupName: "patients") { countOfOpen latestCreated latestDue nextTime }
          therapistTasks: taskSummary(groupName: "therapists") { countOfOpen countOfOverdue }
          nextWaitingDate latestPhq9Item9
          treatmentAssignmentsByCaseIdList(orderBy: ASSIGNED_AT_ASC) { id assignedAt treatment }
          therapistsList { userId } counselorsList { userId } interviewersList { userId }
          me { userId actsAsTherapist } membersList { userId actsAsPatient } myDatesList { name timestamp }
        }
      }
    }`;
    const answer = await t.graphql(query, {}, members.therapist!.token);
    expect(answer.errors).toBeUndefined();
    const mine = answer.data.pagedCases.nodes.find((n: { id: string }) => n.id === patient.caseId);
    expect(mine.therapistsList).toEqual([{ userId: members.therapist!.id }]);
    expect(mine.counselorsList).toEqual([{ userId: members.counselor!.id }]);
    expect(mine.interviewersList).toEqual([{ userId: members.interviewer!.id }]);
    expect(mine.me).toEqual({ userId: members.therapist!.id, actsAsTherapist: true });
    expect(mine.membersList).toHaveLength(6);
    expect(mine.treatmentAssignmentsByCaseIdList).toEqual([{ id: expect.any(String), assignedAt: expect.any(String), treatment: expect.stringMatching(/^(cbt|ipt)$/) }]);
    // The open patient tasks: the worksheets of the drawn arm (workflows/treatment-modules.json)
    // and, since the draw is the trial's step (issue 27), the questionnaires before treatment.
    const arm = mine.treatmentAssignmentsByCaseIdList[0].treatment as keyof typeof TREATMENT_MODULES;
    expect(mine.patients).toMatchObject({ countOfOpen: TREATMENT_MODULES[arm].length + 1 });
    // A coordinator is no member: `me` is empty, the case is still listed.
    const coord = await t.graphql(query, {}, coordinator.token);
    expect(coord.data.pagedCases.nodes.find((n: { id: string }) => n.id === patient.caseId).me).toBeNull();
  });
});
