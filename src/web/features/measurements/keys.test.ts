/** Keys the measurement screens build from data exist in English (catalogs.test.ts holds ar and de to it). */
import { describe, expect, it } from 'vitest';
import en from '../../i18n/en.json';
import type { RecordStatus } from '../../../domain/measurements';
import type { OutboxState } from './outbox';

const STATUSES: RecordStatus[] = ['not_started', 'in_progress', 'complete'];
const SAVE_STATES: OutboxState[] = ['saved', 'saving', 'waiting', 'rejected'];

describe('measurement keys built from data', () => {
  it('has every record status and save state', () => {
    expect(Object.keys(en.measurements.status).sort()).toEqual([...STATUSES].sort());
    expect(Object.keys(en.measurements.saveState).sort()).toEqual([...SAVE_STATES].sort());
  });
});
