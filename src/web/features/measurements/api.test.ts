import { describe, expect, it } from 'vitest';
import { collectionUrl } from './api';

describe('collectionUrl (spec §5: each stored-entity call requires its url)', () => {
  it('names the collection of a questionnaire', () => {
    expect(collectionUrl('phq9')).toBe('/api/phq9');
  });
  it('raises "state.url must be defined" without one', () => {
    expect(() => collectionUrl('')).toThrow('state.url must be defined');
    expect(() => collectionUrl(undefined)).toThrow('state.url must be defined');
  });
});
