import { describe, expect, it } from 'vitest';
import { RestError, RestParseError } from './errors';
import {
  negotiateMedia,
  parseColumnList,
  parseFilter,
  parseLogicParam,
  parseOrder,
  parsePrefer,
  parseQuery,
  parseRangeHeader,
  parseSelect,
  resolveWindow,
  type Condition,
} from './grammar';
import { thrownBy } from '../../../test/helpers/thrown';

const filter = (column: string, value: string): Condition => ({ type: 'filter', filter: parseFilter(column, value) });

/** The error a parse throws, for checking its code and message. */
const parseErrorOf = (fn: () => unknown): RestError => thrownBy(RestError, fn);

describe('filters', () => {
  it.each(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'cs', 'cd', 'ov', 'isdistinct'] as const)(
    'reads the %s operator with the rest of the text as its value',
    (op) => {
      expect(parseFilter('a', `${op}.x.y,z(1)`)).toEqual({ column: 'a', negated: false, operation: { op, value: 'x.y,z(1)' } });
    },
  );

  it('keeps an empty value and a value that looks like an operator', () => {
    expect(parseFilter('a', 'eq.').operation).toEqual({ op: 'eq', value: '' });
    expect(parseFilter('a', 'eq.not.in.(1)').operation).toEqual({ op: 'eq', value: 'not.in.(1)' });
  });

  it('negates any operator with a not. prefix', () => {
    expect(parseFilter('a', 'not.eq.5')).toEqual({ column: 'a', negated: true, operation: { op: 'eq', value: '5' } });
    expect(parseFilter('a', 'not.is.null')).toEqual({ column: 'a', negated: true, operation: { op: 'is', value: 'null' } });
    expect(parseFilter('a', 'not.in.(1,2)')).toEqual({ column: 'a', negated: true, operation: { op: 'in', values: ['1', '2'] } });
  });

  it('reads in lists with quoted values, escapes and empty lists', () => {
    expect(parseFilter('a', 'in.(a,b,"c,d")').operation).toEqual({ op: 'in', values: ['a', 'b', 'c,d'] });
    expect(parseFilter('a', 'in.("say \\"hi\\"","back\\\\slash","(x)")').operation).toEqual({ op: 'in', values: ['say "hi"', 'back\\slash', '(x)'] });
    expect(parseFilter('a', 'in.()').operation).toEqual({ op: 'in', values: [] });
    expect(parseFilter('a', 'in.( 1,2 )').operation).toEqual({ op: 'in', values: ['1', '2 '] });
  });

  it('reads is with null and the trilean values, in any case', () => {
    for (const value of ['null', 'true', 'false', 'unknown'] as const) {
      expect(parseFilter('a', `is.${value}`).operation).toEqual({ op: 'is', value });
    }
    expect(parseFilter('a', 'is.NULL').operation).toEqual({ op: 'is', value: 'null' });
  });

  it('reads (any) and (all) modifiers with a {…} list', () => {
    expect(parseFilter('a', 'like(any).{a*,"b,c"}').operation).toEqual({ op: 'like', quantifier: 'any', values: ['a*', 'b,c'] });
    expect(parseFilter('a', 'eq(all).{}').operation).toEqual({ op: 'eq', quantifier: 'all', values: [] });
  });

  it('refuses unknown operators, missing delimiters and bad is values with PGRST100', () => {
    const unknown = parseErrorOf(() => parseFilter('a', 'noop.1'));
    expect(unknown).toBeInstanceOf(RestParseError);
    expect(unknown.status).toBe(400);
    expect(unknown.code).toBe('PGRST100');
    expect(unknown.message).toBe('"failed to parse filter (noop.1)" (line 1, column 1)');
    expect(unknown.details).toBe('unknown single value operator noop');
    expect(parseErrorOf(() => parseFilter('a', '5')).details).toMatch(/expecting operator/);
    expect(parseErrorOf(() => parseFilter('a', 'is.maybe')).details).toMatch(/expecting null or trilean value/);
    expect(parseErrorOf(() => parseFilter('a', 'is.null.x')).details).toMatch(/expecting end of input/);
    expect(parseErrorOf(() => parseFilter('a', 'in.1,2')).details).toMatch(/expecting "\("/);
    expect(parseErrorOf(() => parseFilter('a', 'in.(1,2')).details).toMatch(/expecting "," or "\)"/);
    expect(parseErrorOf(() => parseFilter('a', 'in.(1)x')).details).toMatch(/expecting end of input/);
    expect(parseErrorOf(() => parseFilter('a', 'neq(any).{1}')).details).toBe('unknown single value operator neq(any)');
    expect(parseErrorOf(() => parseFilter('a', 'eq(any).1')).details).toMatch(/expecting "\{"/);
  });

  it('says which PostgREST operators this API does not offer', () => {
    expect(parseErrorOf(() => parseFilter('a', 'fts.cat')).details).toBe('The operator fts is not supported by this API');
    expect(parseErrorOf(() => parseFilter('a', 'plfts(english).cat')).details).toBe('The operator plfts is not supported by this API');
    expect(parseErrorOf(() => parseFilter('a', 'adj.[1,2)')).details).toBe('The operator adj is not supported by this API');
  });
});

describe('or/and trees', () => {
  it('reads a flat or with mixed operators', () => {
    expect(parseLogicParam('or', '(a.eq.1,b.is.null,c.in.(1,2))')).toEqual({
      type: 'logic',
      operator: 'or',
      negated: false,
      conditions: [filter('a', 'eq.1'), filter('b', 'is.null'), filter('c', 'in.(1,2)')],
    });
  });

  it('reads nested and/or, negated groups and negated filters', () => {
    expect(parseLogicParam('or', '(a.eq.1,and(b.gt.2,not.or(c.lt.3,d.not.like.x*)))')).toEqual({
      type: 'logic',
      operator: 'or',
      negated: false,
      conditions: [
        filter('a', 'eq.1'),
        {
          type: 'logic',
          operator: 'and',
          negated: false,
          conditions: [filter('b', 'gt.2'), { type: 'logic', operator: 'or', negated: true, conditions: [filter('c', 'lt.3'), filter('d', 'not.like.x*')] }],
        },
      ],
    });
  });

  it('reads not.or and not.and parameters', () => {
    const tree = parseLogicParam('not.and', '(a.gte.1,a.lte.5)');
    expect(tree).toMatchObject({ type: 'logic', operator: 'and', negated: true });
  });

  it('reads quoted values, array literals and spaces around items', () => {
    const tree = parseLogicParam('or', '( name.eq."a,b)" , tags.cs.{x,y}, note.eq.has space )');
    expect(tree).toEqual({
      type: 'logic',
      operator: 'or',
      negated: false,
      conditions: [
        { type: 'filter', filter: { column: 'name', negated: false, operation: { op: 'eq', value: 'a,b)' } } },
        { type: 'filter', filter: { column: 'tags', negated: false, operation: { op: 'cs', value: '{x,y}' } } },
        { type: 'filter', filter: { column: 'note', negated: false, operation: { op: 'eq', value: 'has space ' } } },
      ],
    });
  });

  it('reads (any)/(all) lists and in lists inside a tree', () => {
    expect(parseLogicParam('or', '(a.like(any).{x*,"y,z"},b.not.in.(1,2),c.eq.3)')).toEqual({
      type: 'logic',
      operator: 'or',
      negated: false,
      conditions: [
        { type: 'filter', filter: { column: 'a', negated: false, operation: { op: 'like', quantifier: 'any', values: ['x*', 'y,z'] } } },
        { type: 'filter', filter: { column: 'b', negated: true, operation: { op: 'in', values: ['1', '2'] } } },
        filter('c', 'eq.3'),
      ],
    });
  });

  it('accepts trees 16 levels deep and refuses deeper ones', () => {
    const nested = (levels: number) => `(${'and('.repeat(levels - 1)}a.eq.1${')'.repeat(levels - 1)})`;
    expect(() => parseLogicParam('or', nested(16))).not.toThrow();
    expect(parseErrorOf(() => parseLogicParam('or', nested(17))).details).toBe('or/and nested more than 16 levels deep');
  });

  it('refuses malformed trees', () => {
    for (const [key, value] of [
      ['or', '()'],
      ['or', 'a.eq.1'],
      ['or', '(a.eq.1'],
      ['or', '(a.eq.1))'],
      ['or', '(a.eq,b.eq.1)'],
      ['or', '(a.eq.1,xor(b.eq.2))'],
      ['and', '(a.zz.1)'],
    ] as const) {
      const error = parseErrorOf(() => parseLogicParam(key, value));
      expect(error.code, `${key}=${value}`).toBe('PGRST100');
      expect(error.message).toContain('failed to parse logic tree');
    }
  });
});

describe('select, order and column lists', () => {
  it('reads columns, *, aliases and quoted names', () => {
    expect(parseSelect('*')).toEqual([{ type: 'star' }]);
    expect(parseSelect('id, total:score ,"odd name"')).toEqual([
      { type: 'column', column: 'id' },
      { type: 'column', column: 'score', alias: 'total' },
      { type: 'column', column: 'odd name' },
    ]);
  });

  it('refuses embedding, JSON paths, casts and empty items', () => {
    expect(parseErrorOf(() => parseSelect('id,cases(*)')).details).toBe('Embedding a related resource is not supported by this API');
    expect(parseErrorOf(() => parseSelect('data->a')).details).toBe('A JSON path (-> or ->>) is not supported by this API');
    expect(parseErrorOf(() => parseSelect('id::text')).details).toBe('A cast (::) is not supported by this API');
    expect(parseErrorOf(() => parseSelect('..cases(*)')).details).toMatch(/Spreading/);
    expect(parseErrorOf(() => parseSelect('id,')).code).toBe('PGRST100');
    expect(parseErrorOf(() => parseSelect('')).code).toBe('PGRST100');
  });

  it('reads order terms with direction and nulls placement', () => {
    expect(parseOrder('a.desc.nullslast,b.asc,c,d.nullsfirst')).toEqual([
      { column: 'a', direction: 'desc', nulls: 'last' },
      { column: 'b', direction: 'asc' },
      { column: 'c' },
      { column: 'd', nulls: 'first' },
    ]);
  });

  it('refuses misspelt order modifiers', () => {
    expect(parseErrorOf(() => parseOrder('id.ac')).details).toBe('unexpected "a" expecting "asc", "desc", "nullsfirst" or "nullslast"');
    expect(parseErrorOf(() => parseOrder('id.descc')).code).toBe('PGRST100');
    expect(parseErrorOf(() => parseOrder('id.asc.nulls')).details).toMatch(/expecting "nullsfirst" or "nullslast"/);
    expect(parseErrorOf(() => parseOrder('id.asc.nullslast.x')).details).toMatch(/expecting "," or end of input/);
    expect(parseErrorOf(() => parseOrder('cases(id).desc')).details).toMatch(/Ordering by a related resource/);
  });

  it('reads column lists as postgrest-js sends them', () => {
    expect(parseColumnList('"case_id","score"', 'columns parameter')).toEqual(['case_id', 'score']);
    expect(parseColumnList('case_id, time_of_measurement', 'on_conflict parameter')).toEqual(['case_id', 'time_of_measurement']);
    expect(parseErrorOf(() => parseColumnList('a,,b', 'columns parameter')).code).toBe('PGRST100');
  });
});

describe('the query string', () => {
  it('collects filters in order, logic trees, paging and the reserved parameters', () => {
    const query = parseQuery('select=id,score&id=gte.2&id=lte.5&or=(a.is.null,b.eq.%22x%2Cy%22)&order=id.desc&limit=10&offset=20&on_conflict=id&columns=%22id%22');
    expect(query.select).toEqual([
      { type: 'column', column: 'id' },
      { type: 'column', column: 'score' },
    ]);
    expect(query.where).toEqual([
      filter('id', 'gte.2'),
      filter('id', 'lte.5'),
      {
        type: 'logic',
        operator: 'or',
        negated: false,
        conditions: [filter('a', 'is.null'), { type: 'filter', filter: { column: 'b', negated: false, operation: { op: 'eq', value: 'x,y' } } }],
      },
    ]);
    expect(query.order).toEqual([{ column: 'id', direction: 'desc' }]);
    expect([query.limit, query.offset]).toEqual([10, 20]);
    expect(query.onConflict).toEqual(['id']);
    expect(query.columns).toEqual(['id']);
  });

  it('needs a comma inside an or value to be quoted', () => {
    expect(parseErrorOf(() => parseQuery('or=(b.eq.x%2Cy)')).code).toBe('PGRST100');
  });

  it('decodes + as a space and percent escapes', () => {
    expect(parseQuery('label=eq.two+words%21').where).toEqual([filter('label', 'eq.two words!')]);
  });

  it('defaults to no select, no order and no paging', () => {
    expect(parseQuery('')).toEqual({ select: null, where: [], order: null, limit: null, offset: null, columns: null, onConflict: null });
  });

  it('refuses bad limits and offsets, repeated reserved parameters and embedded paths', () => {
    expect(parseErrorOf(() => parseQuery('limit=-1')).message).toBe('"failed to parse limit parameter (-1)"');
    expect(parseErrorOf(() => parseQuery('offset=ten')).code).toBe('PGRST100');
    expect(parseErrorOf(() => parseQuery('limit=1&limit=2')).details).toBe('the limit parameter is given more than once');
    expect(parseErrorOf(() => parseQuery('cases.id=eq.1')).details).toMatch(/embedded resource/);
    expect(parseErrorOf(() => parseQuery('data->>a=eq.1')).details).toMatch(/JSON path/);
    expect(parseErrorOf(() => parseQuery('id=5')).message).toBe('"failed to parse filter (5)" (line 1, column 1)');
  });
});

describe('headers', () => {
  it('reads Prefer over one or several headers, ignoring what it does not know', () => {
    expect(parsePrefer('resolution=merge-duplicates, return=representation')).toEqual({ resolution: 'merge-duplicates', return: 'representation' });
    expect(parsePrefer(['count=exact', 'return=minimal,missing=default,tx=rollback'])).toEqual({ count: 'exact', return: 'minimal', missing: 'default' });
    expect(parsePrefer('return=everything')).toEqual({});
    expect(parsePrefer(undefined)).toEqual({});
  });

  it('reads Range headers; ignores malformed ones; refuses empty ranges with 416', () => {
    expect(parseRangeHeader('0-24')).toEqual({ from: 0, to: 24 });
    expect(parseRangeHeader('items=10-')).toEqual({ from: 10, to: null });
    expect(parseRangeHeader('bytes=0-5x')).toBeNull();
    expect(parseRangeHeader(undefined)).toBeNull();
    const empty = parseErrorOf(() => parseRangeHeader('5-2'));
    expect([empty.status, empty.code]).toEqual([416, 'PGRST103']);
  });

  it('narrows limit and offset by the Range header and the row cap', () => {
    expect(resolveWindow({ limit: null, offset: null }, null)).toEqual({ offset: 0, limit: null });
    expect(resolveWindow({ limit: 10, offset: 5 }, null)).toEqual({ offset: 5, limit: 10 });
    expect(resolveWindow({ limit: 0, offset: null }, null)).toEqual({ offset: 0, limit: 0 });
    expect(resolveWindow({ limit: null, offset: null }, { from: 10, to: 19 })).toEqual({ offset: 10, limit: 10 });
    expect(resolveWindow({ limit: 5, offset: 12 }, { from: 10, to: 14 })).toEqual({ offset: 12, limit: 3 });
    expect(resolveWindow({ limit: null, offset: null }, null, 100)).toEqual({ offset: 0, limit: 100 });
    expect(resolveWindow({ limit: 1000, offset: null }, null, 100)).toEqual({ offset: 0, limit: 100 });
  });

  it('negotiates JSON arrays or single objects; refuses formats it does not produce', () => {
    expect(negotiateMedia(undefined)).toEqual({ singular: false, stripNulls: false });
    expect(negotiateMedia('application/json')).toEqual({ singular: false, stripNulls: false });
    expect(negotiateMedia('*/*')).toEqual({ singular: false, stripNulls: false });
    expect(negotiateMedia('application/vnd.pgrst.object+json')).toEqual({ singular: true, stripNulls: false });
    expect(negotiateMedia('application/vnd.pgrst.array+json;nulls=stripped')).toEqual({ singular: false, stripNulls: true });
    expect(negotiateMedia('text/csv, application/json;q=0.5')).toEqual({ singular: false, stripNulls: false });
    const csv = parseErrorOf(() => negotiateMedia('text/csv'));
    expect([csv.status, csv.code, csv.message]).toEqual([406, 'PGRST107', 'None of these media types are available: text/csv']);
  });
});
