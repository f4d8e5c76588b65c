import { describe, expect, it } from 'vitest';
import { contentRange, rangeStatus } from './routes';

describe('Content-Range and the status of a read', () => {
  it('names the rows returned and the total when counted', () => {
    expect(contentRange(0, 25, 3573)).toBe('0-24/3573');
    expect(contentRange(10, 5, null)).toBe('10-14/*');
    expect(contentRange(0, 0, 0)).toBe('*/0');
    expect(contentRange(7, 0, null)).toBe('*/*');
  });

  it('answers 206 for part of the rows and 416 past the end, as PostgREST does', () => {
    expect(rangeStatus(0, 25, null)).toBe(200);
    expect(rangeStatus(0, 4, 4)).toBe(200);
    expect(rangeStatus(0, 0, 0)).toBe(200);
    expect(rangeStatus(0, 2, 4)).toBe(206);
    expect(rangeStatus(4, 0, 4)).toBe(206);
    expect(rangeStatus(5, 0, 4)).toBe(416);
  });
});
