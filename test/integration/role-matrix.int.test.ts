/**
 * The security suite of issue 16, owned by the project: a role matrix over every REST
 * collection and every GraphQL query root field, and a cross-case write matrix.
 *
 * Two cases: A (patient A and a care team with every case role) and B (patient B and their
 * therapist). Each case holds a sent message addressed to everyone, with a marker text. Every
 * reader (each case role of case A, outsider staff, a coordinator, anonymous) asks every root
 * field (its required arguments filled from their types, ids pointing into case B) and every
 * collection; an answer may hold case B's ids or marker only for the coordinator, and outsider
 * staff and anonymous callers see neither case. Members see their own case (expected rows).
 * Writes into case B from every role except the coordinator are refused and change nothing.
 */
import fs from 'node:fs';
import {
  buildSchema,
  parse,
  validate,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'postgraphile/graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appCollections } from '../../src/server/collections';
import { scheduleFromSettings } from '../../src/domain/measurements';
import { CASE_ROLES } from '../../src/domain/roles';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles } from '../helpers/people';
import type { Person } from '../helpers/trial';

const schema = buildSchema(fs.readFileSync('schema.graphql', 'utf8'));
const collections = appCollections(scheduleFromSettings({}));

let t: TestApp;
const people: Record<string, Person> = {};
let caseA: string, caseB: string, patientB: Person, therapistB: Person, messageB: string;
const MARK_A = 'marker-case-a-7f3c';
const MARK_B = 'marker-case-b-91d2';

const SEND = `mutation($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id } } }`;
const everyone = { toTherapists: true, toSupervisors: true, toInterviewers: true, toSupporters: true, toCounselors: true, toPatients: true };

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t);
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
  ({ otherPatient: patientB, otherTherapist: therapistB } = cast.people);
  const sentAt = new Date().toISOString();
  const a = await t.graphql(SEND, { input: { caseMessage: { caseId: caseA, subject: MARK_A, body: MARK_A, sentAt, ...everyone } } }, people.therapist!.token);
  expect(a.errors).toBeUndefined();
  const b = await t.graphql(SEND, { input: { caseMessage: { caseId: caseB, subject: MARK_B, body: MARK_B, sentAt, ...everyone } } }, therapistB.token);
  expect(b.errors).toBeUndefined();
  messageB = b.data.createCaseMessage.caseMessage.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const READERS = [...CASE_ROLES, 'outsider', 'coordinator', 'anonymous'] as const;
type Reader = (typeof READERS)[number];
const tokenOf = (reader: Reader) => (reader === 'anonymous' ? undefined : people[reader]!.token);

/** What must never appear in a reader's answers. */
function forbiddenMarks(reader: Reader): string[] {
  if (reader === 'coordinator') return [];
  const caseB_ = [caseB, MARK_B, patientB.id, patientB.username, messageB];
  if (reader === 'outsider' || reader === 'anonymous') return [...caseB_, caseA, MARK_A, people.patient!.id];
  return caseB_;
}

/** A literal for an argument type: ids point into case B, other values are harmless defaults. */
function literal(type: GraphQLInputType, name: string): string | undefined {
  const inner = getNullableType(type);
  if (isListType(inner)) {
    const item = literal(inner.ofType, name);
    return item === undefined ? undefined : `[${item}]`;
  }
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'UUID':
        return JSON.stringify(/user|sender|patient/i.test(name) ? patientB.id : /message/i.test(name) ? messageB : caseB);
      case 'Datetime':
        return '"2000-01-01T00:00:00Z"';
      case 'Date':
        return '"2000-01-01"';
      case 'Int':
      case 'Float':
        return '10';
      case 'BigInt':
      case 'BigFloat':
        return '"10"';
      case 'Boolean':
        return 'false';
      default:
        return '""';
    }
  }
  if (isEnumType(inner)) return inner.getValues()[0]?.name;
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields()).filter((f) => isNonNullType(f.type));
    const parts = fields.map((f) => `${f.name}: ${literal(f.type, f.name) ?? '""'}`);
    return `{ ${parts.join(', ')} }`;
  }
  return undefined;
}

/** Every scalar field of an object type, and for a connection its nodes' scalars. */
function selection(type: GraphQLObjectType): string {
  const fields = type.getFields();
  if ('nodes' in fields) {
    const nodes = getNamedType(fields.nodes!.type);
    return `totalCount nodes { ${isObjectType(nodes) ? scalars(nodes) : '__typename'} }`;
  }
  return scalars(type);
}

function scalars(type: GraphQLObjectType): string {
  const names = Object.values(type.getFields())
    .filter((f) => !isObjectType(getNamedType(f.type)) && f.args.every((a) => !isNonNullType(a.type)))
    .map((f) => f.name);
  return names.length > 0 ? names.join(' ') : '__typename';
}

function rootQuery(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.filter((a) => isNonNullType(a.type)).map((a) => `${a.name}: ${literal(a.type, a.name)}`);
  const named = getNamedType(field.type);
  const inner = isObjectType(named) ? ` { ${selection(named)} }` : '';
  return `{ ${field.name}${args.length > 0 ? `(${args.join(', ')})` : ''}${inner} }`;
}

const rootFields = Object.values(schema.getQueryType()!.getFields()).filter((f) => !['query', 'node', 'nodeId'].includes(f.name));

describe('GraphQL: every query root field × every reader (ids of case B where one is asked for)', () => {
  it('covers the schema', () => {
    expect(rootFields.length).toBeGreaterThanOrEqual(90);
  });

  for (const reader of READERS) {
    it(`${reader}: no answer holds a row of a case they do not belong to`, async () => {
      const leaks: string[] = [];
      const invalid: string[] = [];
      let seen = '';
      for (const field of rootFields) {
        const answer = await t.api('POST', '/api/graphql', { body: { query: rootQuery(field) }, ...(tokenOf(reader) ? { token: tokenOf(reader) } : {}) });
        expect(answer.status, `${field.name} → ${answer.status}`).toBeLessThan(500);
        // The generated query must be valid, or the field was not really asked.
        if (answer.status === 400 || answer.body?.data === undefined) invalid.push(`${field.name}: ${JSON.stringify(answer.body).slice(0, 160)}`);
        const text = JSON.stringify(answer.body?.data ?? null);
        seen += text;
        for (const mark of forbiddenMarks(reader)) if (text.includes(mark)) leaks.push(`${field.name} shows ${mark}`);
      }
      expect(invalid).toEqual([]);
      expect(leaks).toEqual([]);
      // Controls: the same queries do show what the reader may see, so the search above can find rows.
      // (A coordinator who is not a member reads no case's messages, so MARK_B is no control.)
      if (reader === 'coordinator') expect([caseB, patientB.id].map((mark) => seen.includes(mark))).toEqual([true, true]);
      if (reader !== 'outsider' && reader !== 'anonymous') expect(seen.includes(caseA)).toBe(true);
    });
  }

  it('members and the patient see their own case and its message (expected rows); outsiders and anonymous callers do not', async () => {
    for (const reader of READERS) {
      const answer = await t.api('POST', '/api/graphql', {
        body: { query: '{ allCasesList { id } allCaseMessagesList { subject } }' },
        ...(tokenOf(reader) ? { token: tokenOf(reader) } : {}),
      });
      const cases = ((answer.body.data?.allCasesList ?? []) as { id: string }[]).map((c) => c.id).sort();
      const subjects = ((answer.body.data?.allCaseMessagesList ?? []) as { subject: string }[]).map((m) => m.subject);
      if (reader === 'coordinator') expect(cases).toEqual([caseA, caseB].sort());
      else if (reader === 'outsider' || reader === 'anonymous') expect(cases).toEqual([]);
      else {
        expect(cases, reader).toEqual([caseA]);
        expect(subjects, reader).toContain(MARK_A);
      }
    }
  });
});

describe('REST: every collection × every reader', () => {
  for (const reader of READERS) {
    it(`${reader}: no row of a case they do not belong to`, async () => {
      const leaks: string[] = [];
      let seen = '';
      for (const collection of collections) {
        if (!collection.methods.includes('GET')) continue;
        const answer = await t.api('GET', `/api/${collection.name}`, tokenOf(reader) ? { token: tokenOf(reader)! } : {});
        expect(answer.status, `${collection.name} → ${answer.status}`).toBeLessThan(500);
        if (reader === 'anonymous') expect([200, 401, 403]).toContain(answer.status);
        const text = JSON.stringify(answer.body ?? null);
        seen += text;
        for (const mark of forbiddenMarks(reader)) if (text.includes(mark)) leaks.push(`${collection.name} shows ${mark}`);
      }
      expect(leaks).toEqual([]);
      if (reader === 'patient') expect(seen.includes(MARK_A)).toBe(true); // control: my_messages shows the own case's message
    });
  }

  it('the patient reads their own case’s message through my_messages (expected rows)', async () => {
    const answer = await t.api('GET', '/api/my_messages?select=subject,case_id', { token: people.patient!.token });
    expect(answer.body).toContainEqual({ subject: MARK_A, case_id: caseA });
  });
});

/** Rows of case B, read as the owner: a refused write must leave them exactly as they were. */
async function caseBState(): Promise<string> {
  const { rows } = await t.database.db.pool.query(
    `select (select row_to_json(c)::text from app_public.cases c where c.id = $1) as c,
            (select json_agg(m order by m.id)::text from app_public.case_members m where m.case_id = $1) as m,
            (select json_agg(x order by x.id)::text from app_public.case_messages x where x.case_id = $1) as x`,
    [caseB],
  );
  return JSON.stringify(rows[0]);
}

describe('cross-case writes: every reader except the coordinator is refused, and nothing changes', () => {
  const writes: { name: string; run: (token: string | undefined) => Promise<{ refused: boolean; detail: string }> }[] = [];
  const documents: string[] = [];
  const gql = (name: string, query: string, variables: () => Record<string, unknown>) =>
    documents.push(query) &&
    writes.push({
      name,
      run: async (token) => {
        const answer = await t.api('POST', '/api/graphql', { body: { query, variables: variables() }, ...(token ? { token } : {}) });
        const refused = answer.status >= 400 || (Array.isArray(answer.body.errors) && answer.body.errors.length > 0);
        return { refused, detail: JSON.stringify(answer.body).slice(0, 200) };
      },
    });
  const rest = (name: string, method: string, path: () => string, body: () => unknown) =>
    writes.push({
      name,
      run: async (token) => {
        const answer = await t.api(method, path(), { body: body(), ...(token ? { token } : {}) });
        return { refused: answer.status >= 400 || (Array.isArray(answer.body) && answer.body.length === 0), detail: `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}` };
      },
    });

  gql('updateCaseById', `mutation($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { title: "taken over" } }) { case { id } } }`, () => ({ id: caseB }));
  gql('createCaseMessage', SEND, () => ({ input: { caseMessage: { caseId: caseB, subject: 'intruder', body: 'intruder', ...everyone } } }));
  gql('updateCaseMessageById', `mutation($id: UUID!) { updateCaseMessageById(input: { id: $id, caseMessagePatch: { subject: "changed" } }) { caseMessage { id } } }`, () => ({ id: messageB }));
  gql('deleteCaseMessageById', `mutation($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }`, () => ({ id: messageB }));
  gql('createCaseMember', `mutation($caseId: UUID!, $userId: UUID!) { createCaseMember(input: { caseMember: { caseId: $caseId, userId: $userId, actsAsTherapist: true } }) { caseMember { id } } }`, () => ({ caseId: caseB, userId: people.outsider!.id }));
  gql('updateCaseMemberByCaseIdAndUserId', `mutation($caseId: UUID!, $userId: UUID!) { updateCaseMemberByCaseIdAndUserId(input: { caseId: $caseId, userId: $userId, caseMemberPatch: { actsAsSupervisor: true } }) { caseMember { id } } }`, () => ({ caseId: caseB, userId: therapistB.id }));
  gql('deleteCaseMemberByCaseIdAndUserId', `mutation($caseId: UUID!, $userId: UUID!) { deleteCaseMemberByCaseIdAndUserId(input: { caseId: $caseId, userId: $userId }) { deletedCaseMemberId } }`, () => ({ caseId: caseB, userId: therapistB.id }));
  gql('updateUserById (patient B)', `mutation($id: UUID!) { updateUserById(input: { id: $id, userPatch: { alias: "renamed" } }) { user { id } } }`, () => ({ id: patientB.id }));
  for (const collection of collections.filter((c) => c.methods.includes('POST') && 'case_id' in c.columns)) {
    rest(`POST /api/${collection.name}`, 'POST', () => `/api/${collection.name}`, () => ({ case_id: caseB }));
  }
  rest('workflow start for case B', 'POST', () => '/api/workflow/rest/process-definition/key/trial/start', () => ({ variables: { caseId: { value: caseB, type: 'String' } } }));

  it('every write is valid GraphQL (a refusal is the rule’s, not a typo’s), and the coordinator may make one', async () => {
    for (const document of documents) expect(validate(schema, parse(document)).map((e) => e.message)).toEqual([]);
    const control = await t.graphql(`mutation($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { description: "by the coordinator" } }) { case { id } } }`, { id: caseB }, people.coordinator!.token);
    expect(control.errors).toBeUndefined();
  });

  const writers = READERS.filter((r) => r !== 'coordinator');
  for (const writer of writers) {
    it(`${writer}`, async () => {
      const before = await caseBState();
      const accepted: string[] = [];
      for (const write of writes) {
        const { refused, detail } = await write.run(tokenOf(writer));
        if (!refused) accepted.push(`${write.name}: ${detail}`);
      }
      expect(accepted).toEqual([]);
      expect(await caseBState()).toEqual(before);
      const { rows } = await t.database.db.pool.query(`select alias from app_public.users where id = $1`, [patientB.id]);
      expect(rows[0].alias).not.toBe('renamed');
    });
  }
});
