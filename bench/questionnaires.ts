/**
 * The questionnaire scenarios (issue "Questionnaires", item 8): a patient saving a whole PHQ-9
 * (`POST /api/phq9`, an upsert answered with the stored row), and staff opening a case's PHQ-9
 * records (`GET /api/phq9?case_id=eq.<id>`) as the case's therapist and as a coordinator. Each
 * virtual client is its own person; each scenario has the same statements in SQL beside it as
 * the baseline, built by the REST layer's own builders (src/server/rest/sql.ts), and checks its
 * answers against the seed and the SQL first, so that a broken policy cannot pass for a fast one.
 */
import type pg from 'pg';
import { PHQ9, score, type AnswerValue } from '../src/domain/instruments';
import { parseQuery, resolveWindow } from '../src/server/rest/grammar';
import { compileRegistry } from '../src/server/rest/registry';
import { buildPlannedUpsert, buildSelect } from '../src/server/rest/sql';
import { MEASUREMENT_TIMES } from '../src/server/questionnaires/columns';
import { questionnaireCollection } from '../src/server/questionnaires/collections';
import { checkFloorRequests, checkUpsertFloor, type FloorRequest } from './floor-server';
import type { ClientScript } from './load';
import { answerProfile, type SeededQuestionnaires } from './questionnaires-seed';
import { messageClient, statementClient, type SqlClient, type SqlMessage } from './questionnaires-load';
import { lcg } from './random';
import { runOnce, type SqlRequest } from './sql-load';

export interface QuestionnaireScenario {
  name: string;
  /** One script per virtual client. */
  clients: ClientScript[];
  /** The SQL baseline: one client per virtual client, as that client's user. */
  sql: SqlClient[];
  /** Throws unless the API and the SQL answer as the seed says they should. */
  check(baseUrl: string, pool: pg.Pool): Promise<void>;
  /** Throws unless the floor server (floor-server.ts) answers the scenario's requests as the API does. */
  checkFloor(baseUrl: string, floorUrl: string, pool: pg.Pool): Promise<void>;
}

/** Requests the floor check sends: a few of the scenario's own. */
const FLOOR_CHECKS = 5;

/** Bearer tokens of the people the scenarios act as, by user id. */
export type TokensById = ReadonlyMap<string, string>;

/** Requests per client script: enough that a client rarely repeats itself within a run. */
const STEPS_PER_CLIENT = 200;

const PREFER_UPSERT = 'resolution=merge-duplicates, return=representation';

/** The PHQ-9 collection exactly as the server registers it. */
const PHQ9_COLLECTION = compileRegistry([questionnaireCollection('phq9', PHQ9)]).get('phq9')!;

export function questionnaireScenarios(seed: SeededQuestionnaires, tokens: TokensById, concurrency: number): QuestionnaireScenario[] {
  const cases = seed.cases.slice(0, concurrency);
  return [
    postPhq9(`POST /api/phq9 upsert, patient (${cases.length} patients)`, seed, tokens, concurrency),
    getPhq9(
      `GET /api/phq9?case_id=eq.…, therapist (their ${Math.round(average(cases.map((c) => c.therapist.caseIds.length)))} cases)`,
      cases.map((c) => ({ userId: c.therapist.id, caseIds: c.therapist.caseIds })),
      tokens,
    ),
    getPhq9(
      `GET /api/phq9?case_id=eq.…, coordinator (all ${seed.allCaseIds.length} cases)`,
      cases.map((_, i) => ({ userId: seed.coordinator.id, caseIds: spread(seed.allCaseIds, i, cases.length) })),
      tokens,
    ),
  ];
}

function average(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
}

/** Client i's share of all cases, shuffled the same way each run: every client reads other cases. */
function spread(ids: readonly string[], client: number, clients: number): string[] {
  const random = lcg(client + 1);
  const mine = ids.filter((_, index) => index % clients === client);
  for (let i = mine.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [mine[i], mine[j]] = [mine[j]!, mine[i]!];
  }
  return mine.slice(0, STEPS_PER_CLIENT);
}

/** The first `steps` requests of each client, for the floor check. */
function floorRequests(clients: readonly ClientScript[], steps: number): FloorRequest[] {
  return clients.flatMap((client) => client.steps.slice(0, steps).map((step) => ({ method: client.method, headers: client.headers, path: step.path, body: step.body })));
}

function tokenOf(tokens: TokensById, userId: string): string {
  const token = tokens.get(userId);
  if (!token) throw new Error(`No token for user ${userId}`);
  return token;
}

interface Phq9Write {
  row: Record<string, AnswerValue>;
  body: string;
}

/** A full, valid PHQ-9 of a random severity at a random time of measurement. */
function phq9Writes(caseId: string, random: () => number): Phq9Write[] {
  return Array.from({ length: STEPS_PER_CLIENT }, () => {
    const time = MEASUREMENT_TIMES[Math.floor(random() * MEASUREMENT_TIMES.length)]!;
    const row = { case_id: caseId, time_of_measurement: time, ...answerProfile(PHQ9, random(), random) };
    return { row, body: JSON.stringify(row) };
  });
}

/**
 * The message the server sends for this POST (routes.ts writeInOneMessage): the collection's own
 * plan (validated and scored as the server does it, before the message), then the upsert with
 * the scores as sanad_scorer, the measurement completion and the read back through the read
 * view, built by the REST layer's own builder.
 */
function postMessage(userId: string, row: Record<string, AnswerValue>): SqlMessage {
  const plan = PHQ9_COLLECTION.planWrite?.({ ...row }, { identity: { userId }, collection: 'phq9' });
  if (!plan) throw new Error('The PHQ-9 collection no longer plans a whole record: the POST baseline must follow the server');
  return { userId, role: plan.role ?? 'sanad_user', statements: buildPlannedUpsert(PHQ9_COLLECTION, plan, { select: null, stripNulls: false }) };
}

function postPhq9(name: string, seed: SeededQuestionnaires, tokens: TokensById, concurrency: number): QuestionnaireScenario {
  const random = lcg(9);
  const perClient = seed.cases.slice(0, concurrency).map((c) => ({ bench: c, writes: phq9Writes(c.caseId, random) }));
  const clients: ClientScript[] = perClient.map(({ bench, writes }) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      prefer: PREFER_UPSERT,
      authorization: `Bearer ${tokenOf(tokens, bench.patient.id)}`,
    },
    steps: writes.map((w) => ({ path: '/api/phq9', body: w.body })),
  }));
  const messages = perClient.map(({ bench, writes }) => writes.map((w) => postMessage(bench.patient.id, w.row)));
  return {
    name,
    clients,
    sql: messages.map(messageClient),
    // Client 0's first writes, each to a record the seed already holds: an update, as in the run.
    checkFloor: (baseUrl, floorUrl, pool) =>
      checkUpsertFloor(name, floorRequests(clients.slice(0, 1), FLOOR_CHECKS), baseUrl, floorUrl, { pool, table: PHQ9_COLLECTION.sqlTable }),
    async check(baseUrl, pool) {
      const { bench, writes } = perClient[0]!;
      const write = writes[0]!;
      const response = await fetch(`${baseUrl}/api/phq9`, { method: 'POST', headers: clients[0]!.headers, body: write.body });
      const body = (await response.json()) as { id: string; total: number | null; submitter_id: string }[];
      if (response.status !== 201 || !Array.isArray(body) || body.length !== 1) {
        throw new Error(`${name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      // Patients never see scores: the record came back without them, and the server stored the right ones.
      const { rows } = await pool.query<{ total: string | null }>('select total from app_public.phq9 where id = $1', [body[0]!.id]);
      const expected = score(PHQ9, write.row).total;
      if (Number(rows[0]?.total) !== expected) throw new Error(`${name}: stored total ${rows[0]?.total}, expected ${expected}`);
      if (body[0]!.submitter_id !== bench.patient.id || body[0]!.total !== null) throw new Error(`${name}: the record names another submitter or shows a score`);
      // The baseline's message writes the same record and answers the same row, as the API did.
      const results = (await messageClient(messages[0]!).run(pool, 0)) as pg.QueryResult<{ body: string }>[];
      const answered = JSON.parse(results.at(-1)!.rows[0]!.body) as { id: string; total: number | null }[];
      if (answered.length !== 1 || answered[0]!.id !== body[0]!.id || answered[0]!.total !== null) {
        throw new Error(`${name}: the SQL message answered ${JSON.stringify(answered).slice(0, 300)}`);
      }
    },
  };
}

/** The GET the REST layer runs for `case_id=eq.<id>`: its statement and parameters. */
function selectSql(caseId: string) {
  const query = parseQuery(`case_id=eq.${caseId}`);
  const window = resolveWindow(query, null, PHQ9_COLLECTION.maxRows);
  return buildSelect(PHQ9_COLLECTION, { select: query.select, where: query.where, order: query.order, window, stripNulls: false });
}

interface Reader {
  userId: string;
  caseIds: string[];
}

function getPhq9(name: string, readers: Reader[], tokens: TokensById): QuestionnaireScenario {
  const clients: ClientScript[] = readers.map((reader) => ({
    method: 'GET',
    headers: { accept: 'application/json', authorization: `Bearer ${tokenOf(tokens, reader.userId)}` },
    steps: reader.caseIds.map((id) => ({ path: `/api/phq9?case_id=eq.${id}` })),
  }));
  const sql: SqlRequest[] = readers.map((reader) => ({
    userId: reader.userId,
    text: selectSql(reader.caseIds[0]!).text,
    values: reader.caseIds.map((id) => selectSql(id).values),
  }));
  return {
    name,
    clients,
    sql: sql.map(statementClient),
    checkFloor: (baseUrl, floorUrl) => checkFloorRequests(name, floorRequests(clients.slice(0, FLOOR_CHECKS), 1), baseUrl, floorUrl),
    async check(baseUrl, pool) {
      for (const [index, client] of clients.slice(0, 4).entries()) {
        const response = await fetch(baseUrl + client.steps[0]!.path, { headers: client.headers });
        const body = (await response.json()) as { id: string; total: number | null }[];
        if (response.status !== 200 || !Array.isArray(body)) throw new Error(`${name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
        if (body.length !== MEASUREMENT_TIMES.length) throw new Error(`${name}: ${body.length} records, the seed has ${MEASUREMENT_TIMES.length}`);
        if (body.some((r) => r.total === null)) throw new Error(`${name}: the scores are hidden from staff`);
        const { rows } = await runOnce(pool, sql[index]!);
        const fromSql = JSON.parse((rows[0] as { body: string }).body) as { id: string }[];
        if (fromSql.map((r) => r.id).join() !== body.map((r) => r.id).join()) throw new Error(`${name}: the API and the SQL answer different records`);
      }
    },
  };
}
