import { describe, expect, it } from 'vitest';
import { chooseVariant, fillTemplate, letterDate, PlaceholderError, renderTemplate, unknownPlaceholders, type Gender, type TemplateVariant } from './letter-templates';

const GENDERS: Gender[] = ['FEMALE', 'MALE', 'DIVERSE'];
const LANGUAGES = ['ar', 'de', 'en'] as const;
const GREETING: Record<(typeof LANGUAGES)[number], Record<Gender, string>> = {
  ar: { FEMALE: 'عزيزتي {{patient_alias}}،', MALE: 'عزيزي {{patient_alias}}،', DIVERSE: 'مرحبًا {{patient_alias}}،' },
  de: { FEMALE: 'Liebe {{patient_alias}},', MALE: 'Lieber {{patient_alias}},', DIVERSE: 'Hallo {{patient_alias}},' },
  en: { FEMALE: 'Dear {{patient_alias}},', MALE: 'Dear {{patient_alias}},', DIVERSE: 'Hello {{patient_alias}},' },
};
const SIGNATURE: Record<Gender, string> = { FEMALE: '— {{therapist_alias}} (f)', MALE: '— {{therapist_alias}} (m)', DIVERSE: '— {{therapist_alias}} (d)' };

/** Every language × reader × writer variant of one letter, plus a neutral fallback per language. */
const variants: (TemplateVariant & { content: string })[] = [];
for (const language of LANGUAGES) {
  variants.push({ id: `${language}-any`, language_code: language, treatment_code: null, reader_gender: null, writer_gender: null, content: '{{patient_alias}} / {{date}}' });
  for (const reader of GENDERS) {
    for (const writer of GENDERS) {
      variants.push({
        id: `${language}-${reader}-${writer}`,
        language_code: language,
        treatment_code: 'CBT',
        reader_gender: reader,
        writer_gender: writer,
        content: `${GREETING[language][reader]}\n{{date}}\n${SIGNATURE[writer]}`,
      });
    }
  }
}

describe('letter templates', () => {
  for (const language of LANGUAGES) {
    for (const reader of GENDERS) {
      for (const writer of GENDERS) {
        it(`${language}, reader ${reader}, writer ${writer}: the fitting variant, filled`, () => {
          const chosen = chooseVariant(variants, { language, treatmentCode: 'CBT', readerGender: reader, writerGender: writer })!;
          expect(chosen.id).toBe(`${language}-${reader}-${writer}`);
          const text = renderTemplate(chosen.content, { patient_alias: language === 'ar' ? 'ريم' : 'Rim', therapist_alias: 'Dr. Berg', date: letterDate(new Date('2026-11-24T12:00:00Z'), language) });
          expect(text).toContain(GREETING[language][reader].replace('{{patient_alias}}', language === 'ar' ? 'ريم' : 'Rim'));
          expect(text).toContain(SIGNATURE[writer].replace('{{therapist_alias}}', 'Dr. Berg'));
          expect(text).not.toMatch(/\{\{/);
          expect(text).toMatch(language === 'ar' ? /٢٠٢٦/ : /2026/);
        });
      }
    }
  }

  it('falls back to the less specific variant, never to another language', () => {
    expect(chooseVariant(variants, { language: 'de', treatmentCode: 'IPT', readerGender: 'FEMALE', writerGender: 'MALE' })!.id).toBe('de-any');
    expect(chooseVariant(variants, { language: 'de', treatmentCode: 'CBT', readerGender: null, writerGender: null })!.id).toBe('de-any');
    expect(chooseVariant(variants, { language: 'fr', treatmentCode: 'CBT', readerGender: 'MALE', writerGender: 'MALE' })).toBeNull();
  });

  it('a missing placeholder value is an error naming it, never a letter with a gap', () => {
    expect(() => renderTemplate('Liebe {{patient_alias}}, {{date}}', { patient_alias: 'Rim', date: '' })).toThrow(PlaceholderError);
    expect(() => renderTemplate('Liebe {{patient_alias}}, {{date}}', { patient_alias: 'Rim' })).toThrow(/no value for \{\{date\}\}/);
  });

  it('an unknown placeholder is named with the known ones', () => {
    expect(unknownPlaceholders('Hi {{patient_alias}} {{ shoe_size }} {{x}} {{x}}')).toEqual(['shoe_size', 'x']);
    expect(() => renderTemplate('Hi {{shoe_size}}', { patient_alias: 'Rim' })).toThrow(/unknown placeholder \{\{shoe_size\}\} \(known: patient_alias, therapist_alias, date\)/);
  });
});

describe('fillTemplate (letters and message templates)', () => {
  const people = { patient_alias: 'Rim', therapist_alias: 'Frau Berg' };
  const day = new Date('2026-11-24T10:00:00Z');

  it('fills body and subject with the aliases and the day in the template\'s language', () => {
    expect(fillTemplate({ content: 'Liebe {{patient_alias}}, am {{date}}. {{therapist_alias}}', subject: 'Für {{patient_alias}}', language_code: 'de' }, people, day)).toEqual({
      body: 'Liebe Rim, am 24. November 2026. Frau Berg',
      subject: 'Für Rim',
    });
    expect(fillTemplate({ content: '{{date}}', subject: null, language_code: 'ar' }, people, day)).toEqual({ body: '٢٤ نوفمبر ٢٠٢٦', subject: null });
  });

  it('refuses an unfillable placeholder in the subject too', () => {
    expect(() => fillTemplate({ content: 'Hallo', subject: '{{shoe_size}}', language_code: 'de' }, people, day)).toThrow(PlaceholderError);
  });
});
