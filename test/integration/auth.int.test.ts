/**
 * Account flows end to end over HTTP, with the mails read from a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { tokenFromMail } from '../helpers/smtp';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const registration = (overrides: Record<string, unknown> = {}) => ({
  user: {
    username: `pat${Math.random().toString(36).slice(2, 8)}`,
    password: 'a long enough secret',
    agreedToTerms: true,
    agreedToPrivacyPolicy: true,
    confirmedAdult: true,
    locale: 'ar',
    ...overrides,
    email: (overrides.email as string | undefined) ?? `p${Math.random().toString(36).slice(2, 10)}@example.org`,
  },
});

async function countRows(table: string): Promise<number> {
  const { rows } = await t.database.db.pool.query<{ n: number }>(`select count(*) as n from ${table}`);
  return rows[0]!.n;
}

async function registerAndConfirm(overrides: Record<string, unknown> = {}) {
  const body = registration(overrides);
  const registered = await t.api('POST', '/api/auth/users/register', { body });
  expect(registered.status).toBe(202);
  const mail = await t.smtp.waitFor(body.user.email, /./);
  const confirmed = await t.api('POST', '/api/auth/users/confirm', { body: { token: tokenFromMail(mail) } });
  expect(confirmed.status).toBe(200);
  return body.user;
}

describe('registration and confirmation', () => {
  it('registers a patient with a case, mails an Arabic confirmation link, and signs in after confirming', async () => {
    const body = registration({ alias: 'Layla', gender: 'FEMALE', timeZone: 'Asia/Baghdad' });
    const registered = await t.api('POST', '/api/auth/users/register', { body });
    expect(registered.status).toBe(202);
    expect(registered.body.status).toBe('confirmation_sent');

    // Not yet confirmed: sign-in says so, with a code the web app translates.
    const early = await t.api('POST', '/api/auth/tokens', { body: { username: body.user.username, password: body.user.password } });
    expect(early.status).toBe(403);
    expect(early.body.error).toBe('email_unconfirmed');

    const mail = await t.smtp.waitFor(body.user.email, /سند/);
    expect(mail.language).toBe('ar');
    expect(mail.text).toContain('http://sanad.test/confirm-registration?token=');
    const confirmed = await t.api('POST', '/api/auth/users/confirm', { body: { token: tokenFromMail(mail) } });
    expect(confirmed.status).toBe(200);

    const signedIn = await t.api('POST', '/api/auth/tokens', { body: { username: body.user.email, password: body.user.password } });
    expect(signedIn.status).toBe(201);
    expect(typeof signedIn.body.encoded).toBe('string');

    const me = await t.api('GET', '/api/auth/users/me', { token: signedIn.body.encoded });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      username: body.user.username,
      alias: 'Layla',
      gender: 'FEMALE',
      time_zone: 'Asia/Baghdad',
      locale: 'ar',
      is_patient_account: true,
      is_coordinator_account: false,
      is_interviewer_account: false,
      is_therapist_account: false,
      is_supervisor_account: false,
      is_supporter_account: false,
      nr_of_logins: 1,
    });
    expect(me.body.last_login).toBeTruthy();
    expect(me.body).not.toHaveProperty('password_hash');

    // The patient's case exists, in stage registration, with the patient as its member.
    const cases = await t.graphql(
      `{ allCases { nodes { stage shortId caseMembersByCaseId { nodes { actsAsPatient userId } } } } }`,
      {},
      signedIn.body.encoded,
    );
    expect(cases.errors).toBeUndefined();
    expect(cases.data.allCases.nodes).toHaveLength(1);
    expect(cases.data.allCases.nodes[0].stage).toBe('registration');
    expect(cases.data.allCases.nodes[0].caseMembersByCaseId.nodes).toEqual([{ actsAsPatient: true, userId: me.body.id }]);
  });

  it('the counseling variant sets the counseling flags', async () => {
    const user = await registerAndConfirm({ counseling: true, locale: 'de' });
    const token = await t.signIn(user.username, user.password);
    const me = await t.api('GET', '/api/auth/users/me', { token });
    expect(me.body).toMatchObject({ is_counseling_only: true, registered_for_counseling: true, is_patient_account: true, locale: 'de' });
  });

  it('greets by the chosen name, not the username, when registering and when resetting the password (issue 25)', async () => {
    const user = await registerAndConfirm({ alias: 'ريم', locale: 'ar' });
    const first = t.smtp.mails.find((m) => m.to.includes(user.email.toLowerCase()))!;
    expect(first.text).toContain('مرحبًا ريم');
    expect(first.text).not.toContain(user.username);
    t.smtp.clear();
    const requested = await t.api('POST', '/api/auth/password-reset', { body: { email: user.email } });
    expect(requested.status).toBeLessThan(300);
    const reset = await t.smtp.waitFor(user.email);
    expect(reset.text).toContain('مرحبًا ريم');
    expect(reset.text).not.toContain(user.username);
    // Without a chosen name the username greets, as before.
    const plain = await registerAndConfirm({ locale: 'en' });
    const greeting = t.smtp.mails.find((m) => m.to.includes(plain.email.toLowerCase()))!;
    expect(greeting.text).toContain(`Hello ${plain.username},`);
  });

  it('mails in the registrant’s locale', async () => {
    const body = registration({ locale: 'de' });
    await t.api('POST', '/api/auth/users/register', { body });
    const mail = await t.smtp.waitFor(body.user.email);
    expect(mail.subject).toMatch(/Bitte bestätigen/);
    expect(mail.language).toBe('de');
  });

  it('gives the same answer for an address that already has an account, and tells its owner', async () => {
    const existing = await t.user({});
    const usersBefore = await countRows('app_public.users');
    const response = await t.api('POST', '/api/auth/users/register', { body: registration({ email: existing.email }) });
    expect(response.status).toBe(202);
    expect(response.body.status).toBe('confirmation_sent');
    expect(await countRows('app_public.users')).toBe(usersBefore);
    const notice = await t.smtp.waitFor(existing.email);
    expect(notice.text).toContain('/reset-password');
  });

  it('reports a taken username as a field error', async () => {
    const existing = await t.user({});
    const response = await t.api('POST', '/api/auth/users/register', { body: registration({ username: existing.username.toUpperCase() }) });
    expect(response.status).toBe(400);
    expect(response.body.fields.username[0].code).toBe('username_taken');
  });

  it('refuses a reused or unknown confirmation link', async () => {
    const body = registration();
    await t.api('POST', '/api/auth/users/register', { body });
    const token = tokenFromMail(await t.smtp.waitFor(body.user.email));
    expect((await t.api('POST', '/api/auth/users/confirm', { body: { token } })).status).toBe(200);
    const reused = await t.api('POST', '/api/auth/users/confirm', { body: { token } });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('token_used');
    const unknown = await t.api('POST', '/api/auth/users/confirm', { body: { token: 'not-a-token' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('token_invalid');
  });

  it('refuses an expired confirmation link and a resend produces a working one', async () => {
    const body = registration();
    await t.api('POST', '/api/auth/users/register', { body });
    const token = tokenFromMail(await t.smtp.waitFor(body.user.email));
    await t.database.db.pool.query(
      `update app_private.action_tokens set expires_at = now() - interval '1 minute'
        where user_id = (select id from app_public.users where email = $1)`,
      [body.user.email],
    );
    const expired = await t.api('POST', '/api/auth/users/confirm', { body: { token } });
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('token_expired');

    t.smtp.clear();
    const resent = await t.api('POST', '/api/auth/users/resend-confirmation', { body: { email: body.user.email } });
    expect(resent.status).toBe(202);
    const fresh = tokenFromMail(await t.smtp.waitFor(body.user.email));
    expect((await t.api('POST', '/api/auth/users/confirm', { body: { token: fresh } })).status).toBe(200);
  });

  it('answers a resend for an unknown address exactly like a known one', async () => {
    const known = await t.api('POST', '/api/auth/users/resend-confirmation', { body: { email: 'nobody@example.org' } });
    const user = await t.user({ confirmed: false });
    const other = await t.api('POST', '/api/auth/users/resend-confirmation', { body: { email: user.email } });
    expect(known.status).toBe(other.status);
    expect(known.body).toEqual(other.body);
  });
});

describe('bad registration input changes nothing', () => {
  const cases: [string, unknown, string][] = [
    ['missing fields', { user: { username: 'someone' } }, 'email'],
    ['wrong types', { user: { ...registration().user, confirmedAdult: 'yes' } }, 'confirmedAdult'],
    ['invalid email', registration({ email: 'not-an-address' }), 'email'],
    ['short password', registration({ password: 'short' }), 'password'],
    ['password equal to username', registration({ username: 'samesame123', password: 'samesame123' }), 'password'],
    ['unknown field', { user: { ...registration().user, isCoordinatorAccount: true } }, 'isCoordinatorAccount'],
    ['unsupported locale', registration({ locale: 'fr' }), 'locale'],
    ['unknown time zone', registration({ timeZone: 'Mars/Olympus' }), 'timeZone'],
    ['consent missing', registration({ agreedToTerms: false }), 'agreedToTerms'],
  ];
  it.each(cases)('%s → 400 with a field error, no account', async (_name, body, field) => {
    const before = await countRows('app_public.users');
    const response = await t.api('POST', '/api/auth/users/register', { body });
    expect(response.status).toBe(400);
    expect(typeof response.body.message).toBe('string');
    expect(Object.keys(response.body.fields)).toContain(field);
    expect(await countRows('app_public.users')).toBe(before);
    expect(await countRows('app_public.cases')).toBeGreaterThanOrEqual(0);
  });

  it('malformed JSON → 400 with a clear message', async () => {
    const before = await countRows('app_public.users');
    const response = await t.api('POST', '/api/auth/users/register', { rawBody: '{"user": {' });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('The request body is not valid JSON.');
    expect(await countRows('app_public.users')).toBe(before);
  });

  it('an oversize body → 413', async () => {
    const response = await t.api('POST', '/api/auth/users/register', {
      body: registration({ alias: 'x'.repeat(t.config.bodyLimitBytes + 10) }),
    });
    expect(response.status).toBe(413);
    expect(response.body.message).toMatch(/too large/);
  });
});

describe('sign-in', () => {
  it('answers an unknown user and a wrong password alike', async () => {
    const user = await t.user({});
    const unknown = await t.api('POST', '/api/auth/tokens', { body: { username: 'no-such-user', password: 'whatever it is' } });
    const wrong = await t.api('POST', '/api/auth/tokens', { body: { username: user.username, password: 'wrong password!' } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error).toBe('invalid_credentials');
  });

  // Issue 16 replaced the account lock (423, a switch anyone could flip) with growing delays per
  // name and address; the answer never says whether the name exists (docs/decisions/0002-sign-in-and-tokens.md).
  it('slows a name after five failures at one address, alike for known and unknown names, never with a lock', async () => {
    const user = await t.user({});
    const attempts = async (username: string) => {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await t.api('POST', '/api/auth/tokens', { body: { username, password: `wrong guess ${i}` } }));
      return answers;
    };
    const known = await attempts(user.username);
    const unknown = await attempts(`nobody-${user.username}`);
    expect(known.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(unknown.map((r) => r.status)).toEqual(known.map((r) => r.status));
    expect(known[5]!.body.error).toBe('too_many_attempts');
    expect(known[5]!.headers.get('retry-after')).toBe('1');
    expect({ ...known[5]!.body, message: '' }).toEqual({ ...unknown[5]!.body, message: '' });
    // Nothing is written to the account: no lock exists for anyone to switch on.
    const { rows } = await t.database.db.pool.query(`select locked_until from app_private.user_secrets where user_id = $1`, [user.id]);
    expect(rows[0].locked_until).toBeNull();
    // Once the short wait is over, the right password gets in.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const right = await t.api('POST', '/api/auth/tokens', { body: { username: user.username, password: user.password } });
    expect(right.status).toBe(201);
  });

  it('records last login and the number of logins', async () => {
    const user = await t.user({});
    await t.signIn(user.username, user.password);
    const me = await t.api('GET', '/api/auth/users/me', { token: user.token });
    expect(me.body.nr_of_logins).toBe(2);
  });

  it('rejects missing credentials with a 400', async () => {
    const response = await t.api('POST', '/api/auth/tokens', { body: { password: 'x' } });
    expect(response.status).toBe(400);
  });
});

describe('tokens', () => {
  it('sign-out revokes the token', async () => {
    const user = await t.user({});
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(200);
    expect((await t.api('DELETE', '/api/auth/tokens/current', { token: user.token })).status).toBe(204);
    const after = await t.api('GET', '/api/auth/users/me', { token: user.token });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('session_invalid');
    // GraphQL refuses it too instead of silently treating the caller as anonymous.
    const gql = await t.api('POST', '/api/graphql', { token: user.token, body: { query: '{ currentUser { id } }' } });
    expect(gql.status).toBe(401);
  });

  it('rejects a forged, malformed or expired token', async () => {
    const user = await t.user({});
    const [header, payload] = user.token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(43)}`;
    expect((await t.api('GET', '/api/auth/users/me', { token: forged })).status).toBe(401);
    const malformed = await t.api('GET', '/api/auth/users/me', { headers: { authorization: 'Token abc' } });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error).toBe('authorization_malformed');
    await t.database.db.pool.query(`update app_private.login_tokens set expires_at = now() - interval '1 second' where user_id = $1`, [user.id]);
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(401);
  });

  it('me without a token is 401', async () => {
    const response = await t.api('GET', '/api/auth/users/me');
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('sign_in_required');
  });
});

describe('password change and reset', () => {
  it('changing the password revokes the other sessions but keeps this one', async () => {
    const user = await t.user({ locale: 'en' });
    const other = await t.signIn(user.username, user.password);
    const changed = await t.api('PUT', '/api/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'a brand new secret' },
    });
    expect(changed.status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me', { token: other })).status).toBe(401);
    await t.signIn(user.username, 'a brand new secret');
    await t.smtp.waitFor(user.email, /password/i);
  });

  it('refuses a wrong current password or a weak new one, changing nothing', async () => {
    const user = await t.user({});
    const wrong = await t.api('PUT', '/api/auth/password', { token: user.token, body: { currentPassword: 'not it at all', newPassword: 'a brand new secret' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fields.currentPassword[0].code).toBe('password_wrong');
    const weak = await t.api('PUT', '/api/auth/password', { token: user.token, body: { currentPassword: user.password, newPassword: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.body.fields.newPassword[0].code).toBe('password_too_short');
    await t.signIn(user.username, user.password);
  });

  it('resets a forgotten password through the mailed link, ending every session and the lockout', async () => {
    const user = await t.user({ locale: 'en' });
    await t.database.db.pool.query(`update app_private.user_secrets set locked_until = now() + interval '10 minutes' where user_id = $1`, [user.id]);
    const requested = await t.api('POST', '/api/auth/password-reset', { body: { email: user.email } });
    expect(requested.status).toBe(202);
    const unknown = await t.api('POST', '/api/auth/password-reset', { body: { email: 'nobody-here@example.org' } });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(requested.body);

    const mail = await t.smtp.waitFor(user.email, /reset your password/);
    const token = tokenFromMail(mail);
    const weak = await t.api('POST', '/api/auth/password-reset/confirm', { body: { token, password: 'short' } });
    expect(weak.status).toBe(400);
    const done = await t.api('POST', '/api/auth/password-reset/confirm', { body: { token, password: 'another good secret' } });
    expect(done.status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(401);
    await t.signIn(user.username, 'another good secret');
    const again = await t.api('POST', '/api/auth/password-reset/confirm', { body: { token, password: 'yet another secret' } });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('token_used');
  });

  it('an older reset link dies once the password changed', async () => {
    const user = await t.user({ locale: 'en' });
    await t.api('POST', '/api/auth/password-reset', { body: { email: user.email } });
    const token = tokenFromMail(await t.smtp.waitFor(user.email, /reset/i));
    await t.api('PUT', '/api/auth/password', { token: user.token, body: { currentPassword: user.password, newPassword: 'changed meanwhile' } });
    const late = await t.api('POST', '/api/auth/password-reset/confirm', { body: { token, password: 'a late new secret' } });
    expect(late.status).toBe(400);
    await t.signIn(user.username, 'changed meanwhile');
  });
});

describe('email change', () => {
  it('changes the address after confirmation from the new one, telling the old one', async () => {
    const user = await t.user({ locale: 'de' });
    const newEmail = `new-${user.email}`;
    const requested = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail, password: user.password } });
    expect(requested.status).toBe(202);
    await t.smtp.waitFor(user.email, /Änderung/);
    const token = tokenFromMail(await t.smtp.waitFor(newEmail, /Neue E-Mail-Adresse/));
    // Nothing changes before confirmation.
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).body.email).toBe(user.email);
    const confirmed = await t.api('POST', '/api/auth/email-change/confirm', { body: { token } });
    expect(confirmed.status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).body.email).toBe(newEmail);
    expect((await t.api('POST', '/api/auth/email-change/confirm', { body: { token } })).body.error).toBe('token_used');
  });

  it('refuses a wrong password, an invalid or taken address', async () => {
    const user = await t.user({});
    const other = await t.user({});
    const wrong = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: 'x@example.org', password: 'wrong one here' } });
    expect(wrong.status).toBe(400);
    const invalid = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: 'nope', password: user.password } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.fields.newEmail[0].code).toBe('email_format');
    const taken = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: other.email, password: user.password } });
    // Issue 16: a taken address answers like a free one; its owner is told by mail instead.
    expect(taken.status).toBe(202);
    const free = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: `free-${other.email}`, password: user.password } });
    expect(taken.body).toEqual(free.body);
    await t.smtp.waitFor(other.email, /someone tried to use your email address|E-Mail-Adresse sollte|عنوان بريدك/);
    const signedOut = await t.api('POST', '/api/auth/email-change', { body: { newEmail: 'y@example.org', password: user.password } });
    expect(signedOut.status).toBe(401);
  });
});

describe('profile', () => {
  it('updates alias, phone, locale and time zone', async () => {
    const user = await t.user({});
    const response = await t.api('PATCH', '/api/auth/users/me', {
      token: user.token,
      body: { alias: 'Sami', phone: '+49 30 1234567', locale: 'en', timeZone: 'Europe/Berlin' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ alias: 'Sami', phone: '+49 30 1234567', locale: 'en', time_zone: 'Europe/Berlin' });
  });

  it('refuses an unsupported locale with the spec’s message, and flags it cannot set', async () => {
    const user = await t.user({});
    const locale = await t.api('PATCH', '/api/auth/users/me', { token: user.token, body: { locale: 'fr' } });
    expect(locale.status).toBe(400);
    expect(locale.body.fields.locale[0].message).toMatch(/^The locale is unsupported/);
    const flag = await t.api('PATCH', '/api/auth/users/me', { token: user.token, body: { is_coordinator_account: true } });
    expect(flag.status).toBe(400);
    const me = await t.api('GET', '/api/auth/users/me', { token: user.token });
    expect(me.body.is_coordinator_account).toBe(false);
  });
});

describe('the verified-token cache', () => {
  it('still ends a session at once on sign-out and password change', async () => {
    const cached = await startTestApp({ TOKEN_CACHE_SECONDS: '60' });
    try {
      const user = await cached.user({});
      const other = await cached.signIn(user.username, user.password);
      expect((await cached.api('GET', '/api/auth/users/me', { token: other })).status).toBe(200);
      expect((await cached.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(200);
      // Only the exact token that verified is remembered: a changed signature is checked and refused.
      const tampered = other.slice(0, -4) + (other.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect((await cached.api('GET', '/api/auth/users/me', { token: tampered })).status).toBe(401);
      await cached.api('PUT', '/api/auth/password', { token: user.token, body: { currentPassword: user.password, newPassword: 'a fresh new secret' } });
      expect((await cached.api('GET', '/api/auth/users/me', { token: other })).status).toBe(401);
      await cached.api('DELETE', '/api/auth/tokens/current', { token: user.token });
      expect((await cached.api('GET', '/api/auth/users/me', { token: user.token })).status).toBe(401);
    } finally {
      await cached.close();
    }
  });
});
