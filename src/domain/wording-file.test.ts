import { describe, expect, it } from 'vitest';
import { checkWordingFile, checkWordingText } from './wording-file';

const LOCALES = ['ar', 'de', 'en'] as const;
/** Invented texts: never a questionnaire's real wording. */
const GOOD = {
  instrument: 'gad7',
  locale: 'de',
  title: 'Beispielbogen (erfunden)',
  instructions: 'Erfundene Anleitung zum Testen.',
  items: {
    item1: {
      text: 'Erfundene Aussage eins',
      options: {
        '0': 'nie (Beispiel)',
        '1': 'selten (Beispiel)',
        '2': 'oft (Beispiel)',
        '3': 'immer (Beispiel)',
      },
    },
  },
};

function problemsOf(file: unknown): string[] {
  const result = checkWordingFile(file, LOCALES);
  return result.ok ? [] : result.problems;
}

describe('checkWordingFile', () => {
  it('turns a good file into one content-template text per part', () => {
    const result = checkWordingFile(GOOD, LOCALES);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.install.instrument).toBe('gad7');
    expect(result.install.locale).toBe('de');
    expect(result.install.texts.map((t) => t.code)).toEqual([
      'instr-gad7-title',
      'instr-gad7-instructions',
      'instr-gad7-item1',
      'instr-gad7-item1-o-0',
      'instr-gad7-item1-o-1',
      'instr-gad7-item1-o-2',
      'instr-gad7-item1-o-3',
    ]);
    expect(result.install.texts.find((t) => t.code === 'instr-gad7-item1-o-2')?.content).toBe('oft (Beispiel)');
  });

  it('names an unknown instrument', () => {
    expect(problemsOf({ ...GOOD, instrument: 'nosuch' })).toEqual([expect.stringContaining('Unknown instrument "nosuch"')]);
  });

  it('names a locale the installation does not offer', () => {
    expect(problemsOf({ ...GOOD, locale: 'fr' })).toEqual([expect.stringContaining('Wrong locale "fr"')]);
    expect(checkWordingFile(GOOD, ['ar', 'en']).ok).toBe(false);
  });

  it('names an unknown item', () => {
    expect(problemsOf({ ...GOOD, items: { ...GOOD.items, item99: { text: 'x' } } })).toEqual([expect.stringContaining('Unknown item "item99" for gad7')]);
  });

  it('names each missing option, and a missing options object', () => {
    const { '3': _dropped, ...three } = GOOD.items.item1.options;
    expect(problemsOf({ ...GOOD, items: { item1: { text: 'x', options: three } } })).toEqual(['Item "item1": missing option "3"']);
    expect(problemsOf({ ...GOOD, items: { item1: { text: 'x' } } })).toEqual([expect.stringContaining('Item "item1": missing "options"')]);
  });

  it('refuses options for an item that has none, and unknown options', () => {
    expect(
      problemsOf({
        instrument: 'comment',
        locale: 'en',
        items: { comment: { text: 'x', options: { '0': 'y' } } },
      }),
    ).toEqual(['Item "comment" has no options to word: remove "options"']);
    expect(
      problemsOf({
        ...GOOD,
        items: {
          item1: {
            text: 'x',
            options: { ...GOOD.items.item1.options, '4': 'extra' },
          },
        },
      }),
    ).toEqual([expect.stringContaining('unknown option "4"')]);
  });

  it('refuses empty texts, unknown fields, a non-object and an empty file', () => {
    expect(problemsOf({ ...GOOD, title: '  ' })).toEqual(['"title": expected a non-empty text']);
    expect(problemsOf({ ...GOOD, extra: 1 })).toEqual([expect.stringContaining('Unknown field "extra"')]);
    expect(problemsOf([GOOD])).toHaveLength(1);
    expect(problemsOf({ instrument: 'gad7', locale: 'de' })).toEqual([expect.stringContaining('holds no texts')]);
  });

  it('collects every problem at once', () => {
    expect(
      problemsOf({
        instrument: 'gad7',
        locale: 'xx',
        items: { nope: {}, item1: { text: '' } },
      }),
    ).toHaveLength(4);
  });
});

describe('checkWordingText (one text saved on its own)', () => {
  const OPTIONS = { 'instr-gad7-item1-o-0': 'nie', 'instr-gad7-item1-o-1': 'selten', 'instr-gad7-item1-o-2': 'oft', 'instr-gad7-item1-o-3': 'immer' };
  const problems = (code: string, content: string, stored: Record<string, string>, locale = 'de') => {
    const result = checkWordingText(code, locale, content, stored, LOCALES);
    return result.ok ? [] : result.problems;
  };

  it('accepts an item text whose options are stored, and installs that one text only', () => {
    const result = checkWordingText('instr-gad7-item1', 'de', 'Neue erfundene Aussage', OPTIONS, LOCALES);
    expect(result).toEqual({ ok: true, install: { instrument: 'gad7', locale: 'de', texts: [{ code: 'instr-gad7-item1', title: 'gad7 item1', content: 'Neue erfundene Aussage' }] } });
  });

  it('accepts an option when its item text and the other options are stored, and a title alone', () => {
    expect(problems('instr-gad7-item1-o-2', 'häufig', { ...OPTIONS, 'instr-gad7-item1': 'Aussage' })).toEqual([]);
    expect(problems('instr-gad7-title', 'Erfundener Titel', {})).toEqual([]);
  });

  it('refuses an item text without its options, naming each missing one', () => {
    expect(problems('instr-gad7-item1', 'Aussage', {})).toEqual(['Item "item1": missing option "0"', 'Item "item1": missing option "1"', 'Item "item1": missing option "2"', 'Item "item1": missing option "3"']);
  });

  it('refuses an option without its item text, an empty text, an unknown code and a locale not offered', () => {
    expect(problems('instr-gad7-item1-o-0', 'nie', OPTIONS)).toEqual(['Item "item1" "text": expected a non-empty text']);
    expect(problems('instr-gad7-title', '   ', {})).toEqual(['"title": expected a non-empty text']);
    expect(problems('instr-gad7-item99', 'x', {})[0]).toMatch(/"instr-gad7-item99" is not a text of any questionnaire/);
    expect(problems('instr-gad7-title', 'Titel', {}, 'fr')[0]).toMatch(/Wrong locale "fr"/);
  });
});
