import { describe, expect, it } from 'vitest';
import { RestError, toRestErrorResponse, statusForSqlState } from './errors';
import { compileRegistry, defineCollection, type Collection } from './registry';
import { bodyValue, canonicalUuid, filterValue, toParameter } from './values';
import { HttpError } from '../http/errors';
import { thrownBy } from '../../../test/helpers/thrown';

const errorOf = (fn: () => unknown): RestError => thrownBy(RestError, fn);

describe('filter values', () => {
  it('reads uuids in the forms PostgreSQL reads, in canonical form', () => {
    expect(canonicalUuid('3F1C2A9E-8B7D-4C6E-9A5B-1D2E3F4A5B6C')).toBe('3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c');
    expect(canonicalUuid('{3f1c2a9e8b7d4c6e9a5b1d2e3f4a5b6c}')).toBe('3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c');
    expect(canonicalUuid('3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6')).toBeNull();
    expect(canonicalUuid("1' or '1'='1")).toBeNull();
  });

  it('checks whole numbers, numbers and booleans as PostgreSQL would', () => {
    expect(filterValue('int', ' -42 ', 'n')).toBe('-42');
    expect(errorOf(() => filterValue('int', '4.5', 'n')).message).toBe('invalid input syntax for type bigint: "4.5"');
    expect(errorOf(() => filterValue('int', '9223372036854775808', 'n')).code).toBe('22003');
    expect(filterValue('numeric', '4.5e3', 'x')).toBe('4.5e3');
    expect(errorOf(() => filterValue('numeric', '4,5', 'x')).code).toBe('22P02');
    expect(filterValue('bool', 'TRUE', 'b')).toBe(true);
    expect(filterValue('bool', 'f', 'b')).toBe(false);
    expect(filterValue('bool', 'ye', 'b')).toBe(true);
    expect(errorOf(() => filterValue('bool', 'o', 'b')).code).toBe('22P02');
  });

  it('leaves text, dates and times to the database, checks JSON and array literals', () => {
    expect(filterValue('text', ' a ', 't')).toBe(' a ');
    expect(filterValue('timestamptz', '2026-01-01T10:00:00Z', 't')).toBe('2026-01-01T10:00:00Z');
    expect(filterValue('jsonb', '{"a":[1]}', 'j')).toBe('{"a":[1]}');
    expect(errorOf(() => filterValue('jsonb', '{a}', 'j')).message).toBe('invalid input syntax for type json: "{a}"');
    expect(filterValue('text[]', '{a,"b c"}', 'tags')).toBe('{a,"b c"}');
    expect(errorOf(() => filterValue('text[]', 'a,b', 'tags')).message).toBe('malformed array literal: "a,b"');
  });
});

describe('body values', () => {
  it('accepts JSON of the column type, normalised', () => {
    expect(bodyValue('uuid', '3F1C2A9E-8B7D-4C6E-9A5B-1D2E3F4A5B6C', 'id')).toBe('3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c');
    expect(bodyValue('int', 7, 'n')).toBe(7);
    expect(bodyValue('int', '7', 'n')).toBe(7);
    expect(bodyValue('int', '9007199254740993', 'n')).toBe('9007199254740993');
    expect(bodyValue('numeric', 1.5, 'x')).toBe(1.5);
    expect(bodyValue('numeric', '1.50', 'x')).toBe('1.50');
    expect(bodyValue('bool', false, 'b')).toBe(false);
    expect(bodyValue('jsonb', { a: [1, null] }, 'j')).toEqual({ a: [1, null] });
    expect(bodyValue('text[]', ['a', null], 'tags')).toEqual(['a', null]);
    expect(bodyValue('text', null, 't')).toBeNull();
  });

  it('refuses values of another type, naming the column', () => {
    const uuid = errorOf(() => bodyValue('uuid', 'abc', 'case_id'));
    expect([uuid.status, uuid.code, uuid.message, uuid.details]).toEqual([400, '22P02', 'invalid input syntax for type uuid: "abc"', 'The value for "case_id" must be a uuid string.']);
    expect(errorOf(() => bodyValue('int', 1.5, 'n')).details).toBe('The value for "n" must be a whole number.');
    expect(errorOf(() => bodyValue('int', 'five', 'n')).code).toBe('22P02');
    expect(errorOf(() => bodyValue('text', 5, 't')).code).toBe('22P02');
    expect(errorOf(() => bodyValue('bool', 'true', 'b')).code).toBe('22P02');
    expect(errorOf(() => bodyValue('numeric', Infinity, 'x')).code).toBe('22P02');
    expect(errorOf(() => bodyValue('text[]', ['a', 1], 'tags')).code).toBe('22P02');
    expect(errorOf(() => bodyValue('timestamptz', { at: 1 }, 'at')).message).toBe('invalid input syntax for type timestamp with time zone: "{"at":1}"');
  });

  it('sends JSON columns as JSON text', () => {
    expect(toParameter('jsonb', { a: 1 })).toBe('{"a":1}');
    expect(toParameter('jsonb', 'text')).toBe('"text"');
    expect(toParameter('numeric', 1.5)).toBe('1.5');
    expect(toParameter('text[]', ['a'])).toEqual(['a']);
    expect(toParameter('uuid', null)).toBeNull();
  });
});

describe('registry checks', () => {
  const valid = defineCollection({ name: 'things', table: 'app_public.things', columns: { id: 'uuid', n: 'int' }, writable: ['n'], methods: ['GET', 'POST'] });

  it('compiles entries and quotes the table', () => {
    const compiled = compileRegistry([valid]).get('things')!;
    expect(compiled.sqlTable).toBe('"app_public"."things"');
    expect(compiled.columnNames).toEqual(['id', 'n']);
    expect([...compiled.writableSet]).toEqual(['n']);
  });

  it.each<[string, Collection]>([
    ['the name is registered twice', valid],
    ['the name must be lower case', { ...valid, name: 'Things' }],
    ['must be schema.table', { ...valid, table: 'things' }],
    ['must be schema.table', { ...valid, table: 'app_public.things; drop' }],
    ['unknown column "x"', { ...valid, writable: ['x'] }],
    ['unknown column "x"', { ...valid, conflictKey: ['x'] }],
    ['unknown column "x"', { ...valid, defaultOrder: [{ column: 'x' }] }],
    ['unknown type', { ...valid, columns: { id: 'money' as never } }],
    ['POST needs at least one writable column', { ...valid, writable: [] }],
    ['allows no method', { ...valid, methods: [] }],
    ['maxRows must be a positive integer', { ...valid, maxRows: 0 }],
    ['readFrom "views" must be schema.table', { ...valid, readFrom: 'views' }],
    ['need a uuid column "id"', { ...valid, columns: { key: 'uuid', n: 'int' }, writable: ['n'], readFrom: 'app_public.things_view' } as Collection],
    ['need a uuid column "id"', { ...valid, columns: { id: 'int', n: 'int' }, afterWrite: () => undefined }],
  ])('refuses an entry where %s', (problem, entry) => {
    const registry = problem.includes('twice') ? [valid, entry] : [entry];
    expect(() => compileRegistry(registry)).toThrow(problem);
  });
});

describe('error responses', () => {
  it('gives SQLSTATEs PostgREST statuses; masks what is not the client’s fault', () => {
    expect(statusForSqlState('23505', '', true)).toBe(409);
    expect(statusForSqlState('23503', '', true)).toBe(409);
    expect(statusForSqlState('23502', '', true)).toBe(400);
    expect(statusForSqlState('23514', '', true)).toBe(400);
    expect(statusForSqlState('22P02', '', true)).toBe(400);
    expect(statusForSqlState('22007', '', true)).toBe(400);
    expect(statusForSqlState('42501', '', true)).toBe(403);
    expect(statusForSqlState('42501', '', false)).toBe(401);
    expect(statusForSqlState('P0001', '', true)).toBe(400);
    expect(statusForSqlState('PT409', '', true)).toBe(409);
    expect(statusForSqlState('21000', 'DELETE requires a WHERE clause', true)).toBe(400);
    expect(statusForSqlState('21000', 'ON CONFLICT DO UPDATE command cannot affect row a second time', true)).toBe(400);
    expect(statusForSqlState('42703', '', true)).toBeNull();
    expect(statusForSqlState('XX000', '', true)).toBeNull();
  });

  it('shapes every error as {code, message, details, hint}, with the refusal instead of the database text', () => {
    const dbError = Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: '23505', severity: 'ERROR', detail: 'Key (id)=(1) already exists.' });
    expect(toRestErrorResponse(dbError, true)).toEqual({
      status: 409,
      body: { code: '23505', message: 'This exists already.', details: null, hint: null, error: 'duplicate' },
      headers: {},
      internal: false,
    });
    const internal = toRestErrorResponse(Object.assign(new Error('relation "x" does not exist'), { code: '42P01', severity: 'ERROR' }), true);
    expect([internal.status, internal.internal, internal.body.message]).toEqual([500, true, 'Something went wrong on our side. Please try again later.']);
    expect(toRestErrorResponse(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), true).status).toBe(500);
    const http = toRestErrorResponse(new HttpError(401, 'invalid_token', 'Sign in again.'), false);
    expect(http).toEqual({ status: 401, body: { code: 'invalid_token', message: 'Sign in again.', details: null, hint: null, error: 'invalid_token' }, headers: { 'www-authenticate': 'Bearer' }, internal: false });
    const media = toRestErrorResponse(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), true);
    expect([media.status, media.body.code]).toEqual([415, 'PGRST107']);
  });
});
