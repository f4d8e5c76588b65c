import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chainField, chainHash, GENESIS } from './chains';

describe('the chain encoding', () => {
  it('writes null apart from empty text, and counts octets, not characters', () => {
    expect(chainField(null)).toBe('N');
    expect(chainField('')).toBe('S0:');
    expect(chainField('سند')).toBe('S6:سند');
  });

  it('hashes the previous hash followed by the fields', () => {
    const expected = crypto.createHash('sha256').update(`${GENESIS}S3:allS1:1N`).digest('hex');
    expect(chainHash(GENESIS, ['all', '1', null])).toBe(expected);
    // Moving text between fields changes the hash: the lengths frame each field.
    expect(chainHash(GENESIS, ['ab', 'c'])).not.toBe(chainHash(GENESIS, ['a', 'bc']));
  });
});
