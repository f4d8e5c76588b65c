/**
 * Issue 30 item 4: staff second factor (TOTP, RFC 6238). Enrolment with a first code and
 * recovery codes shown once; sign-in asks for the code of an enrolled person; a recovery code
 * works once; signing requires the factor of an enrolled person and, for a role that requires
 * one (MFA_REQUIRED_ROLES), refuses until it is set up; only another coordinator resets it,
 * logged in the account log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../src/server/signing/totp';
import { apiClient, startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
let api: TestApp['api'];
let people: Record<CastMember, Person>;
let caseA: string;
const PERIOD = 30_000;

beforeAll(async () => {
  t = await startTestApp({ MFA_REQUIRED_ROLES: 'coordinator' });
  api = apiClient(t.url);
  ({ people, caseA } = await castOfRoles(t));
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const signIn = (person: Person, code?: string) => api('POST', '/api/auth/tokens', { body: { username: person.username, password: person.password, ...(code ? { code } : {}) } });
const signFor = (person: Person, code?: string) =>
  api('POST', '/api/signing/tokens', { token: person.token, body: { act: 'exclude', recordId: caseA, password: person.password, ...(code ? { code } : {}) } });

/** Enrols `person`; answers the secret and the recovery codes. The first code is of the step before now. */
async function enrol(person: Person): Promise<{ secret: string; recoveryCodes: string[] }> {
  const begun = await api('POST', '/api/auth/mfa/enrolment', { token: person.token });
  expect(begun.status).toBe(201);
  expect(begun.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/Sanad:/);
  const confirmed = await api('POST', '/api/auth/mfa/enrolment/confirm', { token: person.token, body: { code: totpCode(begun.body.secret, Date.now() - PERIOD) } });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { secret: begun.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

describe('enrolment and use', () => {
  it('a required role signs nothing until it has set up its factor', async () => {
    expect((await api('GET', '/api/auth/mfa', { token: people.coordinator.token })).body).toMatchObject({ enrolled: false, required: true });
    expect((await signFor(people.coordinator)).body.error).toBe('mfa_enrolment_required');
    // A therapist's role requires none: the password signs.
    expect((await signFor(people.therapist)).status).toBe(201);
  });

  it('a wrong first code is refused and logged; the right one gives ten recovery codes, stored hashed', async () => {
    const begun = await api('POST', '/api/auth/mfa/enrolment', { token: people.supervisor.token });
    const wrong = await api('POST', '/api/auth/mfa/enrolment/confirm', { token: people.supervisor.token, body: { code: '000000' === totpCode(begun.body.secret, Date.now()) ? '111111' : '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('mfa_code_invalid');
    const { recoveryCodes } = await enrol(people.coordinator);
    expect(recoveryCodes).toHaveLength(10);
    const stored = await t.database.db.pool.query('select code_hash from app_private.mfa_recovery_codes where user_id = $1', [people.coordinator.id]);
    expect(stored.rows.map((r) => r.code_hash)).not.toContain(recoveryCodes[0]);
    const events = await t.database.db.pool.query(`select event from app_public.account_log where user_id = any($1) and event like 'mfa%'`, [[people.coordinator.id, people.supervisor.id]]);
    expect(events.rows.map((r) => r.event).sort()).toEqual(['mfa_enrolled', 'mfa_failed']);
  });

  it('sign-in asks for the code, refuses a wrong or replayed one, accepts the current one', async () => {
    const secret = (await t.database.db.pool.query('select secret from app_private.staff_mfa where user_id = $1', [people.coordinator.id])).rows[0].secret;
    const bare = await signIn(people.coordinator);
    expect(bare.status).toBe(401);
    expect(bare.body.error).toBe('mfa_code_required');
    const replayed = await signIn(people.coordinator, totpCode(secret, Date.now() - PERIOD));
    expect(replayed.body.error).toBe('mfa_code_invalid');
    const ok = await signIn(people.coordinator, totpCode(secret, Date.now()));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    // Signing: no code, refused; the next step's code, accepted.
    expect((await signFor(people.coordinator)).body.error).toBe('mfa_code_required');
    expect((await signFor(people.coordinator, totpCode(secret, Date.now() + PERIOD))).status).toBe(201);
  });

  it('a recovery code works once', async () => {
    const { recoveryCodes } = await enrol(people.interviewer);
    expect((await signIn(people.interviewer, recoveryCodes[3])).status).toBe(201);
    const again = await signIn(people.interviewer, recoveryCodes[3]);
    expect(again.body.error).toBe('mfa_code_invalid');
    expect((await api('GET', '/api/auth/mfa', { token: people.interviewer.token })).body.recoveryCodesLeft).toBe(9);
  });
});

describe('reset of a lost device', () => {
  it('only another coordinator, with a reason, logged with who did it', async () => {
    const other = await t.user({ flags: ['coordinator'] });
    const reset = (by: Person, whom: Person, reason: unknown = 'Phone lost') => api('POST', '/api/auth/mfa/reset', { token: by.token, body: { userId: whom.id, reason } });
    for (const member of ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider'] as const) {
      expect((await reset(people[member], people.interviewer)).status, member).toBe(403);
    }
    expect((await reset(people.coordinator, people.coordinator)).body.error).toBe('mfa_reset_not_own');
    expect((await reset(other, people.interviewer, '')).status).toBe(400);
    expect((await api('GET', '/api/auth/mfa', { token: people.interviewer.token })).body.enrolled).toBe(true);
    expect((await reset(other, people.interviewer)).status).toBe(204);
    expect((await api('GET', '/api/auth/mfa', { token: people.interviewer.token })).body.enrolled).toBe(false);
    expect((await signIn(people.interviewer)).status).toBe(201);
    const logged = await t.database.db.pool.query(`select actor_id, detail from app_public.account_log where user_id = $1 and event = 'mfa_reset'`, [people.interviewer.id]);
    expect(logged.rows).toEqual([{ actor_id: other.id, detail: { reason: 'Phone lost' } }]);
  });
});
