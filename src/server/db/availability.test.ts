import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './availability';

describe('isDatabaseUnavailable', () => {
  it('knows a database that is gone from a request that is wrong', () => {
    const gone = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
      { originalError: Object.assign(new Error('server closed the connection'), { code: '08006' }) },
      new Error('wrapped', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) }),
    ];
    for (const error of gone) expect(isDatabaseUnavailable(error)).toBe(true);
    const wrong = [
      Object.assign(new Error('duplicate key value'), { code: '23505' }),
      Object.assign(new Error('permission denied'), { code: '42501' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      new Error('Something else'),
      null,
      'ECONNREFUSED',
    ];
    for (const error of wrong) expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
