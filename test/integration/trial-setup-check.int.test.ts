/**
 * Issue 25: the trial's setup check. A new installation has crisis contacts in every supported
 * locale (0121, shipped defaults to be checked); a locale without them blocks; without licensed
 * questionnaire wording the check blocks until a coordinator confirms "neutral labels only".
 * Only coordinators read the check or confirm; a refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import type { Person } from '../helpers/trial';

const CHECK = 'query { trialSetupCheck }';
const CONFIRM = 'mutation($c: Boolean!) { confirmNeutralLabelsOnly(input: { confirmed: $c }) { json } }';

let t: TestApp;
let coordinator: Person;
const others: Person[] = [];
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  for (const flag of ['patient', 'interviewer', 'therapist', 'supervisor', 'supporter', 'counselor'] as const) others.push(await t.user({ flags: [flag] }));
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function check(person: Person) {
  const answer = await t.graphql(CHECK, {}, person.token);
  expect(answer.errors).toBeUndefined();
  return answer.data.trialSetupCheck;
}

describe('the trial setup check', () => {
  it('starts with crisis contacts in ar, de and en, marked as shipped defaults', async () => {
    const state = await check(coordinator);
    expect(state.crisisHelpMissing).toEqual([]);
    expect(state.crisisHelpDefaults).toEqual(['ar', 'de', 'en']);
    const { rows } = await pool().query(`select language_code, content from app_public.content_templates where code = 'crisis_help' order by language_code`);
    expect(rows.map((r) => r.language_code)).toEqual(['ar', 'de', 'en']);
    for (const row of rows) expect(row.content).toContain('0800 111 0 111');
  });

  it('blocks without licensed wording until a coordinator confirms neutral labels only; others may neither read nor confirm', async () => {
    expect((await check(coordinator)).blocking).toBe(true);
    for (const person of others) {
      expect(await check(person)).toBeNull();
      const refused = await t.graphql(CONFIRM, { c: true }, person.token);
      expect(refused.errors?.[0]?.extensions?.code ?? refused.errors?.[0]?.message).toBe('NOT_COORDINATOR');
    }
    expect((await check(coordinator)).neutralLabelsOnly).toBeNull();
    const confirmed = await t.graphql(CONFIRM, { c: true }, coordinator.token);
    expect(confirmed.errors).toBeUndefined();
    const state = await check(coordinator);
    expect(state.neutralLabelsOnly).not.toBeNull();
    expect(state.blocking).toBe(false);
  });

  it('blocks again while a supported locale lacks crisis contacts, and names it', async () => {
    await pool().query(`delete from app_public.content_templates where type = 'MESSAGE' and code = 'crisis_help' and language_code = 'de'`);
    const state = await check(coordinator);
    expect(state.crisisHelpMissing).toEqual(['de']);
    expect(state.blocking).toBe(true);
  });

  it('lists the instruments whose wording is installed, per language', async () => {
    await pool().query(`insert into app_public.content_templates (type, code, language_code, title, content) values ('PAGE', 'instr-phq9-item1', 'ar', 'x', 'y')`);
    expect((await check(coordinator)).wording.ar).toEqual(['phq9']);
    expect((await check(coordinator)).wording.de).toEqual([]);
  });
});
