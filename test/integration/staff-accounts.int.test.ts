/**
 * Issue 27, item 6: coordinators administer staff accounts. Invite by mail (the link sets a
 * password), change roles, disable (every session ends at once) and re-enable, each change
 * recorded with its author and the state before and after; the last active coordinator stays.
 * Every other role is refused and a refusal changes nothing; bad input is a 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast, type CastMember } from '../helpers/people';
import { tokenFromMail } from '../helpers/smtp';

let t: TestApp;
let cast: Cast;
const PASSWORD = 'a long and new secret 42';

beforeAll(async () => {
  t = await startTestApp();
  cast = await castOfRoles(t);
});
afterAll(() => t?.close());

const as = (who: CastMember) => cast.people[who].token;
const snapshot = async () =>
  (await t.database.db.pool.query(`select u.id, u.is_coordinator_account, u.is_therapist_account, s.disabled_at, (select count(*) from app_private.staff_account_changes) as changes
     from app_public.users u join app_private.user_secrets s on s.user_id = u.id order by u.id`)).rows;

describe('who may', () => {
  const others: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider'];
  it.each(others)('%s is refused every staff-account call, and nothing changes', async (who) => {
    const before = await snapshot();
    const target = cast.people.therapist.id;
    const calls = [
      await t.api('GET', '/api/staff-accounts', { token: as(who) }),
      await t.api('GET', '/api/staff-accounts/changes', { token: as(who) }),
      await t.api('POST', '/api/staff-accounts', { token: as(who), body: { username: `x${who}`, email: `x${who}@example.org`, roles: ['coordinator'] } }),
      await t.api('PATCH', `/api/staff-accounts/${target}`, { token: as(who), body: { roles: ['coordinator'] } }),
      await t.api('PATCH', `/api/staff-accounts/${cast.people.coordinator.id}`, { token: as(who), body: { disabled: true } }),
    ];
    for (const call of calls) expect([call.status, call.body.error]).toEqual([403, 'coordinator_only']);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses the anonymous with 401', async () => {
    expect((await t.api('GET', '/api/staff-accounts')).status).toBe(401);
  });
});

describe('a coordinator', () => {
  it('invites by mail; the link sets the password and the person signs in with the roles given', async () => {
    const invited = await t.api('POST', '/api/staff-accounts', {
      token: as('coordinator'),
      body: { username: 'new.therapist', email: 'new.therapist@example.org', alias: 'Dr. Samira', roles: ['therapist', 'supervisor'], locale: 'de' },
    });
    expect(invited.status).toBe(201);
    const mail = await t.smtp.waitFor('new.therapist@example.org', /Einladung/);
    expect(mail.text).toContain('/confirm-reset?token=');
    // Before the link is used nobody can sign in.
    expect((await t.api('POST', '/api/auth/tokens', { body: { username: 'new.therapist', password: '' } })).status).toBeGreaterThanOrEqual(400);
    const set = await t.api('POST', '/api/auth/password-reset/confirm', { body: { token: tokenFromMail(mail), password: PASSWORD } });
    expect(set.status).toBe(200);
    await t.signIn('new.therapist', PASSWORD);
    const list = await t.api('GET', '/api/staff-accounts', { token: as('coordinator') });
    const row = list.body.accounts.find((a: { username: string }) => a.username === 'new.therapist');
    expect(row).toMatchObject({ roles: ['therapist', 'supervisor'], disabled: false, invitationPending: false, alias: 'Dr. Samira' });
    const changes = await t.api('GET', '/api/staff-accounts/changes', { token: as('coordinator') });
    expect(changes.body.changes[0]).toMatchObject({ username: 'new.therapist', changedBy: cast.people.coordinator.username, action: 'invite', before: null, after: { roles: ['therapist', 'supervisor'], disabled: false } });
  });

  it('changes roles, recorded with who, when, before and after', async () => {
    const target = cast.people.supporter;
    const changed = await t.api('PATCH', `/api/staff-accounts/${target.id}`, { token: as('coordinator'), body: { roles: ['supporter', 'counselor'] } });
    expect(changed.status).toBe(200);
    const { rows } = await t.database.db.pool.query('select is_counselor_account from app_public.users where id = $1', [target.id]);
    expect(rows[0].is_counselor_account).toBe(true);
    const changes = await t.api('GET', '/api/staff-accounts/changes', { token: as('coordinator') });
    expect(changes.body.changes[0]).toMatchObject({
      userId: target.id,
      action: 'roles',
      changedBy: cast.people.coordinator.username,
      before: { roles: ['supporter'], disabled: false },
      after: { roles: ['supporter', 'counselor'], disabled: false },
    });
    expect(Date.now() - new Date(changes.body.changes[0].changedAt).getTime()).toBeLessThan(60_000);
  });

  it('disables: the open session ends at once and sign-in is refused; re-enabling lets the person back in', async () => {
    const target = cast.people.therapist;
    expect((await t.api('GET', '/api/auth/users/me', { token: target.token })).status).toBe(200);
    const disabled = await t.api('PATCH', `/api/staff-accounts/${target.id}`, { token: as('coordinator'), body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me', { token: target.token })).status).toBe(401);
    const refused = await t.api('POST', '/api/auth/tokens', { body: { username: target.username, password: target.password } });
    expect([refused.status, refused.body.error]).toEqual([403, 'account_disabled']);
    const enabled = await t.api('PATCH', `/api/staff-accounts/${target.id}`, { token: as('coordinator'), body: { disabled: false } });
    expect(enabled.status).toBe(200);
    target.token = await t.signIn(target.username, target.password);
    const actions = (await t.api('GET', '/api/staff-accounts/changes', { token: as('coordinator') })).body.changes.slice(0, 2).map((c: { action: string }) => c.action);
    expect(actions).toEqual(['enable', 'disable']);
  });

  it('cannot disable or remove the flag of the last active coordinator, nor disable themself; nothing changes', async () => {
    const me = cast.people.coordinator;
    const before = await snapshot();
    const demote = await t.api('PATCH', `/api/staff-accounts/${me.id}`, { token: as('coordinator'), body: { roles: ['therapist'] } });
    expect([demote.status, demote.body.error]).toEqual([400, 'last_coordinator']);
    const self = await t.api('PATCH', `/api/staff-accounts/${me.id}`, { token: as('coordinator'), body: { disabled: true } });
    expect([self.status, self.body.error]).toEqual([400, 'not_yourself']);
    expect(await snapshot()).toEqual(before);
    // With a second coordinator, the first may step down.
    const second = cast.people.interviewer;
    expect((await t.api('PATCH', `/api/staff-accounts/${second.id}`, { token: as('coordinator'), body: { roles: ['interviewer', 'coordinator'] } })).status).toBe(200);
    // The second now disables the first, then cannot remove their own last flag.
    expect((await t.api('PATCH', `/api/staff-accounts/${me.id}`, { token: second.token, body: { disabled: true } })).status).toBe(200);
    const last = await t.api('PATCH', `/api/staff-accounts/${second.id}`, { token: second.token, body: { roles: ['interviewer'] } });
    expect([last.status, last.body.error]).toEqual([400, 'last_coordinator']);
    expect((await t.api('PATCH', `/api/staff-accounts/${me.id}`, { token: second.token, body: { disabled: false } })).status).toBe(200);
    me.token = await t.signIn(me.username, me.password);
  });

  it('gets a 4xx a person can act on for bad input, and nothing is stored', async () => {
    const before = await snapshot();
    const bad = [
      [{ username: 'a', email: 'not-an-email', roles: ['therapist'] }, 400, 'invalid_invitation'],
      [{ username: 'valid.name', email: 'valid@example.org', roles: [] }, 400, 'staff_roles_invalid'],
      [{ username: 'valid.name', email: 'valid@example.org', roles: ['king'] }, 400, 'staff_roles_invalid'],
      [{ username: 'valid.name', email: 'valid@example.org', roles: ['patient'] }, 400, 'staff_roles_invalid'],
      [{ username: cast.people.therapist.username, email: 'other@example.org', roles: ['therapist'] }, 409, 'username_taken'],
      [{ username: 'other.name', email: cast.people.therapist.email, roles: ['therapist'] }, 409, 'email_taken'],
      [{ username: 'valid.name', email: 'valid@example.org', roles: ['therapist'], isAdmin: true }, 400, 'invalid_request'],
    ] as const;
    for (const [body, status, code] of bad) {
      const answer = await t.api('POST', '/api/staff-accounts', { token: as('coordinator'), body });
      expect([answer.status, answer.body.error], JSON.stringify(body)).toEqual([status, code]);
    }
    const patch = [
      [cast.people.patient.id, { roles: ['therapist'] }, 404, 'staff_account_not_found'],
      ['00000000-0000-4000-8000-000000000000', { disabled: true }, 404, 'staff_account_not_found'],
      ['not-an-id', { disabled: true }, 404, 'staff_account_not_found'],
      [cast.people.therapist.id, { disabled: 'yes' }, 400, 'invalid_request'],
      [cast.people.therapist.id, {}, 400, 'invalid_request'],
    ] as const;
    for (const [id, body, status, code] of patch) {
      const answer = await t.api('PATCH', `/api/staff-accounts/${id}`, { token: as('coordinator'), body });
      expect([answer.status, answer.body.error], `${id} ${JSON.stringify(body)}`).toEqual([status, code]);
    }
    expect(await snapshot()).toEqual(before);
  });
});
