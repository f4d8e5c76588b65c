/**
 * Date formatting rules of spec §9: weeks start on Monday, ISO week numbers (the first week
 * holds January 4), English dates day-first, and "(UTC)" appended when the zone is UTC.
 */
import type { Locale } from './locales';

/** BCP 47 tags per locale: en-GB for day-first English; Arabic with Latin digits is not assumed. */
const INTL_LOCALE: Record<Locale, string> = { ar: 'ar', de: 'de-DE', en: 'en-GB' };

export function intlLocale(locale: Locale): string {
  return INTL_LOCALE[locale];
}

function isUtc(timeZone: string): boolean {
  return ['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu', 'GMT', 'Etc/GMT'].includes(timeZone);
}

/** Day-first numeric date and 24-hour time in a zone: shown to people, and read back as parts. */
function dateTimeOptions(timeZone: string): Intl.DateTimeFormatOptions {
  return { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
}

/** Date and time in the person's zone, e.g. "22/11/2026, 14:05" (en) or "22.11.2026, 14:05" (de). */
export function formatDateTime(date: Date, locale: Locale, timeZone: string): string {
  const text = new Intl.DateTimeFormat(intlLocale(locale), dateTimeOptions(timeZone)).format(date);
  return isUtc(timeZone) ? `${text} (UTC)` : text;
}

export function formatDate(date: Date, locale: Locale, timeZone: string): string {
  const text = new Intl.DateTimeFormat(intlLocale(locale), { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
  return isUtc(timeZone) ? `${text} (UTC)` : text;
}

/** ISO 8601 week number and week-year of a calendar date given as year, month (1-12), day. */
export function isoWeek(year: number, month: number, day: number): { week: number; year: number } {
  const date = new Date(Date.UTC(year, month - 1, day));
  const weekday = (date.getUTCDay() + 6) % 7; // Monday = 0
  // The Thursday of this week decides the week-year (the week holding January 4 is week 1).
  date.setUTCDate(date.getUTCDate() - weekday + 3);
  const weekYear = date.getUTCFullYear();
  const firstThursday = new Date(Date.UTC(weekYear, 0, 4));
  firstThursday.setUTCDate(firstThursday.getUTCDate() - ((firstThursday.getUTCDay() + 6) % 7) + 3);
  const week = 1 + Math.round((date.getTime() - firstThursday.getTime()) / (7 * 24 * 3600 * 1000));
  return { week, year: weekYear };
}

/** Monday of the week that holds the given calendar date (weeks start Monday everywhere). */
export function startOfWeek(year: number, month: number, day: number): { year: number; month: number; day: number } {
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** Weekday names starting Monday, in the locale's language. */
export function weekdayNames(locale: Locale, style: 'long' | 'short' = 'short'): string[] {
  const monday = new Date(Date.UTC(2024, 0, 1)); // a Monday
  return Array.from({ length: 7 }, (_, i) =>
    new Intl.DateTimeFormat(intlLocale(locale), { weekday: style, timeZone: 'UTC' }).format(new Date(monday.getTime() + i * 86_400_000)),
  );
}

/** A time zone as people read it: "Europe/Berlin" → "Europe/Berlin", "America/New_York" → "America/New York". */
export function zoneName(timeZone: string): string {
  return isUtc(timeZone) ? 'UTC' : timeZone.replace(/_/g, ' ');
}

interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** The wall-clock date and time of an instant in a zone. */
export function zonedParts(date: Date, timeZone: string): ZonedParts {
  const parts = new Intl.DateTimeFormat('en-GB', dateTimeOptions(timeZone)).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute') };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The calendar day of an instant in a zone, "2027-03-28": the key to group slots by day. */
export function dayKey(date: Date, timeZone: string): string {
  const p = zonedParts(date, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** "2027-03-28T10:00" in a zone, as a datetime-local field shows it. */
export function toLocalInput(date: Date, timeZone: string): string {
  const p = zonedParts(date, timeZone);
  return `${dayKey(date, timeZone)}T${pad(p.hour)}:${pad(p.minute)}`;
}

/**
 * The instant a wall-clock time ("2027-03-28T10:00") has in a zone. A time that does not
 * exist (skipped by a change to summer time) moves forward by the gap; a time that exists
 * twice (the change back) is the first of the two, as calendars do.
 */
export function fromLocalInput(local: string, timeZone: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi);
  const offsetAt = (instant: number) => {
    const p = zonedParts(new Date(instant), timeZone);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute) - instant;
  };
  // Try the offsets in force a day either side: the earlier candidate that maps back wins.
  const candidates = [...new Set([offsetAt(asUtc - 86_400_000), offsetAt(asUtc), offsetAt(asUtc + 86_400_000)])]
    .map((offset) => asUtc - offset)
    .sort((a, b) => a - b);
  const exact = candidates.find((instant) => offsetAt(instant) + instant === asUtc);
  if (exact !== undefined) return new Date(exact);
  // In the gap: read with the offset before the change, which moves the wall time forward by the gap.
  return new Date(asUtc - offsetAt(asUtc - 86_400_000));
}

/** "10:00" in the person's zone. */
export function formatTime(date: Date, locale: Locale, timeZone: string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date);
}

/** "Tuesday, 23/03/2027" in the person's zone: the heading of a day of slots. */
export function formatDayHeading(date: Date, locale: Locale, timeZone: string): string {
  return new Intl.DateTimeFormat(intlLocale(locale), { timeZone, weekday: 'long', year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

/**
 * A slot in the person's zone with the zone named, e.g.
 * "Tue, 23/03/2027, 10:00–11:00 (Europe/Berlin)"; "(UTC)" for UTC (spec §9).
 */
export function formatSlot(start: Date, end: Date, locale: Locale, timeZone: string): string {
  const day = new Intl.DateTimeFormat(intlLocale(locale), { timeZone, weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit' }).format(start);
  const sameDay = dayKey(start, timeZone) === dayKey(end, timeZone);
  const endText = sameDay ? formatTime(end, locale, timeZone) : formatDateTime(end, locale, timeZone).replace(/ \(UTC\)$/, '');
  return `${day}, ${formatTime(start, locale, timeZone)}–${endText} (${zoneName(timeZone)})`;
}
