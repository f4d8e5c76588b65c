/**
 * Time-zone facts that must be identical whatever the process's own TZ: computed by the unit
 * test in its own process and again in child processes started with TZ=Europe/Berlin and
 * TZ=Asia/Baghdad (src/domain/format-zones.test.ts).
 */
import { dayKey, formatSlot, fromLocalInput, toLocalInput } from '../../src/domain/format';

/** Results that must be identical whatever the process's own TZ. */
export function zoneFacts(): Record<string, string> {
  const beforeSpring = new Date('2027-03-27T09:00:00Z'); // Sat 10:00 CET
  const afterSpring = new Date('2027-03-29T08:00:00Z'); // Mon 10:00 CEST
  return {
    berlinBefore: toLocalInput(beforeSpring, 'Europe/Berlin'),
    berlinAfter: toLocalInput(afterSpring, 'Europe/Berlin'),
    baghdad: toLocalInput(afterSpring, 'Asia/Baghdad'),
    fromBerlinWinter: fromLocalInput('2027-03-27T10:00', 'Europe/Berlin')!.toISOString(),
    fromBerlinSummer: fromLocalInput('2027-03-29T10:00', 'Europe/Berlin')!.toISOString(),
    fromBerlinGap: fromLocalInput('2027-03-28T02:30', 'Europe/Berlin')!.toISOString(),
    fromBerlinTwice: fromLocalInput('2027-10-31T02:30', 'Europe/Berlin')!.toISOString(),
    fromBaghdad: fromLocalInput('2027-03-28T02:30', 'Asia/Baghdad')!.toISOString(),
    slotEn: formatSlot(afterSpring, new Date('2027-03-29T09:00:00Z'), 'en', 'Europe/Berlin'),
    slotUtc: formatSlot(afterSpring, new Date('2027-03-29T09:00:00Z'), 'en', 'UTC'),
    dayNearMidnight: dayKey(new Date('2027-03-28T22:30:00Z'), 'Asia/Baghdad'),
  };
}

export const EXPECTED = {
  berlinBefore: '2027-03-27T10:00',
  berlinAfter: '2027-03-29T10:00',
  baghdad: '2027-03-29T11:00',
  fromBerlinWinter: '2027-03-27T09:00:00.000Z',
  fromBerlinSummer: '2027-03-29T08:00:00.000Z',
  // 02:30 does not exist on 28 March 2027 in Berlin: it becomes 03:30 summer time.
  fromBerlinGap: '2027-03-28T01:30:00.000Z',
  // 02:30 exists twice on 31 October 2027: the first (summer time) is taken.
  fromBerlinTwice: '2027-10-31T00:30:00.000Z',
  fromBaghdad: '2027-03-27T23:30:00.000Z',
  slotEn: 'Mon, 29/03/2027, 10:00–11:00 (Europe/Berlin)',
  slotUtc: 'Mon, 29/03/2027, 08:00–09:00 (UTC)',
  dayNearMidnight: '2027-03-29',
};

