/**
 * The catalogs are data, checked here: every key of the English catalog exists in Arabic and
 * German with the same placeholders, Arabic plurals carry all six CLDR forms, and every key
 * the code uses exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../domain/routes';
import ar from './ar.json';
import de from './de.json';
import en from './en.json';

type Catalog = Record<string, unknown>;
const PLURAL = /_(zero|one|two|few|many|other)$/;
const ARABIC_FORMS = ['zero', 'one', 'two', 'few', 'many', 'other'];

function flatten(catalog: Catalog, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(name, value);
    else for (const [k, v] of flatten(value as Catalog, name)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
const baseKeys = (flat: Map<string, string>) => new Set([...flat.keys()].map((k) => k.replace(PLURAL, '')));

const catalogs = { ar: flatten(ar), de: flatten(de), en: flatten(en) };

describe('translation catalogs', () => {
  for (const locale of ['ar', 'de'] as const) {
    it(`${locale} has every key of en and no stray ones`, () => {
      const wanted = [...baseKeys(catalogs.en)].sort();
      expect([...baseKeys(catalogs[locale])].sort()).toEqual(wanted);
    });

    it(`${locale} keeps the placeholders of en`, () => {
      const problems: string[] = [];
      for (const [key, english] of catalogs.en) {
        const base = key.replace(PLURAL, '');
        const candidates = [...catalogs[locale].entries()].filter(([k]) => k.replace(PLURAL, '') === base);
        for (const [k, text] of candidates) {
          const expected = placeholders(english).filter((p) => p !== 'count');
          const actual = placeholders(text).filter((p) => p !== 'count');
          if (JSON.stringify(expected) !== JSON.stringify(actual)) problems.push(`${k}: ${actual} ≠ ${expected}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('Arabic plurals carry all six forms', () => {
    const plurals = new Set([...catalogs.en.keys()].filter((k) => PLURAL.test(k)).map((k) => k.replace(PLURAL, '')));
    expect(plurals.size).toBeGreaterThan(0);
    for (const base of plurals) {
      for (const form of ARABIC_FORMS) expect(catalogs.ar.has(`${base}_${form}`), `${base}_${form}`).toBe(true);
    }
  });

  it('translations are not left in English', () => {
    const untranslated = [...catalogs.en].filter(([key, text]) => text.length > 12 && catalogs.ar.get(key) === text).map(([k]) => k);
    expect(untranslated).toEqual([]);
  });

  it('has a navigation label for every route', () => {
    for (const route of ROUTES) expect(catalogs.en.has(`nav.${route.id}`), route.id).toBe(true);
  });

  it('every key the code names exists', () => {
    const missing: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts')) {
          const source = fs.readFileSync(file, 'utf8');
          for (const match of source.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) {
            const key = match[1]!;
            if (!catalogs.en.has(key) && !catalogs.en.has(`${key}_other`)) missing.push(`${path.relative(process.cwd(), file)}: ${key}`);
          }
        }
      }
    };
    walk(path.resolve('src/web'));
    expect(missing).toEqual([]);
  });
});
