/**
 * Licensed item wording, installed per trial and locale without a code change. The repository
 * ships only neutral labels; a trial that holds a licence (or uses a free instrument) supplies
 * the wording as content, looked up under these keys, and the neutral label is the fallback.
 *
 * Key format (one text per key):
 *   instrument.<code>.title.<locale>                          the instrument's title
 *   instrument.<code>.instructions.<locale>                   its instructions
 *   instrument.<code>.<itemId>.<locale>                       an item
 *   instrument.<code>.<itemId>.option.<optionCode>.<locale>   an option, or an anchor value
 * e.g. `instrument.phq9.item9.de`, `instrument.bdi2.item16.option.1a.ar`.
 *
 * Content templates cannot hold dots in their code (`^[A-Za-z][A-Za-z0-9_-]{0,63}$`, migration
 * 0005), so there the same text is stored under `templateCode(...)`, with the locale in
 * `language_code`: code `instr-phq9-item9`, language `de`; code `instr-bdi2-item16-o-1a`.
 */
import type { Locale } from '../locales';
import type { InstrumentSpec } from './types';

/** Where installed wording comes from: a JSON file's record, content templates, a cache. */
export type WordingLookup = (key: string) => string | undefined;

export type WordingPart = { kind: 'title' } | { kind: 'instructions' } | { kind: 'item'; itemId: string } | { kind: 'option'; itemId: string; option: string | number };

function path(code: string, part: WordingPart): string[] {
  switch (part.kind) {
    case 'title':
      return ['instrument', code, 'title'];
    case 'instructions':
      return ['instrument', code, 'instructions'];
    case 'item':
      return ['instrument', code, part.itemId];
    case 'option':
      return ['instrument', code, part.itemId, 'option', String(part.option)];
  }
}

export function wordingKey(code: string, part: WordingPart, locale: Locale): string {
  return [...path(code, part), locale].join('.');
}

/**
 * The content-template code of a text (its locale goes to `language_code`). Shortened words keep
 * the longest code (trauma record, worst event, longest event code) within the 64 characters.
 */
export function templateCode(code: string, part: WordingPart): string {
  const [, ...rest] = path(code, part);
  return ['instr', ...rest.map((segment) => (segment === 'option' ? 'o' : segment))].join('-');
}

/** A lookup over a plain record, e.g. a trial's `wording.json`; only own keys count. */
export function wordingFromRecord(record: Readonly<Record<string, string>>): WordingLookup {
  return (key) => (Object.hasOwn(record, key) && typeof record[key] === 'string' && record[key] !== '' ? record[key] : undefined);
}

/** The neutral label the repository ships for a part, if it has one (instructions have none). */
function neutralLabel(definition: InstrumentSpec<unknown>, part: WordingPart, locale: Locale): string | undefined {
  switch (part.kind) {
    case 'title':
      return definition.labels[locale];
    case 'instructions':
      return undefined;
    case 'item':
      return definition.items.find((i) => i.id === part.itemId)?.labels[locale];
    case 'option': {
      const scale = definition.items.find((i) => i.id === part.itemId)?.scale;
      if (!scale) return undefined;
      if (scale.kind === 'integer') return scale.anchors.find((a) => a.value === part.option)?.labels[locale];
      if (scale.kind === 'options' || scale.kind === 'multi') return scale.options.find((o) => o.code === part.option)?.labels[locale];
      return undefined;
    }
  }
}

/** The text to show: the trial's installed wording if any, else the shipped neutral label. */
export function wordingFor(definition: InstrumentSpec<unknown>, part: WordingPart, locale: Locale, lookup?: WordingLookup): string | undefined {
  return lookup?.(wordingKey(definition.code, part, locale)) ?? neutralLabel(definition, part, locale);
}
