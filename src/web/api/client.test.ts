import { describe, expect, it } from 'vitest';
import { ApiError, isCodedError } from './client';

describe('coded errors (spec §8)', () => {
  it('recognises errors that carry a string code', () => {
    expect(isCodedError(new ApiError(401, 'invalid_credentials', 'x'))).toBe(true);
    expect(isCodedError({ code: 'NOT_FOUND_OR_DENIED', message: 'x' })).toBe(true);
    expect(isCodedError(new Error('plain'))).toBe(false);
    expect(isCodedError({ code: 42 })).toBe(false);
    expect(isCodedError(null)).toBe(false);
  });
});
