import { describe, expect, it } from 'vitest';
import { LOCALES } from '../locales';
import { answerOf, shownItems } from './answers';
import { AUDIT, definitionProblems, INSTRUMENT_CODES, instrumentFor, INSTRUMENTS, INTERVIEW_MODULES, InstrumentDefinitionError, PCL5, PMBS, score, templateCode, validateAnswers, withOverrides, wordingFor, wordingFromRecord, wordingKey } from './index';
import type { AnswerValue, InstrumentDefinition, Labels, ResponseScale } from './types';
// Seeded, so the property test is repeatable.
import { mulberry32 as random } from '../../../test/helpers/random';

const ALL: InstrumentDefinition[] = [...Object.values(INSTRUMENTS), ...Object.values(INTERVIEW_MODULES)];

/** Spec §7 entity collections that are questionnaires (the others are exercises, letters, …). */
const SPEC_QUESTIONNAIRE_PATHS = '/api/demographics, /api/inep, /api/bdi2, /api/cdrisk10, /api/comment, /api/eurohis, /api/scaling, /api/gad2, /api/gad7, /api/mspss, /api/pcl5, /api/pg13, /api/phq15, /api/lec5, /api/pmbs, /api/sbqr, /api/wai, /api/trgi, /api/taq, /api/itq, /api/tgisrplus, /api/sewip, /api/traumalisteneu, /api/disclosure, /api/evaluation, /api/lsas, /api/pathev, /api/phq9';

describe('the registry (spec §3, §7)', () => {
  it('has one definition per questionnaire collection, keyed by its REST name', () => {
    expect([...INSTRUMENT_CODES].sort()).toEqual(SPEC_QUESTIONNAIRE_PATHS.split(', ').map((p) => p.slice('/api/'.length)).sort());
    for (const code of INSTRUMENT_CODES) expect(INSTRUMENTS[code].code).toBe(code);
    expect(instrumentFor('phq9')).toBe(INSTRUMENTS.phq9);
    expect(instrumentFor('letters')).toBeUndefined();
    expect(instrumentFor('__proto__')).toBeUndefined();
    expect(Object.keys(INTERVIEW_MODULES)).toEqual(['audit', 'dast10']);
  });

  it.each(ALL.map((d) => [d.code, d] as const))('%s is consistent and frozen', (_, definition) => {
    expect(definitionProblems(definition)).toEqual([]);
    expect(Object.isFrozen(definition)).toBe(true);
    expect(Object.isFrozen(definition.items[0]!.scale)).toBe(true);
  });
});

function labelsOf(definition: InstrumentDefinition): [string, Labels][] {
  const found: [string, Labels][] = [['title', definition.labels]];
  for (const item of definition.items) {
    found.push([item.id, item.labels]);
    const scale = item.scale;
    if (scale.kind === 'options' || scale.kind === 'multi') for (const o of scale.options) found.push([`${item.id}.option.${o.code}`, o.labels]);
    if (scale.kind === 'integer') for (const a of scale.anchors) found.push([`${item.id}.anchor.${a.value}`, a.labels]);
  }
  for (const s of definition.subscales) found.push([`subscale ${s.id}`, s.labels]);
  if (definition.total) found.push(['total', definition.total.labels]);
  for (const b of definition.bands ?? []) found.push([`band ${b.code}`, b.labels]);
  for (const f of definition.flags) found.push([`flag ${f.code}`, f.labels]);
  for (const d of definition.diagnoses) found.push([`diagnosis ${d.code}`, d.labels]);
  return found;
}

describe('labels and licences', () => {
  it.each(ALL.map((d) => [d.code, d] as const))('%s has ar, de and en labels for every item, option, anchor and score', (_, definition) => {
    for (const [where, text] of labelsOf(definition)) {
      for (const locale of LOCALES) {
        expect(typeof text[locale], `${where} ${locale}`).toBe('string');
        expect(text[locale].trim(), `${where} ${locale}`).not.toBe('');
      }
      expect(text.ar, `${where} is not written in Arabic`).toMatch(/[\u0600-\u06FF]/);
    }
  });

  it.each(ALL.map((d) => [d.code, d] as const))('%s labels the ends of every scored rating scale', (_, definition) => {
    const scored = new Set([...(definition.total?.items ?? []), ...definition.subscales.filter((s) => s.aggregate !== 'derived').flatMap((s) => s.items)]);
    for (const item of definition.items.filter((i) => scored.has(i.id) && i.scale.kind === 'integer')) {
      const scale = item.scale as Extract<ResponseScale, { kind: 'integer' }>;
      const values = scale.anchors.map((a) => a.value);
      expect(values, item.id).toContain(scale.min);
      expect(values, item.id).toContain(scale.max);
    }
  });

  it('keeps labels short and neutral (no questionnaire wording)', () => {
    for (const definition of ALL) for (const [where, text] of labelsOf(definition)) for (const locale of LOCALES) expect(text[locale].length, `${definition.code} ${where}`).toBeLessThanOrEqual(110);
  });

  it('lists assumptions for every instrument that is not fully verified', () => {
    for (const definition of ALL) {
      if (definition.verification !== 'verified') expect(definition.assumptions.length, definition.code).toBeGreaterThan(0);
      for (const assumption of definition.assumptions) expect(assumption.length).toBeGreaterThan(20);
    }
  });

  it('records the licence classes of INSTRUMENTS.md §6', () => {
    const text = (codes: string[]) => codes.map((c) => [...ALL].find((d) => d.code === c)!.licence.itemText);
    expect(text(['bdi2', 'cdrisk10', 'lsas', 'trgi'])).toEqual(['never', 'never', 'never', 'never']);
    expect(text(['audit', 'dast10'])).toEqual(['conditional', 'conditional']);
    expect(text(['phq9', 'gad7', 'gad2', 'phq15', 'pcl5', 'lec5', 'pmbs'])).toEqual(Array(7).fill('may_ship'));
    expect(text(['itq', 'mspss', 'sbqr', 'wai', 'inep', 'tgisrplus', 'pg13', 'eurohis', 'sewip', 'pathev', 'taq'])).toEqual(Array(11).fill('ask'));
  });
});

describe('licensed wording per locale', () => {
  it('uses the key format instrument.<code>.<item>[.option.<code>].<locale>', () => {
    expect(wordingKey('phq9', { kind: 'item', itemId: 'item9' }, 'de')).toBe('instrument.phq9.item9.de');
    expect(wordingKey('bdi2', { kind: 'option', itemId: 'item16', option: '1a' }, 'ar')).toBe('instrument.bdi2.item16.option.1a.ar');
    expect(wordingKey('pcl5', { kind: 'title' }, 'en')).toBe('instrument.pcl5.title.en');
    expect(templateCode('bdi2', { kind: 'option', itemId: 'item16', option: '1a' })).toBe('instr-bdi2-item16-o-1a');
  });

  it('prefers installed wording and falls back to the neutral label', () => {
    const lookup = wordingFromRecord({ 'instrument.phq9.item3.de': 'Lizenzierter Text', 'instrument.pcl5.item1.option.0.en': 'Licensed anchor' });
    expect(wordingFor(INSTRUMENTS.phq9, { kind: 'item', itemId: 'item3' }, 'de', lookup)).toBe('Lizenzierter Text');
    expect(wordingFor(INSTRUMENTS.phq9, { kind: 'item', itemId: 'item3' }, 'ar', lookup)).toBe('البند 3: النوم');
    expect(wordingFor(INSTRUMENTS.phq9, { kind: 'item', itemId: 'item3' }, 'en')).toBe('Item 3: sleep');
    expect(wordingFor(INSTRUMENTS.pcl5, { kind: 'option', itemId: 'item1', option: 0 }, 'en', lookup)).toBe('Licensed anchor');
    expect(wordingFor(INSTRUMENTS.pcl5, { kind: 'option', itemId: 'item1', option: 4 }, 'de', lookup)).toBe('äußerst');
    expect(wordingFor(INSTRUMENTS.bdi2, { kind: 'option', itemId: 'item16', option: '3b' }, 'en')).toBe('Statement 3b');
    expect(wordingFor(INSTRUMENTS.bdi2, { kind: 'instructions' }, 'en')).toBeUndefined();
    expect(wordingFor(INSTRUMENTS.bdi2, { kind: 'item', itemId: 'nope' }, 'en')).toBeUndefined();
    expect(wordingFromRecord({})('toString')).toBeUndefined();
  });

  it('gives every text a unique key that content templates can store', () => {
    const templateCodePattern = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/; // db/migrations/0005-content-templates.sql
    const keys = new Set<string>();
    for (const definition of ALL) {
      const parts = [
        { kind: 'title' as const },
        { kind: 'instructions' as const },
        ...definition.items.flatMap((item) => [
          { kind: 'item' as const, itemId: item.id },
          ...(item.scale.kind === 'options' || item.scale.kind === 'multi' ? item.scale.options.map((o) => ({ kind: 'option' as const, itemId: item.id, option: o.code })) : []),
          ...(item.scale.kind === 'integer' ? item.scale.anchors.map((a) => ({ kind: 'option' as const, itemId: item.id, option: a.value })) : []),
        ]),
      ];
      for (const part of parts) {
        expect(templateCode(definition.code, part)).toMatch(templateCodePattern);
        const key = wordingKey(definition.code, part, 'ar');
        expect(keys.has(key), key).toBe(false);
        keys.add(key);
      }
    }
  });
});

describe('configuration overrides', () => {
  it('rebuilds a definition with the override and leaves the default alone', () => {
    const pcl5 = withOverrides(PCL5, { cutOff: 23 });
    expect(pcl5.config).toEqual({ ...PCL5.config, cutOff: 23 });
    expect(PCL5.config.cutOff).toBe(33);
    expect(pcl5).not.toBe(PCL5);
    expect(withOverrides(AUDIT, { lowerThresholdGenders: ['FEMALE', 'DIVERSE'] }).config.lowerThresholdGenders).toEqual(['FEMALE', 'DIVERSE']);
  });

  it('throws on unknown keys, wrong kinds of value and inconsistent results', () => {
    expect(() => withOverrides(PCL5, { cutof: 23 } as never)).toThrow(InstrumentDefinitionError);
    expect(() => withOverrides(PCL5, { cutOff: '23' } as never)).toThrow(/must be a number/);
    expect(() => withOverrides(PMBS, { reversed: 3 } as never)).toThrow(/must be an array/);
    expect(() => withOverrides(PMBS, { threatOfHarm: [1, 2, 16] })).toThrow(/unknown item item16/);
    expect(() => withOverrides(PCL5, null as never)).toThrow(InstrumentDefinitionError);
  });
});

function randomValue(scale: ResponseScale, next: () => number): AnswerValue {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  switch (scale.kind) {
    case 'integer':
      return scale.min + Math.floor(next() * (scale.max - scale.min + 1));
    case 'options':
      return pick(scale.options).code;
    case 'multi': {
      const plain = scale.options.filter((o) => !o.exclusive);
      const chosen = plain.filter(() => next() < 0.3).map((o) => o.code);
      return chosen.length > 0 ? chosen : [pick(scale.options).code];
    }
    case 'yesno':
      return next() < 0.5;
    case 'text':
      return 'x'.repeat(1 + Math.floor(next() * Math.min(20, scale.maxLength)));
    case 'date':
      return '2026-01-15';
  }
}

describe('every definition against random valid answers', () => {
  it.each(ALL.map((d) => [d.code, d] as const))('%s validates and scores within its declared codes', (_, definition) => {
    const next = random(definition.code.length * 7919);
    for (let round = 0; round < 40; round++) {
      const answers: Record<string, AnswerValue> = {};
      for (const item of definition.items) {
        // answer items in order, only while shown, and skip some optional ones
        if (!shownItems(definition, answers).has(item.id)) continue;
        if (!item.required && next() < 0.3) continue;
        answers[item.id] = randomValue(item.scale, next);
      }
      expect(validateAnswers(definition, answers)).toEqual([]);
      const result = score(definition, answers, { gender: next() < 0.5 ? 'FEMALE' : 'MALE', age: 40 });
      expect(result.complete).toBe(true);
      expect(Object.keys(result.subscales)).toEqual(definition.subscales.map((s) => s.id));
      for (const flag of result.flags) expect(definition.flags.map((f) => f.code)).toContain(flag);
      if (result.band !== undefined) expect(definition.bands?.map((b) => b.code)).toContain(result.band);
      if (definition.bands && definition.total) expect(result.band).toBeDefined();
      if (definition.diagnoses.length > 0) expect(Object.keys(result.diagnoses ?? {})).toEqual(definition.diagnoses.map((d) => d.code));
      else expect(result.diagnoses).toBeUndefined();
      for (const value of Object.values(result.subscales)) if (value !== undefined) expect(Number.isFinite(value)).toBe(true);
      expect(answerOf(answers, 'total')).toBeUndefined();
    }
  });

  it.each(ALL.map((d) => [d.code, d] as const))('%s never throws on junk', (_, definition) => {
    const next = random(42);
    const junk = [null, 'x', -1, 1.5, 99, true, [], ['x'], {}, '2026-13-01', Number.NaN];
    for (let round = 0; round < 30; round++) {
      const answers = Object.fromEntries(definition.items.map((item) => [item.id, junk[Math.floor(next() * junk.length)]]));
      expect(() => validateAnswers(definition, answers)).not.toThrow();
      expect(() => score(definition, answers)).not.toThrow();
    }
  });
});
