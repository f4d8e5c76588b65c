/**
 * The readable own-data document: one self-contained HTML page in the patient's language
 * (right to left in Arabic), every time in their time zone, with no ids, codes or table names —
 * item and worksheet labels come from the registries, every other text from the web app's
 * catalogs (namespace `ownData`), so the page speaks as the screens do. Pure: data in, text out.
 */
import ar from '../../web/i18n/ar.json';
import de from '../../web/i18n/de.json';
import en from '../../web/i18n/en.json';
import { isolateLatin } from '../../domain/bidi';
import { formatDateTime } from '../../domain/format';
import { INSTRUMENTS, type AnswerValue, type InstrumentCode, type ItemDefinition } from '../../domain/instruments';
import { isLocale, textDirection, type Locale } from '../../domain/locales';
import { WORKSHEETS, type WorksheetCode } from '../../domain/worksheets';
import type { OwnData } from './collect';

const CATALOGS: Record<Locale, unknown> = { ar, de, en };

/** A catalog text by dotted key with {{name}} filled; a missing key is a programming error. */
export function catalogText(locale: Locale, key: string, values: Record<string, string> = {}): string {
  let node: unknown = CATALOGS[locale];
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  if (typeof node !== 'string') throw new Error(`Missing translation ${locale}:${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
}

const escapeHtml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');

/** Text for the page: Latin runs isolated inside Arabic, then escaped; line breaks kept by CSS. */
const show = (text: string): string => escapeHtml(isolateLatin(text));

function answerText(item: ItemDefinition, value: unknown, t: (key: string) => string, locale: Locale): string {
  if (value === null || value === undefined || value === '') return t('ownData.doc.notAnswered');
  const scale = item.scale;
  switch (scale.kind) {
    case 'yesno':
      return t(value === true ? 'measurements.yes' : 'measurements.no');
    case 'options':
      return scale.options.find((o) => o.code === value)?.labels[locale] ?? String(value);
    case 'multi':
      return (value as readonly string[]).map((code) => scale.options.find((o) => o.code === code)?.labels[locale] ?? code).join(', ');
    case 'integer': {
      const anchor = scale.anchors.find((a) => a.value === value);
      return anchor ? `${String(value)} (${anchor.labels[locale]})` : String(value as AnswerValue);
    }
    case 'text':
    case 'date':
      return String(value as AnswerValue);
  }
}

/** Renders the whole document. `locale` and `timeZone` are the patient's (their profile). */
export function renderOwnDataDocument(data: OwnData, localeWanted: string, timeZone: string): string {
  const locale: Locale = isLocale(localeWanted) ? localeWanted : 'ar';
  const t = (key: string, values?: Record<string, string>) => catalogText(locale, key, values);
  const when = (iso: string) => formatDateTime(new Date(iso), locale, timeZone);
  const dl = (pairs: [string, string][]) => `<dl>${pairs.map(([k, v]) => `<dt>${show(k)}</dt><dd>${show(v)}</dd>`).join('')}</dl>`;
  const none = `<p class="muted">${show(t('ownData.doc.none'))}</p>`;
  const parts: string[] = [];

  const p = data.profile;
  const genderText = p.gender ? t(`gender.${p.gender}`) : t('ownData.doc.notGiven');
  parts.push(
    `<section><h2>${show(t('ownData.doc.profile'))}</h2>${dl([
      [t('ownData.doc.username'), p.username],
      [t('ownData.doc.email'), p.email],
      [t('ownData.doc.alias'), p.alias ?? t('ownData.doc.notGiven')],
      [t('ownData.doc.gender'), genderText],
      [t('ownData.doc.phone'), p.phone ?? t('ownData.doc.notGiven')],
      [t('ownData.doc.language'), ({ ar: 'العربية', de: 'Deutsch', en: 'English' } as Record<string, string>)[p.locale] ?? p.locale],
      [t('ownData.doc.timeZone'), p.time_zone],
      [t('ownData.doc.memberSince'), when(p.created_at)],
      ...(p.last_login ? ([[t('ownData.doc.lastLogin'), when(p.last_login)]] as [string, string][]) : []),
    ])}</section>`,
  );

  const c = data.consents;
  const flag = (v: boolean) => t(v ? 'ownData.doc.agreed' : 'ownData.doc.notAgreed');
  parts.push(
    `<section><h2>${show(t('ownData.doc.consents'))}</h2>${dl([
      [t('ownData.doc.consent.agreed_to_terms'), flag(c.agreed_to_terms)],
      [t('ownData.doc.consent.agreed_to_privacy_policy'), flag(c.agreed_to_privacy_policy)],
      [t('ownData.doc.consent.agreed_to_research_use'), flag(c.agreed_to_research_use)],
      [t('ownData.doc.consent.agreed_to_be_contacted'), flag(c.agreed_to_be_contacted)],
      [t('ownData.doc.consent.confirmed_adult'), flag(c.confirmed_adult)],
      [t('ownData.doc.consent.anti_suicide_contract_at'), c.anti_suicide_contract_at ? when(c.anti_suicide_contract_at) : t('ownData.doc.notAgreed')],
    ])}</section>`,
  );

  const consentParts = data.consent_records.map(
    (r) =>
      `<article><h3>${show(t('consent.record.versionOf', { version: String(r.version) }))}</h3><p class="muted">${show(
        `${t('consent.record.agreedAt')}: ${when(r.agreed_at)} · ${({ ar: 'العربية', de: 'Deutsch', en: 'English' } as Record<string, string>)[r.language_code] ?? r.language_code}`,
      )}</p><h4>${show(r.title)}</h4><p class="body">${show(r.body)}</p></article>`,
  );
  parts.push(`<section><h2>${show(t('consent.record.titlePlural'))}</h2>${consentParts.join('') || none}</section>`);

  const questionnaireParts = (Object.entries(data.questionnaires) as [InstrumentCode, OwnData['questionnaires'][InstrumentCode]][]).flatMap(([code, records]) => {
    const definition = INSTRUMENTS[code];
    return (records ?? []).map((r) => {
      const rows: [string, string][] = [[t('ownData.doc.time'), t(`ownData.times.${r.time_of_measurement}`)]];
      for (const item of definition.items) {
        const value = r.answers[item.id];
        if (value === null || value === undefined) continue;
        rows.push([item.labels[locale], answerText(item, value, t, locale)]);
      }
      if (r.scores.total !== null && r.scores.total !== undefined) rows.push([t('ownData.doc.score'), String(r.scores.total as number)]);
      return `<article><h3>${show(definition.labels[locale])}</h3><p class="muted">${show(t('ownData.doc.filledIn', { time: when(r.updated_at) }))}</p>${dl(rows)}</article>`;
    });
  });
  parts.push(
    `<section><h2>${show(t('ownData.doc.questionnaires'))}</h2><p class="muted">${show(t('ownData.doc.scoresNote'))}</p>${questionnaireParts.join('') || none}</section>`,
  );

  const worksheetParts = (Object.entries(data.worksheets) as [WorksheetCode, OwnData['worksheets'][WorksheetCode]][]).flatMap(([code, entries]) =>
    (entries ?? []).map((w) => {
      const rows: [string, string][] = [];
      for (const field of WORKSHEETS[code].fields) {
        const value = w.fields[field.name];
        if (value === null || value === undefined || value === '') continue;
        const text = field.kind === 'choices' ? (value as string[]).map((b) => t(`therapy.bias.${b}`)).join(', ') : String(value as string | number);
        rows.push([t(`therapy.field.${field.name}`), text]);
      }
      const state = w.published_at ? t('ownData.doc.sentOn', { time: when(w.published_at) }) : t('ownData.doc.draft');
      const feedback = w.feedback
        .map((f) => `<h4>${show(t('therapy.feedbackTitle'))}</h4><p class="muted">${show(t('ownData.doc.sentOn', { time: when(f.published_at) }))}</p><p class="body">${show(f.body)}</p>`)
        .join('');
      return `<article><h3>${show(t(`therapy.sheet.${code}.title`))}</h3><p class="muted">${show(state)}</p>${dl(rows)}${feedback}</article>`;
    }),
  );
  parts.push(`<section><h2>${show(t('ownData.doc.worksheets'))}</h2>${worksheetParts.join('') || none}</section>`);

  const letterParts = data.letters.map(
    (l) =>
      `<article><h3>${show(l.subject ?? t('ownData.doc.noSubject'))}</h3><p class="muted">${show(t('ownData.doc.sentOn', { time: when(l.published_at) }))}</p><p class="body">${show(l.body)}</p></article>`,
  );
  parts.push(`<section><h2>${show(t('ownData.doc.letters'))}</h2>${letterParts.join('') || none}</section>`);

  const messageParts = data.messages.map((m) => {
    const from = t(m.from_system ? 'ownData.doc.fromSystem' : m.from_me ? 'ownData.doc.fromMe' : 'ownData.doc.fromTeam');
    const state = m.sent_at ? t('ownData.doc.sentOn', { time: when(m.sent_at) }) : t('ownData.doc.draft');
    return `<article><h3>${show(m.subject ?? t('ownData.doc.noSubject'))}</h3><p class="muted">${show(`${from} · ${state}`)}</p><p class="body">${show(m.body)}</p></article>`;
  });
  parts.push(`<section><h2>${show(t('ownData.doc.messages'))}</h2>${messageParts.join('') || none}</section>`);

  const appointmentParts = data.appointments.map((a) => {
    const state = a.canceled && a.canceled_at ? t('ownData.doc.canceled', { time: when(a.canceled_at) }) : t(a.has_taken_place ? 'ownData.doc.held' : 'ownData.doc.planned');
    const time = a.starts_at ? when(a.starts_at) : '';
    return `<article><h3>${show(`${t('ownData.doc.appointment')}: ${time}`)}</h3><p class="muted">${show(`${state} · ${t('ownData.doc.bookedOn', { time: when(a.booked_at) })}`)}</p></article>`;
  });
  parts.push(`<section><h2>${show(t('ownData.doc.appointments'))}</h2>${appointmentParts.join('') || none}</section>`);

  const dir = textDirection(locale);
  return `<!doctype html>
<html lang="${locale}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${show(t('ownData.doc.title'))}</title>
<style>
body{font-family:system-ui,"Noto Sans Arabic","Noto Sans",sans-serif;line-height:1.5;margin:0 auto;max-width:48rem;padding:1rem;color:#1a1a1a;background:#fff}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;border-bottom:2px solid #2b6cb0;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.05rem;margin:1rem 0 .2rem}h4{font-size:1rem;margin:.6rem 0 .1rem}
dl{display:grid;grid-template-columns:minmax(8rem,40%) 1fr;gap:.25rem .75rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
article{border:1px solid #ddd;border-radius:6px;padding:.5rem .75rem;margin:.5rem 0;break-inside:avoid}
.muted{color:#555;margin:.2rem 0}.body{white-space:pre-wrap;overflow-wrap:anywhere}
@media (max-width:30rem){dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}
@media print{body{max-width:none}article{border-color:#999}}
</style>
</head>
<body>
<h1>${show(t('ownData.doc.title'))}</h1>
<p>${show(t('ownData.doc.intro'))}</p>
<p class="muted">${show(t('ownData.doc.generatedAt', { time: when(data.generated_at) }))} ${show(t('ownData.doc.timeZoneNote', { zone: timeZone }))}</p>
${parts.join('\n')}
</body>
</html>
`;
}
