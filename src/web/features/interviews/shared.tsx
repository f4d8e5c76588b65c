/**
 * Pieces the three interview screens share: the person's zone and locale, a clock that ticks
 * so "soon" and the join link appear on time, week arithmetic in the person's zone, and the
 * prominent join link.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dayKey, fromLocalInput, isoWeek, startOfWeek, zoneName } from '../../../domain/format';
import { isJoinable, type TimeSlot } from '../../../domain/interviews';
import type { Locale } from '../../../domain/locales';
import type { Clock } from '../../ui/clock';
import { useClock } from '../../ui/useClock';

/** The person's clock (profile zone, screen language; src/web/ui/clock.ts) and its zone and locale. */
export function useZone(): { timeZone: string; locale: Locale; clock: Clock } {
  const clock = useClock();
  return { timeZone: clock.zone, locale: clock.locale, clock };
}

/** Now, refreshed every 30 s. */
export function useNow(intervalMs = 30_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** "Times are shown in Europe/Berlin." */
export function ZoneNote({ timeZone }: { timeZone: string }) {
  const { t } = useTranslation();
  return <p className="muted">{t('interviews.timesIn', { zone: zoneName(timeZone) })}</p>;
}

function addDays(key: string, days: number): string {
  const [y, m, d] = key.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d + days));
  return date.toISOString().slice(0, 10);
}

/** The Monday ("YYYY-MM-DD") of the week holding `date` in the zone. */
export function weekOf(date: Date, timeZone: string): string {
  const [y, m, d] = dayKey(date, timeZone).split('-').map(Number) as [number, number, number];
  const monday = startOfWeek(y, m, d);
  return `${String(monday.year).padStart(4, '0')}-${String(monday.month).padStart(2, '0')}-${String(monday.day).padStart(2, '0')}`;
}

export interface Week {
  monday: string;
  days: string[];
  /** The instants the week starts and ends in the zone. */
  since: Date;
  until: Date;
  number: number;
  year: number;
}

export function weekFrom(monday: string, timeZone: string): Week {
  const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i));
  const [y, m, d] = monday.split('-').map(Number) as [number, number, number];
  const { week, year } = isoWeek(y, m, d);
  return {
    monday,
    days,
    since: fromLocalInput(`${monday}T00:00`, timeZone)!,
    until: fromLocalInput(`${addDays(monday, 7)}T00:00`, timeZone)!,
    number: week,
    year,
  };
}

export function shiftWeek(monday: string, weeks: number): string {
  return addDays(monday, weeks * 7);
}

/** The heading of a calendar day key in the person's language. */
export function dayHeading(key: string, clock: Clock): string {
  return clock.dayHeading(fromLocalInput(`${key}T12:00`, clock.zone)!);
}

/** The meeting link: a prominent button from 20 minutes before the start until the end. */
export function JoinLink({ link, slot, now }: { link: string | null; slot: TimeSlot; now: Date }) {
  const { t } = useTranslation();
  if (!link) return null;
  if (isJoinable(slot, now)) {
    return (
      <a className="button join-link" href={link} target="_blank" rel="noopener noreferrer">
        {t('interviews.joinNow')}
      </a>
    );
  }
  return (
    <p className="muted">
      {t('interviews.linkLabel')}{' '}
      <a href={link} target="_blank" rel="noopener noreferrer" dir="ltr">
        {link}
      </a>
    </p>
  );
}
