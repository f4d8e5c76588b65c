/**
 * A running Sanad for integration tests: a fresh database, a real SMTP server catching the
 * mails, and the app listening on a free port so requests go over real HTTP.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/server/config';
import { buildApp, type AppDeps, type SanadApp } from '../../src/server/app';
import { createUser, type NewUser } from '../../src/server/admin/accounts';
import { seedDefaultPages } from '../../src/server/content/pages';
import { createTestDatabase, type TestDatabase } from './databases';
import { startSmtp, type TestSmtp } from './smtp';
import { SIGNATURE_HEADER } from '../../src/domain/signatures';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestApp {
  url: string;
  config: Config;
  database: TestDatabase;
  smtp: TestSmtp;
  sanad: SanadApp;
  /** JSON request; `token` adds the bearer header. */
  api<T = any>(method: string, path: string, options?: { body?: unknown; token?: string; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  /** Creates a confirmed account directly (a factory) and returns its id and a bearer token. */
  user(input: Partial<NewUser> & { flags?: NewUser['flags'] }): Promise<{ id: string; caseId?: string; token: string; username: string; password: string; email: string }>;
  signIn(username: string, password: string): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

/** JSON requests over real HTTP to an app listening at `url` (TestApp.api). */
export function apiClient(url: string): TestApp['api'] {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as never, headers: response.headers };
  };
}

export async function startTestApp(
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
  deps: Pick<AppDeps, 'workflowClock' | 'workflowHandlers' | 'mailer' | 'logger'> = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const smtp = await startSmtp();
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      DATA_DIR: database.dataDir,
      SMTP_URL: smtp.url,
      PUBLIC_URL: 'http://sanad.test',
      AUTH_RATE_LIMIT_PER_MINUTE: '10000',
      // Issue 16's limits are tested by their own files, which set what they need.
      RATE_LIMIT_PER_PERSON_PER_MINUTE: '0',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
      LOCKOUT_MAX_ATTEMPTS_PER_ADDRESS: '10000',
      JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
      // Tests change token rows directly to simulate time; the cache has its own tests.
      TOKEN_CACHE_SECONDS: '0',
      // Issue 30: no role must use a second factor unless a test says so (the MFA tests do).
      MFA_REQUIRED_ROLES: '',
      ...env,
    },
    overrides,
  );
  // As main.ts does at start: the information pages exist in every database.
  await seedDefaultPages(database.db.pool);
  const sanad = await buildApp({ config, db: database.db, ...deps });
  await sanad.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = sanad.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const raw = apiClient(url);
  // Issue 30: the signed acts refuse without a signing token. Tests that are not about the
  // signature sign as the web's dialog does: on 403 signature_required the person
  // re-authenticates with their password (POST /api/signing/tokens) and the call is repeated
  // with the token. A refused call changed nothing, so repeating it is what a person does.
  // The signature's own tests (e-signatures.int.test.ts) call apiClient directly.
  const passwords = new Map<string, string>();
  const api: TestApp['api'] = async (method, path, options = {}) => {
    const answer = await raw(method, path, options);
    const asked = answer.status === 403 && answer.body?.error === 'signature_required' ? answer.body : answer.status === 403 && answer.body?.code === 'signature_required' ? answer.body.details : undefined;
    const password = options.token ? passwords.get(options.token) : undefined;
    if (!asked || !password || options.headers?.[SIGNATURE_HEADER] !== undefined) return answer;
    const signed = await raw('POST', '/api/signing/tokens', { token: options.token!, body: { act: asked.act, recordId: asked.recordId, password } });
    if (signed.status !== 201) return answer;
    return raw(method, path, { ...options, headers: { ...options.headers, [SIGNATURE_HEADER]: signed.body.token } });
  };

  const signIn = async (username: string, password: string) => {
    const response = await raw('POST', '/api/auth/tokens', { body: { username, password } });
    if (response.status !== 201) throw new Error(`sign-in failed: ${JSON.stringify(response.body)}`);
    passwords.set(response.body.encoded as string, password);
    return response.body.encoded as string;
  };

  return {
    url,
    config,
    database,
    smtp,
    sanad,
    api,
    async graphql(query, variables, token) {
      const response = await api('POST', '/api/graphql', { body: { query, variables }, ...(token ? { token } : {}) });
      return response.body;
    },
    async user(input) {
      counter += 1;
      const username = input.username ?? `user${counter}_${Math.random().toString(36).slice(2, 8)}`;
      const password = input.password ?? 'correct horse battery';
      const email = input.email ?? `${username}@example.org`;
      const created = await createUser(database.db.pool, { ...input, username, password, email });
      const token = input.confirmed === false ? '' : await signIn(username, password);
      return { ...created, token, username, password, email };
    },
    signIn,
    async close() {
      await sanad.close();
      await smtp.close();
      await database.destroy();
    },
  };
}
