/** Locales (spec §1, §5, §9): Arabic first and default, right-to-left; German and English. */
export const LOCALES = ['ar', 'de', 'en'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'ar';

export class UnsupportedLocaleError extends Error {
  constructor(readonly locale: string) {
    super('The locale is unsupported');
    this.name = 'UnsupportedLocaleError';
  }
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Checks a requested locale against the configured set; raises the spec's error otherwise. */
export function assertSupportedLocale(value: string, supported: readonly string[] = LOCALES): Locale {
  if (!isLocale(value) || !supported.includes(value)) throw new UnsupportedLocaleError(value);
  return value;
}

export function textDirection(locale: Locale): 'rtl' | 'ltr' {
  return locale === 'ar' ? 'rtl' : 'ltr';
}
