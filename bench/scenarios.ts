/**
 * What the benchmark asks of the server: the requests of each scenario, the bearer tokens they
 * need, and a check that the seeded data looks as expected through the API, so that a broken
 * policy (say, a therapist seeing no cases) cannot pass for a fast one.
 */
import type { LoadRequest } from './load';
import { SEED_PASSWORD, type SeededTrial } from './seed';

export interface Scenario {
  name: string;
  request: LoadRequest;
}

export interface Tokens {
  therapist: string;
  coordinator: string;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

const ALL_CASES = '{ allCases { nodes { id shortId stage } } }';
const FIRST_50_CASES = '{ allCases(first: 50) { nodes { id shortId stage } } }';

export function scenarios(trial: SeededTrial, tokens: Tokens): Scenario[] {
  return [
    {
      name: 'sign-in',
      // Spread over all staff accounts: sign-in updates the account's row, and 32 clients
      // signing in as one person would measure a row lock no real trial has.
      request: {
        method: 'POST',
        path: '/api/auth/tokens',
        headers: JSON_HEADERS,
        bodies: trial.staff.map((username) => JSON.stringify({ username, password: SEED_PASSWORD })),
      },
    },
    {
      name: 'GET /api/auth/users/me',
      request: { method: 'GET', path: '/api/auth/users/me', headers: bearer(tokens.therapist) },
    },
    { name: `allCases, therapist (${trial.therapistCaseCount})`, request: graphql(ALL_CASES, tokens.therapist) },
    { name: `allCases, coordinator (${trial.totalCases})`, request: graphql(ALL_CASES, tokens.coordinator) },
    { name: 'allCases(first: 50), coordinator', request: graphql(FIRST_50_CASES, tokens.coordinator) },
  ];
}

function bearer(token: string): Record<string, string> {
  return { accept: 'application/json', authorization: `Bearer ${token}` };
}

function graphql(query: string, token: string): LoadRequest {
  return {
    method: 'POST',
    path: '/api/graphql',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    bodies: [JSON.stringify({ query })],
    graphql: true,
  };
}

export async function signInAll(baseUrl: string, trial: SeededTrial): Promise<Tokens> {
  return { therapist: await signIn(baseUrl, trial.therapist), coordinator: await signIn(baseUrl, trial.coordinator) };
}

export async function signIn(baseUrl: string, username: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/tokens`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ username, password: SEED_PASSWORD }),
  });
  const body = (await response.json()) as { encoded?: string };
  if (response.status !== 201 || !body.encoded) throw new Error(`Signing in as ${username} failed: ${response.status} ${JSON.stringify(body)}`);
  return body.encoded;
}

/** Throws unless every scenario's request answers as the seed says it should. */
export async function checkAnswers(baseUrl: string, trial: SeededTrial, tokens: Tokens): Promise<void> {
  const me = await fetch(`${baseUrl}/api/auth/users/me`, { headers: bearer(tokens.therapist) });
  const profile = (await me.json()) as { username?: string };
  if (profile.username !== trial.therapist) throw new Error(`GET /api/auth/users/me answered ${me.status} ${JSON.stringify(profile)}`);

  const expected: [string, string, number][] = [
    [ALL_CASES, tokens.therapist, trial.therapistCaseCount],
    [ALL_CASES, tokens.coordinator, trial.totalCases],
    [FIRST_50_CASES, tokens.coordinator, Math.min(50, trial.totalCases)],
  ];
  for (const [query, token, count] of expected) {
    const nodes = await caseNodes(baseUrl, query, token);
    if (nodes !== count) throw new Error(`${query} returned ${nodes} cases, expected ${count}`);
  }
}

async function caseNodes(baseUrl: string, query: string, token: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/graphql`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: { allCases?: { nodes: unknown[] } }; errors?: unknown };
  if (!body.data?.allCases) throw new Error(`${query} failed: ${response.status} ${JSON.stringify(body.errors ?? body)}`);
  return body.data.allCases.nodes.length;
}
