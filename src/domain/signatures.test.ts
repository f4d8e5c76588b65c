import { describe, expect, it } from 'vitest';
import { canonicalJson, MEANING_OF_ACT, SIGNED_ACTS, SIGNATURE_MEANINGS } from './signatures';

describe('signatures', () => {
  it('writes the same canonical text whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x', null], c: true } })).toBe('{"a":{"c":true,"d":[1,"x",null]},"b":1}');
    expect(canonicalJson({ a: { c: true, d: [1, 'x', null] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [1, 'x', null], c: true } }));
    expect(canonicalJson({ a: undefined, b: new Date(Date.UTC(2026, 0, 2)) })).toBe('{"b":"2026-01-02T00:00:00.000Z"}');
  });

  it('gives every signed act a meaning the database accepts', () => {
    for (const act of SIGNED_ACTS) expect(SIGNATURE_MEANINGS).toContain(MEANING_OF_ACT[act]);
  });
});
