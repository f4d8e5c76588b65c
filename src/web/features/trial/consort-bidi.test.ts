/**
 * Arabic CONSORT counts read "(n = 4)" (issue 26: they showed "(4 = n)"). The statistical
 * "n = 4" is a left-to-right island (an isolate, as src/domain/bidi.ts makes for identifiers)
 * inside the Arabic sentence, so the parentheses stay with the sentence and the count reads in order.
 */
import { describe, expect, it } from 'vitest';
import ar from '../../i18n/ar.json';
import en from '../../i18n/en.json';

const LRI = '\u2066';
const PDI = '\u2069';

function leaves(node: unknown, prefix = ''): [string, string][] {
  if (typeof node === 'string') return [[prefix, node]];
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
  return [];
}

describe('CONSORT counts in Arabic', () => {
  const countKeys = leaves(en).filter(([, text]) => text.includes('(n = {{n}})')).map(([key]) => key);
  const arabic = new Map(leaves(ar));

  it('finds the counted boxes', () => {
    expect(countKeys.length).toBeGreaterThanOrEqual(15);
  });

  it('every count is an isolated "n = {{n}}" in the Arabic catalog', () => {
    const wrong = countKeys.filter((key) => !arabic.get(key)?.includes(`(${LRI}n = {{n}}${PDI})`));
    expect(wrong).toEqual([]);
  });
});
