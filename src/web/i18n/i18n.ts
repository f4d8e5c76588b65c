/**
 * Translations: i18next with one JSON catalog per locale, each loaded on demand so a person
 * downloads only their language. Arabic is the default and renders right to left; the choice
 * is kept in local storage (spec §9).
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { isolateLatin } from '../../domain/bidi';
import { assertSupportedLocale, DEFAULT_LOCALE, isLocale, LOCALES, textDirection, type Locale } from '../../domain/locales';

export const LOCALE_KEY = 'locale';

const catalogs: Record<Locale, () => Promise<{ default: Record<string, unknown> }>> = {
  ar: () => import('./ar.json'),
  de: () => import('./de.json'),
  en: () => import('./en.json'),
};

/** The locales this installation offers; the server's LOCALES setting narrows the default three. */
let supported: readonly Locale[] = LOCALES;

export function supportedLocales(): readonly Locale[] {
  return supported;
}

export function setSupportedLocales(locales: readonly string[]): void {
  const valid = locales.filter(isLocale);
  if (valid.length > 0) supported = valid;
}

function applyDocumentLocale(locale: Locale): void {
  document.documentElement.lang = locale;
  document.documentElement.dir = textDirection(locale);
}

function storedLocale(): Locale {
  const stored = localStorage.getItem(LOCALE_KEY);
  return isLocale(stored) && supported.includes(stored) ? stored : (supported[0] ?? DEFAULT_LOCALE);
}

async function ensureCatalog(locale: Locale): Promise<void> {
  if (i18next.hasResourceBundle(locale, 'translation')) return;
  const catalog = await catalogs[locale]();
  i18next.addResourceBundle(locale, 'translation', catalog.default, true, true);
}

/**
 * Every translated text of a right-to-left language gets its Latin names and codes isolated
 * (src/domain/bidi.ts), interpolated values included: "(PCL-5)" or a username stays in order.
 */
const BIDI = {
  type: 'postProcessor' as const,
  name: 'bidi',
  process: (value: string, _key: unknown, _options: unknown, translator: { language?: string }) =>
    translator.language && isLocale(translator.language) && textDirection(translator.language) === 'rtl' ? isolateLatin(value) : value,
};

export async function initI18n(): Promise<Locale> {
  const locale = storedLocale();
  const catalog = await catalogs[locale]();
  await i18next.use(initReactI18next).use(BIDI).init({
    lng: locale,
    postProcess: ['bidi'],
    resources: { [locale]: { translation: catalog.default } },
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  applyDocumentLocale(locale);
  return locale;
}

/** Switches the language; an unsupported locale raises "The locale is unsupported" (spec §5, §8). */
export async function changeLocale(requested: string): Promise<Locale> {
  const locale = assertSupportedLocale(requested, supported);
  await ensureCatalog(locale);
  await i18next.changeLanguage(locale);
  localStorage.setItem(LOCALE_KEY, locale);
  applyDocumentLocale(locale);
  return locale;
}

export function currentLocale(): Locale {
  const language = i18next.language;
  return isLocale(language) ? language : DEFAULT_LOCALE;
}
