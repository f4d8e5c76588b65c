import { describe, expect, it } from 'vitest';
import { RestError } from './errors';
import { parseQuery } from './grammar';
import { compileRegistry, defineCollection } from './registry';
import { buildCount, buildDelete, buildInsert, buildPlannedUpsert, buildReadBack, buildReadBackByKey, buildSelect, whereSql, Params } from './sql';
import { thrownBy } from '../../../test/helpers/thrown';

const scores = defineCollection({
  name: 'scores',
  table: 'rest_test.scores',
  columns: { id: 'uuid', case_id: 'uuid', label: 'text', score: 'int', ratio: 'numeric', done: 'bool', answers: 'jsonb', tags: 'text[]', taken_at: 'timestamptz' },
  writable: ['id', 'case_id', 'label', 'score', 'answers', 'tags'],
  conflictKey: ['id'],
  defaultOrder: [{ column: 'taken_at', dir: 'desc', nulls: 'last' }],
  methods: ['GET', 'POST', 'DELETE'],
});
const collection = compileRegistry([scores]).get('scores')!;

const ID = '3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c';

/** The where clause and parameters for a query string's filters. */
function where(search: string) {
  const params = new Params();
  const text = whereSql(collection, parseQuery(search).where, params);
  return { text, values: params.values };
}

const errorOf = (fn: () => unknown): RestError => thrownBy(RestError, fn);

describe('where clauses', () => {
  it('compares with bind parameters, never with the value in the text', () => {
    expect(where(`id=eq.${ID}`)).toEqual({ text: '"id" = $1', values: [ID] });
    expect(where('score=neq.3&score=gt.1&score=gte.2&score=lt.9&score=lte.8')).toEqual({
      text: '"score" <> $1 and "score" > $2 and "score" >= $3 and "score" < $4 and "score" <= $5',
      values: ['3', '1', '2', '9', '8'],
    });
    expect(where("label=eq.x'; drop table users; --")).toEqual({ text: '"label" = $1', values: ["x'; drop table users; --"] });
  });

  it('turns * into % for like and ilike, and compares other types as text', () => {
    expect(where('label=like.*ab*')).toEqual({ text: '"label" like $1', values: ['%ab%'] });
    expect(where('label=ilike.A*')).toEqual({ text: '"label" ilike $1', values: ['A%'] });
    expect(where('taken_at=like.2026*')).toEqual({ text: '"taken_at"::text like $1', values: ['2026%'] });
    expect(where('label=match.^a.c$&label=imatch.x*')).toEqual({ text: '"label" ~ $1 and "label" ~* $2', values: ['^a.c$', 'x*'] });
  });

  it('reads in lists into one array parameter; an empty list matches nothing', () => {
    expect(where('score=in.(1,2,3)')).toEqual({ text: '"score" = any($1)', values: [['1', '2', '3']] });
    expect(where('label=in.(a,"b,c")')).toEqual({ text: '"label" = any($1)', values: [['a', 'b,c']] });
    expect(where('score=in.()')).toEqual({ text: 'false', values: [] });
    expect(where('score=not.in.()')).toEqual({ text: 'not (false)', values: [] });
  });

  it('writes is tests without parameters; trilean values only for booleans', () => {
    expect(where('label=is.null&done=is.true&done=not.is.false&done=is.unknown')).toEqual({
      text: '"label" is null and "done" is true and not ("done" is false) and "done" is unknown',
      values: [],
    });
    expect(errorOf(() => where('label=is.true')).message).toBe('operator is.true does not apply to column label (text)');
  });

  it('handles containment for arrays and JSON, and (any)/(all) lists', () => {
    expect(where('tags=cs.{a,b}&tags=ov.{c}&answers=cd.{"q1":1}')).toEqual({
      text: '"tags" @> $1 and "tags" && $2 and "answers" <@ $3',
      values: ['{a,b}', '{c}', '{"q1":1}'],
    });
    expect(errorOf(() => where('answers=ov.{}')).code).toBe('PGRST100');
    expect(errorOf(() => where('label=cs.{a}')).code).toBe('PGRST100');
    expect(where('label=like(any).{a*,*b}&score=gt(all).{1,2}')).toEqual({
      text: '"label" like any($1) and "score" > all($2)',
      values: [['a%', '%b'], ['1', '2']],
    });
    expect(where('score=isdistinct.4')).toEqual({ text: '"score" is distinct from $1', values: ['4'] });
  });

  it('nests or/and groups and negations', () => {
    expect(where('or=(score.eq.1,and(label.is.null,done.not.is.true))&not.and=(score.gt.5,score.lt.9)')).toEqual({
      text: '("score" = $1 or ("label" is null and not ("done" is true))) and not ("score" > $2 and "score" < $3)',
      values: ['1', '5', '9'],
    });
  });

  it('refuses unknown columns in PostgreSQL words, and values of the wrong type', () => {
    const unknown = errorOf(() => where('nope=eq.1'));
    expect([unknown.status, unknown.code, unknown.message]).toEqual([400, '42703', 'column scores.nope does not exist']);
    expect(errorOf(() => where('or=(nope.eq.1)')).code).toBe('42703');
    const uuid = errorOf(() => where('id=eq.not-a-uuid'));
    expect([uuid.status, uuid.code, uuid.message]).toEqual([400, '22P02', 'invalid input syntax for type uuid: "not-a-uuid"']);
    expect(errorOf(() => where('score=eq.abc')).message).toBe('invalid input syntax for type bigint: "abc"');
    expect(errorOf(() => where('score=in.(1,x)')).code).toBe('22P02');
    expect(errorOf(() => where('score=eq.99999999999999999999')).code).toBe('22003');
    expect(errorOf(() => where('done=eq.maybe')).code).toBe('22P02');
    expect(errorOf(() => where('answers=eq.{bad')).code).toBe('22P02');
    expect(errorOf(() => where('tags=eq.a')).code).toBe('22P02');
  });
});

describe('reads', () => {
  const read = (search: string, window = { offset: 0, limit: null as number | null }) => {
    const q = parseQuery(search);
    return buildSelect(collection, { select: q.select, where: q.where, order: q.order, window, stripNulls: false });
  };

  it('selects the registry columns for *, aggregated to JSON, in the default order', () => {
    expect(read('')).toMatchObject({
      text:
        `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n from (` +
        `select "id", "case_id", "label", "score", "ratio", "done", "answers", "tags", "taken_at" from "rest_test"."scores" where true order by "taken_at" desc nulls last) _r`,
      values: [],
    });
  });

  it('selects named columns with aliases, orders, limits and offsets with parameters', () => {
    const query = read('select=id,points:score&score=gt.1&order=score.desc.nullsfirst,id', { offset: 20, limit: 10 });
    expect(query.text).toBe(
      `select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n from (` +
        `select "id", "score" as "points" from "rest_test"."scores" where "score" > $1 order by "score" desc nulls first, "id" asc limit $2 offset $3) _r`,
    );
    expect(query.values).toEqual(['1', 10, 20]);
  });

  it('strips nulls when asked', () => {
    const q = buildSelect(collection, { select: null, where: [], order: null, window: { offset: 0, limit: null }, stripNulls: true });
    expect(q.text).toContain('json_agg(json_strip_nulls(to_json(_r)))');
  });

  it('names reads and counts for preparing once per connection: the same text, the same name', () => {
    const first = read('select=id&score=gt.1');
    const again = read('select=id&score=gt.7');
    const other = read('select=id,score&score=gt.1');
    expect(first.name).toMatch(/^sanad_once_\d+$/);
    expect(again.name).toBe(first.name);
    expect(other.name).not.toBe(first.name);
    expect(buildCount(collection, []).name).toMatch(/^sanad_once_\d+$/);
  });

  it('refuses unknown columns in select and order, and unsafe aliases', () => {
    expect(errorOf(() => read('select=id,secret')).message).toBe('column scores.secret does not exist');
    expect(errorOf(() => read('order=secret.desc')).code).toBe('42703');
    expect(errorOf(() => read('select=%22a%22%22b%22:id')).code).toBe('PGRST100');
  });

  it('counts with the same filters', () => {
    expect(buildCount(collection, parseQuery('score=gt.1').where)).toMatchObject({
      text: 'select count(*)::bigint as total from "rest_test"."scores" where "score" > $1',
      values: ['1'],
    });
  });
});

describe('writes', () => {
  it('inserts rows with defaults for missing keys, and returns them as JSON', () => {
    const query = buildInsert(collection, {
      rows: [
        { id: ID, label: 'a', answers: { q1: 2 } },
        { id: ID, tags: ['x'] },
      ],
      onConflict: null,
      returning: { select: [{ type: 'column', column: 'id' }], stripNulls: false },
    });
    expect(query.text).toBe(
      `with _w as (insert into "rest_test"."scores" ("id", "label", "answers", "tags") values ($1, $2, $3, default), ($4, default, default, $5) returning "id") ` +
        `select coalesce(json_agg(_w), '[]')::text as body, count(*)::int as n from _w`,
    );
    expect(query.values).toEqual([ID, 'a', '{"q1":2}', ID, ['x']]);
  });

  it('upserts on the conflict key, leaving the key and kept columns alone', () => {
    const query = buildInsert(collection, {
      rows: [{ id: ID, case_id: ID, label: 'b', score: 3 }],
      onConflict: { target: ['id'], action: 'merge', keep: new Set(['case_id']) },
      returning: null,
    });
    expect(query.text).toBe(
      'insert into "rest_test"."scores" ("id", "case_id", "label", "score") values ($1, $2, $3, $4) on conflict ("id") do update set "label" = excluded."label", "score" = excluded."score"',
    );
  });

  it('still returns the existing row when a merge has nothing to change, and ignores duplicates when asked', () => {
    const merge = buildInsert(collection, { rows: [{ id: ID }], onConflict: { target: ['id'], action: 'merge', keep: new Set() }, returning: null });
    expect(merge.text).toContain('on conflict ("id") do update set "id" = excluded."id"');
    const ignore = buildInsert(collection, { rows: [{ id: ID, label: 'c' }], onConflict: { target: ['id'], action: 'ignore', keep: new Set() }, returning: null });
    expect(ignore.text).toContain('on conflict ("id") do nothing');
  });

  it('refuses a row without columns', () => {
    expect(errorOf(() => buildInsert(collection, { rows: [{}], onConflict: null, returning: null })).code).toBe('PGRST102');
  });

  it('deletes by filters, returning the deleted rows when asked', () => {
    expect(buildDelete(collection, parseQuery(`id=eq.${ID}`).where, null)).toEqual({ text: 'delete from "rest_test"."scores" where "id" = $1', values: [ID] });
    expect(buildDelete(collection, parseQuery(`id=eq.${ID}`).where, { select: null, stripNulls: false }).text).toMatch(
      /^with _w as \(delete from "rest_test"."scores" where "id" = \$1 returning "id", "case_id", .*\) select coalesce\(json_agg\(_w\), '\[\]'\)::text as body/,
    );
  });
});

describe('collections that read back (readFrom, afterWrite)', () => {
  const masked = compileRegistry([{ ...scores, name: 'masked', readFrom: 'rest_test.scores_view' }]).get('masked')!;

  it('reads and counts from the read relation', () => {
    expect(buildSelect(masked, { select: null, where: [], order: null, window: { limit: null, offset: 0 }, stripNulls: false }).text).toContain('from "rest_test"."scores_view" where true');
    expect(buildCount(masked, []).text).toBe('select count(*)::bigint as total from "rest_test"."scores_view" where true');
  });

  it('writes to the table and returns only ids, whatever the request asked for', () => {
    const query = buildInsert(masked, { rows: [{ id: ID, label: 'a' }], onConflict: null, returning: { select: null, stripNulls: false } });
    expect(query.text).toBe('insert into "rest_test"."scores" ("id", "label") values ($1, $2) returning "id"');
  });

  it('with writeReturns, returns the written row as JSON for afterWrite beside its id', () => {
    const scored = compileRegistry([{ ...masked, name: 'scored', afterWrite: () => undefined, writeReturns: ['id', 'label'] }]).get('scored')!;
    const query = buildInsert(scored, { rows: [{ id: ID, label: 'a' }], onConflict: null, returning: { select: null, stripNulls: false } });
    expect(query.text).toBe(
      'insert into "rest_test"."scores" as _t ("id", "label") values ($1, $2) returning "id", (select to_json(_x) from (select _t."id", _t."label") _x)::text as "row"',
    );
  });

  it('reads written rows back by id, in the order written', () => {
    const other = '00000000-0000-4000-8000-000000000001';
    const query = buildReadBack(masked, [ID, other], { select: [{ type: 'column', column: 'label' }], stripNulls: true });
    expect(query.text).toBe(
      `select coalesce(json_agg(json_strip_nulls(to_json(_r))), '[]')::text as body, count(*)::int as n from ` +
        `(select "label" from "rest_test"."scores_view" where "id" = any($1::uuid[]) order by array_position($1::uuid[], "id")) _r`,
    );
    expect(query.values).toEqual([[ID, other]]);
  });

  it('deletes from the table and answers with the rows as the read relation showed them', () => {
    const query = buildDelete(masked, parseQuery(`id=eq.${ID}`).where, { select: [{ type: 'column', column: 'id' }], stripNulls: false });
    expect(query.text).toBe(
      `with _w as (delete from "rest_test"."scores" where "id" = $1 returning "id") select coalesce(json_agg(_r), '[]')::text as body, count(*)::int as n from ` +
        `(select "id" from "rest_test"."scores_view" where "id" in (select "id" from _w)) _r`,
    );
  });

  it('reads a planned upsert back by its conflict key, with the values as parameters', () => {
    const query = buildReadBackByKey(masked, ['case_id', 'label'], { case_id: ID, label: 'a', score: 3 }, { select: null, stripNulls: false });
    expect(query.text).toMatch(/ from "rest_test"\."scores_view" where "case_id" = \$1 and "label" = \$2\) _r$/);
    expect(query.values).toEqual([ID, 'a']);
  });

  it('sends a planned upsert as the upsert without returning, the plan\'s statements, then the read back by key', () => {
    const scored = compileRegistry([{ ...masked, name: 'scored', conflictKey: ['case_id', 'label'], afterWrite: () => undefined, writeReturns: ['id', 'label'] }]).get('scored')!;
    const completion = { text: 'select done($1)', values: [ID] };
    const row = { case_id: ID, label: 'a', score: 3 };
    const [upsert, after, readBack, ...rest] = buildPlannedUpsert(scored, { row, after: [completion] }, { select: null, stripNulls: false });
    expect(upsert!.text).toBe(
      'insert into "rest_test"."scores" as _t ("case_id", "label", "score") values ($1, $2, $3) on conflict ("case_id", "label") do update set "score" = excluded."score"',
    );
    expect(upsert!.values).toEqual([ID, 'a', 3]);
    expect(after).toMatchObject(completion);
    expect(readBack).toMatchObject(buildReadBackByKey(scored, ['case_id', 'label'], row, { select: null, stripNulls: false }));
    expect(rest).toEqual([]);
    // Each travels as a statement prepared once per connection, named after its text.
    const names = [upsert, after, readBack].map((s) => s!.name);
    expect(names.every((name) => typeof name === 'string' && /^sanad_once_\d+$/.test(name))).toBe(true);
    expect(new Set(names).size).toBe(3);
    // The same record in another key order, with other values, is the same statement.
    const again = buildPlannedUpsert(scored, { row: { score: 1, label: 'b', case_id: ID }, after: [completion] }, { select: null, stripNulls: false });
    expect(again.map((s) => s.text)).toEqual([upsert, after, readBack].map((s) => s!.text));
    expect(again.map((s) => s.name)).toEqual(names);
    expect(again[0]!.values).toEqual([ID, 'b', 1]);
    // return=minimal: nothing is read back.
    expect(buildPlannedUpsert(scored, { row, after: [] }, null)).toHaveLength(1);
    const keyless = compileRegistry([{ ...scores, name: 'keyless', conflictKey: undefined }]).get('keyless')!;
    expect(() => buildPlannedUpsert(keyless, { row, after: [] }, null)).toThrow(/needs a conflict key/);
  });

  it('refuses planWrite without a conflict key or with server defaults, at start', () => {
    const planWrite = () => undefined;
    expect(() => compileRegistry([{ ...scores, name: 'planned', conflictKey: undefined, planWrite }])).toThrow(/planWrite needs a conflictKey and no defaults/);
    expect(() => compileRegistry([{ ...scores, name: 'planned', defaults: () => ({}), planWrite }])).toThrow(/planWrite needs a conflictKey and no defaults/);
    expect(compileRegistry([{ ...scores, name: 'planned', planWrite }]).get('planned')?.planWrite).toBe(planWrite);
  });
});
