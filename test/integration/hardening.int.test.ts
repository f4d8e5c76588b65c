/**
 * Issue 16's findings, each as a test over real HTTP: the crash queries are refused while the
 * server keeps answering others, no input gets a 500, rate limits hold against forged
 * X-Forwarded-For, sign-in failures neither reveal an account nor lock its owner out, and the
 * account mails cannot be used to learn who has an account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withUser } from '../../src/server/db/transaction';
import type { Mailer } from '../../src/server/mail/mailer';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let therapist: Person, patient: Person;

beforeAll(async () => {
  t = await startTestApp({}, { env: 'production' });
  therapist = await t.user({ flags: ['therapist'] });
  patient = await t.user({ flags: ['patient'] });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

/** The probe's query: cases → members → user → memberships → case …, `levels` times. */
function crashQuery(levels: number): string {
  let inner = 'id';
  for (let i = 0; i < levels; i++) inner = `caseMembersByCaseIdList { userByUserId { caseMembersByUserIdList { caseByCaseId { id ${inner} } } } }`;
  return `query Crash { allCasesList { ${inner} } }`;
}

async function healthzMs(): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  const response = await fetch(`${t.url}/healthz`);
  return { status: response.status, ms: performance.now() - start };
}

describe('bounded GraphQL', () => {
  it('refuses the 22-level crash query with a clear GraphQL error, and keeps answering everyone else', async () => {
    const attacks = Array.from({ length: 3 }, () => t.api('POST', '/api/graphql', { token: therapist.token, body: { query: crashQuery(22) } }));
    const health = healthzMs();
    const answers = await Promise.all(attacks);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
      expect(answer.body.errors[0].message).toMatch(/levels deep; at most 12/);
    }
    expect((await health).status).toBe(200);
    const mine = await t.graphql('{ allCasesList { id } }', {}, patient.token);
    expect(mine.data.allCasesList).toEqual([{ id: patient.caseId }]);
  });

  it('refuses a shallower but costly version and the alias attacks (150 and 5,000 aliases)', async () => {
    const costly = await t.api('POST', '/api/graphql', { token: therapist.token, body: { query: crashQuery(2) } });
    expect(costly.status).toBe(400);
    expect(costly.body.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
    for (const count of [150, 5000]) {
      const fields = Array.from({ length: count }, (_, i) => `a${i}: allCasesList { caseMembersByCaseIdList { userByUserId { id } } }`).join(' ');
      const answer = await t.api('POST', '/api/graphql', { token: patient.token, body: { query: `{ ${fields} }` } });
      // 5,000 aliases are larger than the body limit itself (413) before any limit is measured.
      expect([400, 413]).toContain(answer.status);
      if (answer.status === 400) expect(answer.body.errors[0].extensions.code).toMatch(/TOO_MANY_ALIASES|QUERY_TOO_LONG|QUERY_TOO_COSTLY/);
    }
  });

  it('refuses anonymous introspection in production, and lets signed-in people introspect', async () => {
    const query = '{ __schema { queryType { name } } }';
    const anonymous = await t.api('POST', '/api/graphql', { body: { query } });
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.errors[0].extensions.code).toBe('INTROSPECTION_DISABLED');
    const viaGet = await t.api('GET', `/api/graphql?query=${encodeURIComponent(query)}`);
    expect(viaGet.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(viaGet.body)).not.toContain('"queryType":{"name"');
    const signedIn = await t.graphql(query, {}, patient.token);
    expect(signedIn.data.__schema.queryType.name).toBe('Query');
  });

  it('gives request transactions a statement timeout (SET LOCAL ROLE does not apply role settings)', async () => {
    const shown = await withUser(t.database.db.pool, { userId: patient.id }, async (sql) => (await sql.query('show statement_timeout')).rows[0].statement_timeout);
    expect(shown).toBe('15s');
    const graphqlSetting = await t.graphql(`{ currentUser { id } }`, {}, patient.token);
    expect(graphqlSetting.errors).toBeUndefined();
  });
});

describe('no 5xx for input', () => {
  it('answers a body key named like an Object method with a field error, not a 500 (the reproducer)', async () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const answer = await t.api('POST', '/api/auth/tokens', { rawBody: `{"${key}":"x","username":"a","password":"b"}` });
      expect(answer.status).toBe(400);
      // `__proto__` is refused by the JSON parser itself; the others reach the schema check.
      if (key !== '__proto__') {
        expect(answer.body.error).toBe('invalid_request');
        expect(answer.body.fields[key][0].code).toBe('schema_additionalProperties');
      }
    }
    const registration = await t.api('POST', '/api/auth/users/register', { rawBody: '{"user":{"constructor":1,"toString":2}}' });
    expect(registration.status).toBe(400);
  });
});

describe('rate limits that hold', () => {
  it('ignores X-Forwarded-For from anyone when no proxy is trusted: rotating forged addresses still get 429', async () => {
    const limited = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '30' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const answer = await limited.api('POST', '/api/auth/tokens', {
          body: { username: 'someone', password: 'a guess' },
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        });
        statuses.push(answer.status);
        if (answer.status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    } finally {
      await limited.close();
    }
  });

  it('limits each person on GraphQL, REST and workflow routes, with 429 and Retry-After, and leaves others alone', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_PERSON_PER_MINUTE: '4' });
    try {
      const one = await limited.user({ flags: ['patient'] });
      const other = await limited.user({ flags: ['patient'] });
      const routes = [
        () => limited.api('POST', '/api/graphql', { token: one.token, body: { query: '{ currentUser { id } }' } }),
        () => limited.api('GET', '/api/my_messages', { token: one.token }),
        () => limited.api('GET', '/api/workflow/rest/task/00000000-0000-4000-8000-000000000000', { token: one.token }),
      ];
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await routes[i % 3]!()).status);
      expect(statuses.slice(0, 4).every((s) => s !== 429 && s < 500)).toBe(true);
      expect(statuses.slice(4)).toEqual([429, 429]);
      const refused = await routes[0]!();
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      const rest = await routes[1]!();
      expect(rest.body.error).toBe('rate_limited');
      expect((await limited.api('POST', '/api/graphql', { token: other.token, body: { query: '{ currentUser { id } }' } })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('limits each address, counting the forwarded address only from a trusted proxy', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' });
    try {
      const from = (address: string) => limited.api('GET', '/api/pages/about', { headers: { 'x-forwarded-for': address } });
      const first = [await from('203.0.113.1'), await from('203.0.113.1'), await from('203.0.113.1'), await from('203.0.113.1')];
      expect(first.map((r) => r.status === 429)).toEqual([false, false, false, true]);
      expect((await from('203.0.113.2')).status).not.toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('no enumeration, no lock-out of others', () => {
  it('slows the attacker’s address, never the real person signing in from elsewhere', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1', LOCKOUT_MAX_ATTEMPTS_PER_ADDRESS: '20' });
    try {
      const staff = await proxied.user({ flags: ['coordinator'] });
      const attacker = { 'x-forwarded-for': '203.0.113.66' };
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await proxied.api('POST', '/api/auth/tokens', { body: { username: staff.username, password: `guess ${i}` }, headers: attacker })).status);
      }
      expect(statuses).not.toContain(423);
      expect(statuses).toContain(429);
      // Even the right password waits at the attacker's address …
      const attackerRight = await proxied.api('POST', '/api/auth/tokens', { body: { username: staff.username, password: staff.password }, headers: attacker });
      expect(attackerRight.status).toBe(429);
      // … while the owner, elsewhere, signs in at once.
      const owner = await proxied.api('POST', '/api/auth/tokens', {
        body: { username: staff.username, password: staff.password },
        headers: { 'x-forwarded-for': '198.51.100.20' },
      });
      expect(owner.status).toBe(201);
    } finally {
      await proxied.close();
    }
  });

  it('answers a known and an unknown name alike, also once slowed', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      const user = await proxied.user({});
      const run = async (username: string, address: string) => {
        const answers = [];
        for (let i = 0; i < 7; i++) {
          const r = await proxied.api('POST', '/api/auth/tokens', { body: { username, password: `guess ${i}` }, headers: { 'x-forwarded-for': address } });
          answers.push({ status: r.status, error: r.body.error, retryAfter: r.headers.get('retry-after') });
        }
        return answers;
      };
      expect(await run(user.username, '203.0.113.10')).toEqual(await run('no-such-person', '203.0.113.11'));
      expect(await run(user.email, '203.0.113.12')).toEqual(await run('no-such@example.org', '203.0.113.13'));
    } finally {
      await proxied.close();
    }
  });

  it('answers an email change alike whether the address is taken, and tells the owner of a taken one', async () => {
    const user = await t.user({ locale: 'en' });
    const owner = await t.user({ locale: 'en' });
    const taken = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: owner.email, password: user.password } });
    const free = await t.api('POST', '/api/auth/email-change', { token: user.token, body: { newEmail: `new-${user.email}`, password: user.password } });
    expect(taken.status).toBe(202);
    expect(taken.body).toEqual(free.body);
    const notice = await t.smtp.waitFor(owner.email, /someone tried to use your email address/);
    expect(notice.text).not.toContain(user.username);
    await t.smtp.waitFor(`new-${user.email}`, /./);
  });
});

describe('reset and resend answer before any mail is sent', () => {
  it('answers known and unknown addresses while the mailer is still held back', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sent: string[] = [];
    const heldMailer: Mailer = {
      async send(mail) {
        await gate;
        sent.push(`${mail.kind}:${mail.to}`);
        return true;
      },
      async sendRendered() {
        await gate;
        return true;
      },
      close() {},
    };
    const held = await startTestApp({}, {}, { mailer: heldMailer });
    try {
      const known = await held.user({ confirmed: false });
      const confirmed = await held.user({});
      const answers = await Promise.all([
        held.api('POST', '/api/auth/password-reset', { body: { email: confirmed.email } }),
        held.api('POST', '/api/auth/password-reset', { body: { email: 'nobody@example.org' } }),
        held.api('POST', '/api/auth/users/resend-confirmation', { body: { email: known.email } }),
        held.api('POST', '/api/auth/users/resend-confirmation', { body: { email: 'nobody@example.org' } }),
      ]);
      // Every answer arrived although no mail could be sent yet.
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
      expect(answers[0]!.body).toEqual(answers[1]!.body);
      expect(answers[2]!.body).toEqual(answers[3]!.body);
      expect(sent).toEqual([]);
      release();
      await held.sanad.auth.background?.idle();
      expect(sent.sort()).toEqual([`confirm_registration:${known.email}`, `reset_password:${confirmed.email}`].sort());
    } finally {
      release();
      await held.close();
    }
  });
});
