/**
 * GET /api/auth/users/me sends the profile as JSON text PostgreSQL writes (service.ts,
 * getProfileJson). Clients must get the very bytes they got when node-postgres read the row and
 * Fastify serialised it: these tests compare the answer with JSON.stringify(getProfile(…)).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProfile } from '../../src/server/auth/service';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function rawMe(token: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${t.url}/api/auth/users/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function expectSameBytes(user: { id: string; token: string }): Promise<string> {
  const me = await rawMe(user.token);
  expect(me.status).toBe(200);
  expect(me.type).toBe('application/json; charset=utf-8');
  const profile = await getProfile(t.sanad.auth, { userId: user.id });
  expect(me.text).toBe(JSON.stringify(profile));
  return me.text;
}

describe('the profile as JSON text from PostgreSQL', () => {
  it('sends the bytes JSON.stringify wrote for a fresh account', async () => {
    const user = await t.user({ flags: ['therapist'] });
    const text = await expectSameBytes(user);
    expect(JSON.parse(text)).toMatchObject({ id: user.id, username: user.username, email: user.email });
  });

  it('writes timestamps as Date#toJSON does (UTC, milliseconds cut, Z) and escapes text alike', async () => {
    const user = await t.user({ flags: ['patient'] });
    const alias = 'Q"uote \\ back/slash\n\ttab\r\u0001\u001f\u007f \u2028\u2029 \u{1F600} ليلى';
    await t.database.db.pool.query(
      `update app_public.users
          set alias = $2, phone = null, nr_of_logins = 12345,
              last_login = '2026-03-04 05:06:07.678999+00',
              anti_suicide_contract_at = '1999-12-31 23:59:59.9999+03',
              email_confirmed_at = '2026-01-01 00:00:00+00',
              access_path_detail = E'a\\\\b "c"'
        where id = $1`,
      [user.id, alias],
    );
    const text = await expectSameBytes(user);
    const sent = JSON.parse(text) as Record<string, unknown>;
    expect(sent.alias).toBe(alias);
    expect(sent.last_login).toBe('2026-03-04T05:06:07.678Z');
    expect(sent.anti_suicide_contract_at).toBe('1999-12-31T20:59:59.999Z');
    expect(sent.email_confirmed_at).toBe('2026-01-01T00:00:00.000Z');
    expect(sent.phone).toBeNull();
    expect(sent.nr_of_logins).toBe(12345);
  });
});
