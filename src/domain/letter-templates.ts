/**
 * Letters from templates (spec §3 "Letter templates", "Content template"): which template
 * variant fits a letter, and how its placeholders are filled. A template is chosen by treatment
 * code, language and the reader's and writer's gender; a variant that leaves a field empty fits
 * any value, and the most specific fitting variant wins. Placeholders are written `{{name}}`;
 * only the names below exist, and a letter is never made with a placeholder left unfilled.
 */

export const LETTER_PLACEHOLDERS = ['patient_alias', 'therapist_alias', 'date'] as const;
export type LetterPlaceholder = (typeof LETTER_PLACEHOLDERS)[number];
export type Gender = 'FEMALE' | 'MALE' | 'DIVERSE';

export interface TemplateVariant {
  id: string;
  language_code: string;
  treatment_code: string | null;
  reader_gender: Gender | null;
  writer_gender: Gender | null;
}

export interface VariantWanted {
  language: string;
  treatmentCode: string | null;
  readerGender: Gender | null;
  writerGender: Gender | null;
}

/** The best fitting variant, or null when none fits (the language must always match). */
export function chooseVariant<T extends TemplateVariant>(variants: readonly T[], wanted: VariantWanted): T | null {
  let best: T | null = null;
  let bestScore = -1;
  for (const v of variants) {
    if (v.language_code !== wanted.language) continue;
    const parts: [string | null, string | null][] = [
      [v.treatment_code, wanted.treatmentCode],
      [v.reader_gender, wanted.readerGender],
      [v.writer_gender, wanted.writerGender],
    ];
    if (parts.some(([has, want]) => has !== null && has !== want)) continue;
    // Treatment code counts most, then the reader, then the writer.
    const score = (v.treatment_code !== null ? 4 : 0) + (v.reader_gender !== null ? 2 : 0) + (v.writer_gender !== null ? 1 : 0);
    if (score > bestScore) {
      best = v;
      bestScore = score;
    }
  }
  return best;
}

/** How a placeholder is written in a template. */
export function asPlaceholder(name: string): string {
  return '{{' + name + '}}';
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The placeholder names a text uses that do not exist (the template editor refuses them). */
export function unknownPlaceholders(text: string): string[] {
  const known = new Set<string>(LETTER_PLACEHOLDERS);
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((name) => !known.has(name)))];
}

export class PlaceholderError extends Error {
  constructor(
    readonly unknown: string[],
    readonly missing: string[],
  ) {
    super(
      [
        unknown.length ? `unknown placeholder${unknown.length > 1 ? 's' : ''} ${unknown.map(asPlaceholder).join(', ')} (known: ${LETTER_PLACEHOLDERS.join(', ')})` : '',
        missing.length ? `no value for ${missing.map(asPlaceholder).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; '),
    );
  }
}

/** Fills every placeholder; throws a PlaceholderError naming unknown or unfilled ones. */
export function renderTemplate(text: string, values: Partial<Record<LetterPlaceholder, string | null>>): string {
  const unknown = unknownPlaceholders(text);
  const missing = [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))].filter(
    (name) => !unknown.includes(name) && !values[name as LetterPlaceholder]?.trim(),
  );
  if (unknown.length || missing.length) throw new PlaceholderError(unknown, missing);
  return text.replace(PLACEHOLDER, (_, name: string) => values[name as LetterPlaceholder]!);
}

/** The letter's date as the reader's language writes it (Arabic with Arabic-Indic digits). */
export function letterDate(date: Date, language: string, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat(language === 'ar' ? 'ar-EG' : language, { dateStyle: 'long', timeZone }).format(date);
}

/** A template's text as stored (content and optional subject, in its language). */
export interface TemplateText {
  content: string;
  subject: string | null;
  language_code: string;
}

/** The people a letter or message speaks of, as the database gives them for one case and writer. */
export interface TemplatePeople {
  patient_alias: string;
  therapist_alias: string;
}

/**
 * Fills a letter or message template for one case and writer: the aliases from the database and
 * the day in the template's language. Throws a PlaceholderError naming what cannot be filled.
 */
export function fillTemplate(template: TemplateText, people: TemplatePeople, now: Date): { subject: string | null; body: string } {
  const values = { ...people, date: letterDate(now, template.language_code) };
  return {
    body: renderTemplate(template.content, values),
    subject: template.subject ? renderTemplate(template.subject, values) : null,
  };
}
