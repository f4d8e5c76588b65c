import { describe, expect, it } from 'vitest';
import { inlineParameters, preparedStatementName } from './transaction';

describe('inlineParameters', () => {
  it('quotes every value as a literal PostgreSQL types from its context, as it types a bind parameter', () => {
    const statement = { text: 'select * from t where a = $1 and b = any($2) and c = $3 and d is not distinct from $4 limit $5', values: ['x', ['p', 'q'], true, null, 10] };
    expect(inlineParameters(statement)).toBe("select * from t where a = 'x' and b = any('{\"p\",\"q\"}') and c = 'true' and d is not distinct from null limit '10'");
  });

  it('doubles quotes and escapes backslashes, so a value never ends its literal', () => {
    expect(inlineParameters({ text: 'select $1', values: ["it's'; drop table t; --"] })).toBe("select 'it''s''; drop table t; --'");
    // E'' with doubled backslashes means the same whatever standard_conforming_strings says.
    expect(inlineParameters({ text: 'select $1', values: ['a\\'] })).toBe(String.raw`select  E'a\\'`);
    expect(inlineParameters({ text: 'select $1', values: [['"q"', 'b\\', null]] })).toBe(String.raw`select  E'{"\\"q\\"","b\\\\",NULL}'`);
  });

  it('replaces $10 as the tenth value, not $1 followed by 0', () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParameters({ text: 'select $10, $1', values })).toBe("select 'v10', 'v1'");
  });

  it('refuses a NUL, which cannot travel in a simple-protocol message, and a placeholder without a value', () => {
    expect(() => inlineParameters({ text: 'select $1', values: ['a\0b'] })).toThrow(/NUL/);
    expect(() => inlineParameters({ text: 'select $2', values: ['a'] })).toThrow(/no value for \$2/);
  });
});

describe('preparedStatementName', () => {
  it('names each statement text once, and the same text by the same name', () => {
    const text = `select $1::int + ${Math.random()}`;
    const name = preparedStatementName(text);
    expect(name).toMatch(/^sanad_once_\d+$/);
    expect(preparedStatementName(text)).toBe(name);
    expect(preparedStatementName(`${text} + 1`)).not.toBe(name);
  });
});
