/**
 * Questionnaire wording in /admin/templates: a coordinator picks an instrument and a language and
 * types the licensed texts (title, instructions, each item and its options) beside the neutral
 * labels the app shows meanwhile. Saving sends one wording file to PUT /api/wording, which checks
 * it exactly as `import-wording` does (src/domain/wording-file.ts) and stores all of it or none.
 */
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { INSTRUMENT_CODES, INSTRUMENTS, templateCode, wordingFor, type InstrumentCode, type WordingPart } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { wordingParts } from '../../../domain/questionnaire-form';
import { asApiError } from '../../api/query';
import { Alert, SelectField, Spinner, TextArea, TextField } from '../../ui/ui';
import { wordingQuery } from '../measurements/api';
import { installWording, refetchAfterWording, type WordingFile } from './api';

/** The wording file of the typed texts: empty fields are left out (the neutral label stays). */
export function wordingFileOf(code: InstrumentCode, locale: Locale, texts: Readonly<Record<string, string>>): WordingFile {
  const value = (part: WordingPart) => texts[templateCode(code, part)]?.trim() ?? '';
  const file: WordingFile = { instrument: code, locale, items: {} };
  if (value({ kind: 'title' })) file.title = value({ kind: 'title' });
  if (value({ kind: 'instructions' })) file.instructions = value({ kind: 'instructions' });
  for (const part of wordingParts(INSTRUMENTS[code])) {
    if (part.kind !== 'item' && part.kind !== 'option') continue;
    const text = value(part);
    const entry = file.items[part.itemId];
    if (part.kind === 'item') {
      if (text) file.items[part.itemId] = { ...entry, text };
    } else if (text) {
      // An option typed without its item still goes in, so the server names the missing text;
      // an empty option is left out, so the server names it as missing.
      file.items[part.itemId] = { text: entry?.text ?? '', ...entry, options: { ...entry?.options, [String(part.option)]: text } };
    }
  }
  return file;
}

export function WordingEditor() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const [code, setCode] = useState<InstrumentCode>('phq9');
  const [locale, setLocale] = useState<Locale>('ar');
  const installed = useQuery(wordingQuery(code, locale));
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  // The installed texts fill the fields when they arrive (another instrument or language, or
  // the stored version after saving); the "installed" note stays until the next change.
  useEffect(() => setTexts(installed.data ?? {}), [installed.data]);
  const definition = INSTRUMENTS[code];
  const parts = useMemo(() => wordingParts(definition), [definition]);
  const save = useMutation({
    mutationFn: () => installWording(wordingFileOf(code, locale, texts)),
    onSuccess: () => setSaved(true),
    onSettled: () => refetchAfterWording(client, code, locale),
  });
  const shown = i18n.language as Locale;
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  const label = (part: WordingPart): string => {
    const neutral = wordingFor(definition, part, shown) ?? '';
    if (part.kind === 'title') return t('wording.title');
    if (part.kind === 'instructions') return t('wording.instructions');
    if (part.kind === 'item') return t('wording.item', { id: part.itemId, neutral });
    return t('wording.option', { id: part.itemId, option: String(part.option), neutral });
  };
  const instruments = INSTRUMENT_CODES.map((x) => ({ value: x, label: wordingFor(INSTRUMENTS[x], { kind: 'title' }, shown) ?? x }));
  return (
    <form
      className="therapy-template-editor"
      aria-label={t('wording.heading')}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2>{t('wording.heading')}</h2>
      <p>{t('wording.hint')}</p>
      <div className="therapy-template-editor__grid">
        <SelectField label={t('wording.instrument')} value={code} onChange={(e) => {
            setCode(e.target.value as InstrumentCode);
            setSaved(false);
          }} options={instruments} />
        <SelectField label={t('wording.language')} value={locale} onChange={(e) => {
            setLocale(e.target.value as Locale);
            setSaved(false);
          }} options={['ar', 'de', 'en'].map((l) => ({ value: l, label: l.toUpperCase() }))} />
      </div>
      {installed.isPending ? <Spinner /> : null}
      {parts.map((part) => {
        const key = templateCode(code, part);
        const props = {
          label: label(part),
          value: texts[key] ?? '',
          dir,
          lang: locale,
          onChange: (e: { target: { value: string } }) => {
            setTexts((x) => ({ ...x, [key]: e.target.value }));
            setSaved(false);
          },
        };
        return part.kind === 'instructions' ? <TextArea key={key} rows={4} {...props} /> : <TextField key={key} {...props} />;
      })}
      {save.error ? (
        <Alert kind="error">
          <p>{t('wording.refused')}</p>
          <pre className="wording-problems">{asApiError(save.error).message}</pre>
        </Alert>
      ) : null}
      {saved ? <p role="status">{t('wording.saved')}</p> : null}
      <button type="submit" className="button" disabled={save.isPending}>
        {t('common.save')}
      </button>
    </form>
  );
}
