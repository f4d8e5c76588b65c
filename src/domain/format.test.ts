import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, isoWeek, startOfWeek, weekdayNames } from './format';
import { assertSupportedLocale, textDirection, UnsupportedLocaleError } from './locales';

describe('formatting (spec §9)', () => {
  const moment = new Date(Date.UTC(2026, 10, 3, 13, 5)); // 3 November 2026, 13:05 UTC

  it('writes English dates day first', () => {
    expect(formatDate(moment, 'en', 'Europe/Berlin')).toBe('03/11/2026');
    expect(formatDateTime(moment, 'en', 'Europe/Berlin')).toBe('03/11/2026, 14:05');
  });

  it('writes German dates the German way', () => {
    expect(formatDateTime(moment, 'de', 'Europe/Berlin')).toBe('03.11.2026, 14:05');
  });

  it('appends (UTC) when the time zone is UTC', () => {
    expect(formatDateTime(moment, 'en', 'UTC')).toBe('03/11/2026, 13:05 (UTC)');
    expect(formatDate(moment, 'de', 'Etc/UTC')).toBe('03.11.2026 (UTC)');
    expect(formatDateTime(moment, 'en', 'Asia/Baghdad')).not.toContain('UTC');
  });

  it('formats Arabic in the person’s zone', () => {
    expect(formatDateTime(moment, 'ar', 'Asia/Baghdad')).toMatch(/١٦|16/);
  });

  it('numbers weeks the ISO way: the first week holds January 4', () => {
    expect(isoWeek(2026, 1, 1)).toEqual({ week: 1, year: 2026 }); // a Thursday
    expect(isoWeek(2027, 1, 1)).toEqual({ week: 53, year: 2026 }); // a Friday belongs to 2026's last week
    expect(isoWeek(2027, 1, 4)).toEqual({ week: 1, year: 2027 });
    expect(isoWeek(2024, 12, 30)).toEqual({ week: 1, year: 2025 });
    expect(isoWeek(2026, 11, 22)).toEqual({ week: 47, year: 2026 });
  });

  it('starts weeks on Monday', () => {
    expect(startOfWeek(2026, 11, 22)).toEqual({ year: 2026, month: 11, day: 16 }); // Sunday → Monday before
    expect(startOfWeek(2026, 11, 16)).toEqual({ year: 2026, month: 11, day: 16 });
    expect(weekdayNames('en')[0]).toBe('Mon');
    expect(weekdayNames('de', 'long')[6]).toBe('Sonntag');
  });
});

describe('locales (spec §5, §8)', () => {
  it('refuses an unsupported locale with the spec’s message', () => {
    expect(() => assertSupportedLocale('fr')).toThrow(UnsupportedLocaleError);
    expect(() => assertSupportedLocale('fr')).toThrow('The locale is unsupported');
    // the locale-change rule of spec §5 allows de and ar only: a configured subset holds
    expect(() => assertSupportedLocale('en', ['de', 'ar'])).toThrow('The locale is unsupported');
    expect(assertSupportedLocale('ar', ['de', 'ar'])).toBe('ar');
  });
  it('renders Arabic right to left', () => {
    expect(textDirection('ar')).toBe('rtl');
    expect(textDirection('de')).toBe('ltr');
  });
});
