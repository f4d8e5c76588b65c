import { describe, expect, it } from 'vitest';
import { pgSettingsFor } from '../db/transaction';
import { transactionSetup } from './pg-adaptor';

describe('transactionSetup', () => {
  it('opens the transaction and sets every request setting locally in one message', () => {
    const settings = pgSettingsFor({ userId: '0b6f3c1e-8f7a-4d2b-9c1e-2a3b4c5d6e7f' });
    const setup = transactionSetup(settings);
    expect(setup).toMatch(/^begin; select set_config\(/);
    expect(setup).toContain("set_config('role', 'sanad_user', true)");
    expect(setup).toContain("set_config('jwt.claims.user_id', '0b6f3c1e-8f7a-4d2b-9c1e-2a3b4c5d6e7f', true)");
    expect(setup.match(/set_config\(/g)).toHaveLength(Object.keys(settings).length);
  });

  it('quotes keys and values as literals and leaves out unset ones', () => {
    expect(transactionSetup({ 'a.b': "it's", skipped: undefined })).toBe("begin; select set_config('a.b', 'it''s', true)");
  });

  it('is a plain begin without settings', () => {
    expect(transactionSetup(null)).toBe('begin');
    expect(transactionSetup({})).toBe('begin');
  });
});
