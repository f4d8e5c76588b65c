/**
 * The printable record of a consent (issue 31 item 1): the text exactly as the patient saw it,
 * with version, language, time (in the reader's zone, and in UTC) and how the identity was
 * confirmed. Pure: record in, HTML out; the page's words come from the catalogs (`consent.record`).
 */
import { isolateLatin } from '../../domain/bidi';
import { formatDateTime } from '../../domain/format';
import { isLocale, textDirection, type Locale } from '../../domain/locales';
import { catalogText } from '../own-data/document';
import type { ConsentRecord } from './service';

const escapeHtml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
const show = (text: string): string => escapeHtml(isolateLatin(text));

const LANGUAGE_NAMES: Record<string, string> = { ar: 'العربية', de: 'Deutsch', en: 'English' };

export function renderConsentRecord(record: ConsentRecord, localeWanted: string, timeZone: string): string {
  const locale: Locale = isLocale(localeWanted) ? localeWanted : 'ar';
  const t = (key: string, values?: Record<string, string>) => catalogText(locale, key, values);
  const agreed = new Date(record.agreedAt);
  const facts: [string, string][] = [
    [t('consent.record.version'), String(record.version)],
    [t('consent.record.language'), LANGUAGE_NAMES[record.language] ?? record.language],
    [t('consent.record.agreedAt'), `${formatDateTime(agreed, locale, timeZone)} · ${formatDateTime(agreed, locale, 'UTC')}`],
    [t('consent.record.identity'), t(`consent.identityMethod.${record.identityMethod}`)],
    [
      t('consent.record.identityConfirmed'),
      record.identityConfirmedAt ? formatDateTime(new Date(record.identityConfirmedAt), locale, timeZone) : t('consent.record.identityOpen'),
    ],
  ];
  // The agreed text is shown in its own language and direction, whatever the reader's.
  const textLocale: Locale = isLocale(record.language) ? record.language : locale;
  return `<!doctype html>
<html lang="${locale}" dir="${textDirection(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${show(t('consent.record.title'))}</title>
<style>
body{font-family:system-ui,"Noto Sans Arabic","Noto Sans",sans-serif;line-height:1.5;margin:0 auto;max-width:48rem;padding:1rem;color:#1a1a1a;background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin:1.2rem 0 .4rem}
dl{display:grid;grid-template-columns:minmax(8rem,40%) 1fr;gap:.25rem .75rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.agreed{border:1px solid #999;border-radius:6px;padding:.75rem 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
@media (max-width:30rem){dl{grid-template-columns:1fr}}
</style>
</head>
<body>
<h1>${show(t('consent.record.title'))}</h1>
<dl>${facts.map(([k, v]) => `<dt>${show(k)}</dt><dd>${show(v)}</dd>`).join('')}</dl>
<section lang="${textLocale}" dir="${textDirection(textLocale)}">
<h2>${escapeHtml(record.title)}</h2>
<div class="agreed">${escapeHtml(record.body)}</div>
</section>
</body>
</html>
`;
}
