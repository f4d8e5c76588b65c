/**
 * Time zones for interviews: stored in UTC, shown in each person's zone with the zone named,
 * across the Berlin daylight-saving changes and in Baghdad (no DST). The same checks run again
 * in child processes whose own TZ is Europe/Berlin and Asia/Baghdad, so no helper depends on
 * the machine's zone.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSlot, formatTime, fromLocalInput, zoneName } from './format';
import { EXPECTED, zoneFacts } from '../../test/helpers/zone-facts';

describe('interview times across zones', () => {
  it('converts and formats with explicit zones across the Berlin DST change', () => {
    expect(zoneFacts()).toEqual(EXPECTED);
  });

  it('names the zone and shows the wall-clock time', () => {
    expect(zoneName('America/New_York')).toBe('America/New York');
    expect(zoneName('Etc/UTC')).toBe('UTC');
    expect(formatTime(new Date('2027-10-31T00:30:00Z'), 'de', 'Europe/Berlin')).toBe('02:30');
    expect(formatTime(new Date('2027-10-31T01:30:00Z'), 'de', 'Europe/Berlin')).toBe('02:30');
    expect(formatSlot(new Date('2027-06-01T21:00:00Z'), new Date('2027-06-01T22:30:00Z'), 'de', 'Asia/Baghdad')).toBe(
      'Mi., 02.06.2027, 00:00–01:30 (Asia/Baghdad)',
    );
    expect(fromLocalInput('not a time', 'UTC')).toBeNull();
  });

  for (const zone of ['Europe/Berlin', 'Asia/Baghdad']) {
    it(`gives the same answers in a process running with TZ=${zone}`, () => {
      const script = `import { zoneFacts } from ${JSON.stringify(path.resolve('test/helpers/zone-facts.ts'))}; console.log(JSON.stringify(zoneFacts()));`;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, TZ: zone, VITEST: '' },
        encoding: 'utf8',
      });
      expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual(EXPECTED);
    }, 30_000);
  }
});
