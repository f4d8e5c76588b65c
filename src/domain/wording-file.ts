/**
 * The wording file a trial installs (`npm run sanad -- import-wording <file>`, docs/WORDING.md):
 * the licensed texts of ONE instrument in ONE locale, checked against the instrument's
 * definition before anything is stored. Every problem is collected, so a person fixes the file
 * in one pass; a file with any problem installs nothing.
 *
 *   { "instrument": "phq9", "locale": "de", "title": "…", "instructions": "…",
 *     "items": { "item1": { "text": "…", "options": { "0": "…", "1": "…", "2": "…", "3": "…" } } } }
 *
 * An item that is listed needs its text and, when it offers choices, a text for every choice;
 * items left out keep the neutral label. Stored as content templates (`templateCode`, wording.ts).
 */
import { INSTRUMENTS, INSTRUMENT_CODES, templateCode, type InstrumentCode, type WordingPart } from './instruments';
import type { Locale } from './locales';
import { wordingParts } from './questionnaire-form';

/** One text to store: a content template of type PAGE with this code in the file's locale. */
export interface WordingText {
  code: string;
  title: string;
  content: string;
}

export interface WordingInstall {
  instrument: InstrumentCode;
  locale: Locale;
  texts: WordingText[];
}

export type WordingCheck = { ok: true; install: WordingInstall } | { ok: false; problems: string[] };

const TOP_LEVEL = new Set(['instrument', 'locale', 'title', 'instructions', 'items']);
const ITEM_KEYS = new Set(['text', 'options']);
const MAX_TEXT = 20000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A text is a non-empty string within the stored length; returns the problem, if any. */
function textProblem(where: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return `${where}: expected a non-empty text`;
  if (value.length > MAX_TEXT) return `${where}: longer than ${MAX_TEXT} characters`;
  return undefined;
}

/** The option codes an item offers (as strings), or none for a number, text, date or yes/no item. */
function optionCodes(parts: readonly WordingPart[], itemId: string): string[] {
  return parts.flatMap((part) => (part.kind === 'option' && part.itemId === itemId ? [String(part.option)] : []));
}

/** Checks a parsed wording file against the instrument definitions and the configured locales. */
export function checkWordingFile(file: unknown, locales: readonly Locale[]): WordingCheck {
  if (!isObject(file))
    return {
      ok: false,
      problems: ['The file must hold one JSON object with "instrument", "locale" and the texts'],
    };
  const problems: string[] = [];
  for (const key of Object.keys(file)) if (!TOP_LEVEL.has(key)) problems.push(`Unknown field "${key}": use ${[...TOP_LEVEL].join(', ')}`);

  const instrument = file.instrument;
  if (typeof instrument !== 'string' || !(INSTRUMENT_CODES as readonly string[]).includes(instrument)) {
    problems.push(`Unknown instrument ${JSON.stringify(instrument)}: use one of ${INSTRUMENT_CODES.join(', ')}`);
  }
  const locale = file.locale;
  if (typeof locale !== 'string' || !(locales as readonly string[]).includes(locale)) {
    problems.push(`Wrong locale ${JSON.stringify(locale)}: this installation offers ${locales.join(', ')}`);
  }
  if (problems.some((p) => p.startsWith('Unknown instrument'))) return { ok: false, problems };

  const code = instrument as InstrumentCode;
  const definition = INSTRUMENTS[code];
  const parts = wordingParts(definition);
  const texts: WordingText[] = [];
  const add = (part: WordingPart, label: string, value: string) =>
    texts.push({
      code: templateCode(code, part),
      title: `${code} ${label}`,
      content: value,
    });

  for (const kind of ['title', 'instructions'] as const) {
    if (file[kind] === undefined) continue;
    const problem = textProblem(`"${kind}"`, file[kind]);
    if (problem) problems.push(problem);
    else add({ kind }, kind, file[kind] as string);
  }

  const items = file.items ?? {};
  if (!isObject(items)) {
    problems.push('"items" must be an object keyed by item id');
  } else {
    const known = new Set(definition.items.map((item) => item.id));
    for (const [itemId, entry] of Object.entries(items)) {
      if (!known.has(itemId)) {
        problems.push(`Unknown item "${itemId}" for ${code}: its items are ${[...known].join(', ')}`);
        continue;
      }
      checkItem(itemId, entry, optionCodes(parts, itemId), problems, (part, label, value) => add(part, label, value));
    }
  }
  if (texts.length === 0 && problems.length === 0) problems.push('The file holds no texts: give a title, instructions or items');
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    install: { instrument: code, locale: locale as Locale, texts },
  };
}

function checkItem(itemId: string, entry: unknown, codes: readonly string[], problems: string[], add: (part: WordingPart, label: string, value: string) => void): void {
  if (!isObject(entry)) {
    problems.push(`Item "${itemId}": expected an object with "text"${codes.length > 0 ? ' and "options"' : ''}`);
    return;
  }
  for (const key of Object.keys(entry)) if (!ITEM_KEYS.has(key)) problems.push(`Item "${itemId}": unknown field "${key}"`);
  const problem = textProblem(`Item "${itemId}" "text"`, entry.text);
  if (problem) problems.push(problem);
  else add({ kind: 'item', itemId }, itemId, entry.text as string);

  const options = entry.options;
  if (codes.length === 0) {
    if (options !== undefined) problems.push(`Item "${itemId}" has no options to word: remove "options"`);
    return;
  }
  if (!isObject(options)) {
    problems.push(`Item "${itemId}": missing "options" (one text for each of ${codes.join(', ')})`);
    return;
  }
  for (const option of codes) {
    if (!Object.hasOwn(options, option)) {
      problems.push(`Item "${itemId}": missing option "${option}"`);
      continue;
    }
    const optionProblem = textProblem(`Item "${itemId}" option "${option}"`, options[option]);
    if (optionProblem) problems.push(optionProblem);
    else add({ kind: 'option', itemId, option }, `${itemId} option ${option}`, options[option] as string);
  }
  for (const option of Object.keys(options)) if (!codes.includes(option)) problems.push(`Item "${itemId}": unknown option "${option}" (its options are ${codes.join(', ')})`);
}

/** Which instrument and part a stored wording code (`instr-…`) is, for every instrument. */
let partsByCode: Map<string, { instrument: InstrumentCode; part: WordingPart }> | undefined;
function partOfCode(code: string): { instrument: InstrumentCode; part: WordingPart } | undefined {
  if (!partsByCode) {
    partsByCode = new Map();
    for (const instrument of INSTRUMENT_CODES) {
      for (const part of wordingParts(INSTRUMENTS[instrument])) partsByCode.set(templateCode(instrument, part), { instrument, part });
    }
  }
  return partsByCode.get(code);
}

/** Whether a content template code is questionnaire wording (a PAGE text the forms read). */
export const isWordingCode = (code: string): boolean => code.startsWith('instr-');

/**
 * Checks ONE wording text saved on its own (the template editor's page form, a restored
 * version) with the same checker as a whole file: the text together with the texts already
 * stored for the same unit (the title, the instructions, or an item with all its options) must
 * make a valid wording file. So an item text cannot be stored without its options, an option
 * without its item's text, an empty text, or a code that is no part of any questionnaire.
 * `stored` holds the instrument's stored texts in this locale by code.
 */
export function checkWordingText(code: string, locale: unknown, content: string, stored: Readonly<Record<string, string>>, locales: readonly Locale[]): WordingCheck {
  const found = partOfCode(code);
  if (!found) return { ok: false, problems: [`"${code}" is not a text of any questionnaire: use the codes the wording form shows (docs/WORDING.md)`] };
  const { instrument, part } = found;
  const textOf = (p: WordingPart) => {
    const partCode = templateCode(instrument, p);
    return partCode === code ? content : stored[partCode];
  };
  const file: Record<string, unknown> = { instrument, locale };
  if (part.kind === 'title' || part.kind === 'instructions') file[part.kind] = content;
  else {
    const itemId = part.itemId;
    const options = Object.fromEntries(
      optionCodes(wordingParts(INSTRUMENTS[instrument]), itemId).flatMap((option) => {
        const text = textOf({ kind: 'option', itemId, option });
        return text === undefined ? [] : [[option, text]];
      }),
    );
    const item: Record<string, unknown> = { text: textOf({ kind: 'item', itemId }) };
    if (optionCodes(wordingParts(INSTRUMENTS[instrument]), itemId).length > 0) item.options = options;
    file.items = { [itemId]: item };
  }
  const checked = checkWordingFile(file, locales);
  if (!checked.ok) return checked;
  return { ok: true, install: { ...checked.install, texts: checked.install.texts.filter((text) => text.code === code) } };
}
