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

/** Date and time in the person's zone, e.g. "22/11/2026, 14:05" (en) or "22.11.2026, 14:05" (de). */
export function formatDateTime(date: Date, locale: Locale, timeZone: string): string {
  const text = new Intl.DateTimeFormat(intlLocale(locale), {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(date);
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
