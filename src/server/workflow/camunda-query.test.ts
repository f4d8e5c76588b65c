import { describe, expect, it } from 'vitest';
import { camundaDate, MAX_RESULTS, parseOffsetDate, QueryParams, Where } from './camunda-query';
import { checkCallVariables, checkFormVariables } from './commands';
import { CamundaError } from './errors';
import { thrownBy } from '../../../test/helpers/thrown';

/** The body of the CamundaError `fn` throws. */
const fails = (fn: () => unknown) => thrownBy(CamundaError, fn).body;

describe('parseOffsetDate', () => {
  it('reads any ISO offset, Camunda’s +0000 included', () => {
    const instant = '2027-06-02T10:00:00.000Z';
    for (const text of ['2027-06-02T10:00:00.000+0000', '2027-06-02T12:00:00.000+0200', '2027-06-02T12:00:00+02:00', '2027-06-02T10:00:00Z', '2027-06-02T05:00-0500']) {
      expect(parseOffsetDate(text)?.toISOString(), text).toBe(instant);
    }
  });

  it('refuses dates without an offset and impossible ones', () => {
    for (const text of ['2027-06-02', '2027-06-02T10:00:00', '2027-02-30T10:00:00Z', '2027-13-01T10:00:00Z', 'tomorrow', '2027-06-02T25:00:00Z']) {
      expect(parseOffsetDate(text), text).toBeUndefined();
    }
  });

  it('answers in Camunda’s format', () => {
    expect(camundaDate(new Date('2027-06-02T10:00:00Z'))).toBe('2027-06-02T10:00:00.000+0000');
    expect(camundaDate(null)).toBeNull();
  });
});

describe('QueryParams', () => {
  it('reads lists, booleans, integers and dates, naming a bad parameter', () => {
    const q = new QueryParams({ a: 'x,y, z', b: 'true', n: '5', d: '2027-06-02T10:00:00.000+0000' });
    expect(q.list('a')).toEqual(['x', 'y', 'z']);
    expect(q.boolean('b')).toBe(true);
    expect(q.integer('n')).toBe(5);
    expect(q.date('d')?.toISOString()).toBe('2027-06-02T10:00:00.000Z');
    expect(q.string('missing')).toBeUndefined();
    expect(fails(() => new QueryParams({ b: 'yes' }).boolean('b'))).toEqual({ type: 'InvalidRequestException', message: expect.stringContaining("'b'") });
    expect(fails(() => new QueryParams({ n: '-1' }).integer('n')).message).toContain("'n'");
    expect(fails(() => new QueryParams({ d: 'soon' }).date('d')).message).toContain("'d'");
    expect(fails(() => new QueryParams({ s: ['a', 'b'] }).string('s')).message).toContain("'s'");
  });

  it('pages up to the limit and sorts by known columns only, both parameters together', () => {
    expect(new QueryParams({}).page()).toEqual({ offset: 0, limit: MAX_RESULTS });
    expect(new QueryParams({ firstResult: '10', maxResults: '5' }).page()).toEqual({ offset: 10, limit: 5 });
    expect(fails(() => new QueryParams({ maxResults: String(MAX_RESULTS + 1) }).page()).message).toBe(`Max results limit of ${MAX_RESULTS} exceeded!`);
    const columns = { created: 't.created' };
    expect(new QueryParams({}).sort(columns, 't.id')).toBe('t.id');
    expect(new QueryParams({ sortBy: 'created', sortOrder: 'desc' }).sort(columns, 't.id')).toBe('t.created desc nulls last, t.id');
    expect(fails(() => new QueryParams({ sortBy: 'created' }).sort(columns, 't.id')).message).toBe(
      'Only a single sorting parameter specified. sortBy and sortOrder required',
    );
    expect(fails(() => new QueryParams({ sortBy: 'x; drop table', sortOrder: 'asc' }).sort(columns, 't.id')).type).toBe('InvalidRequestException');
  });

  it('builds a WHERE clause of bind parameters, skipping what was not given', () => {
    const where = new Where().add('a = $', 1).add('b = $', undefined).when(true, 'c is null').add('d = any ($)', ['x']);
    expect(where.sql).toBe('where a = $1 and c is null and d = any ($2)');
    expect(where.param(10)).toBe('$3');
    expect(where.values).toEqual([1, ['x'], 10]);
  });
});

describe('what a call and a task form may carry', () => {
  const outcome = [{ id: 'outcome', type: 'enum', values: [{ id: 'ptsd' }, { id: 'later' }] }];

  it('a task form accepts exactly its declared fields, each of its type', () => {
    expect(() => checkFormVariables('t1', outcome, { outcome: { value: 'ptsd', type: 'String' } }, { undeclared: 'refuse' })).not.toThrow();
    expect(fails(() => checkFormVariables('t1', outcome, { outcome: { value: 'maybe', type: 'String' } }, { undeclared: 'refuse' })).message).toContain('ptsd, later');
    const extra = fails(() =>
      checkFormVariables('t1', outcome, { outcome: { value: 'ptsd', type: 'String' }, treatmentDuration: { value: 'PT1S', type: 'String' } }, { undeclared: 'refuse' }),
    );
    expect(extra).toEqual({ type: 'InvalidRequestException', message: "The task t1 accepts only the fields outcome; 'treatmentDuration' cannot be set through it." });
    expect(fails(() => checkFormVariables('t2', [], { fu1After: { value: 'PT1S', type: 'String' } }, { undeclared: 'refuse' })).message).toContain('has no form fields');
    // The server's own completions may set further variables; declared ones are still checked.
    expect(() => checkFormVariables('t1', outcome, { outcome: { value: 'later', type: 'String' }, ticket: { value: 'x', type: 'String' } }, { undeclared: 'allow' })).not.toThrow();
    expect(() => checkFormVariables('t1', outcome, { outcome: { value: 'maybe', type: 'String' } }, { undeclared: 'allow' })).toThrow(CamundaError);
    expect(fails(() => checkFormVariables('t3', [{ id: 'n', type: 'long' }], { n: { value: 1.5, type: 'Double' } }, { undeclared: 'refuse' })).message).toContain('whole number');
  });

  it('a message carries only the variables its rule lists, of their type; null allows any', () => {
    expect(() => checkCallVariables('dropout', { askForPostIfDroppedOut: 'Boolean' }, { askForPostIfDroppedOut: { value: true, type: 'Boolean' } })).not.toThrow();
    expect(fails(() => checkCallVariables('dropout', { askForPostIfDroppedOut: 'Boolean' }, { askForPostIfDroppedOut: { value: 'yes', type: 'String' } })).message).toContain('Boolean');
    expect(fails(() => checkCallVariables('dropout', { askForPostIfDroppedOut: 'Boolean' }, { fu1After: { value: 'PT1S', type: 'String' } })).message).toContain("'fu1After'");
    expect(fails(() => checkCallVariables('offerCanceled', {}, { x: { value: 1, type: 'Integer' } })).message).toContain('carries no variables');
    expect(() => checkCallVariables('start', null, { anything: { value: 1, type: 'Integer' } })).not.toThrow();
  });
});
