import { describe, expect, it } from 'vitest';
import { DEMOGRAPHICS, LEC5, PHQ9, wordingFor, type Answers, type MultiScale } from './instruments';
import { filled } from './instruments/testing';
import { applyAnswer, integerControl, mergeAnswers, missingRequired, nextItemId, pageProblem, parseWholeNumber, previousItemId, progressOf, resumeItemId, toggleOption, visibleItems, wordingFromTemplates, wordingParts } from './questionnaire-form';
import { INSTRUMENTS } from './instruments';
import { DEFAULT_SCHEDULE } from './measurements';

const BASE = { internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'SY', country_of_residence: 'DE' };

describe('answers and what they hide', () => {
  it('asks the flight questions only after "fled = yes"', () => {
    const ids = (answers: Answers) => visibleItems(DEMOGRAPHICS, answers).map((i) => i.id);
    expect(ids({ fled: false })).not.toContain('flight_reason');
    expect(ids({ fled: true })).toEqual(expect.arrayContaining(['flight_reason', 'flight_months_ago', 'refugee_hostel']));
  });

  it('clears the answers an answer hides, in the same save', () => {
    const before = { ...BASE, fled: true, flight_reason: 'war', flight_months_ago: 14 };
    const { answers, changes } = applyAnswer(DEMOGRAPHICS, before, 'fled', false);
    expect(answers).not.toHaveProperty('flight_reason');
    expect(changes).toEqual({ fled: false, flight_reason: null, flight_months_ago: null });
  });

  it('saves an emptied answer as null', () => {
    expect(applyAnswer(DEMOGRAPHICS, BASE, 'country_of_origin', '  ').changes).toEqual({ country_of_origin: null });
    expect(applyAnswer(LEC5, { item1: ['happened'] }, 'item1', []).changes).toEqual({ item1: null });
  });
});

describe('merging the server record with unsent local answers', () => {
  it('lets a local answer win, including a local clearing', () => {
    const merged = mergeAnswers(PHQ9, { item1: 1, item2: 2, item3: 3 }, { item2: 0, item3: null, item4: 1 });
    expect(merged).toEqual({ item1: 1, item2: 0, item3: null, item4: 1 });
  });

  it('drops answers the merged record hides and ignores record columns', () => {
    const merged = mergeAnswers(DEMOGRAPHICS, { ...BASE, fled: true, flight_reason: 'war', id: 'x', total: null }, { fled: false });
    expect(merged).not.toHaveProperty('flight_reason');
    expect(merged).not.toHaveProperty('id');
    expect(merged.fled).toBe(false);
  });
});

describe('where a returning patient resumes', () => {
  it('starts at the first item of an empty record', () => {
    expect(resumeItemId(PHQ9, {})).toBe('item1');
  });

  it('goes on after the last answer', () => {
    expect(resumeItemId(PHQ9, filled(3, 1))).toBe('item4');
  });

  it('returns to a required item left out earlier', () => {
    expect(resumeItemId(PHQ9, { item1: 1, item3: 1, item4: 2 })).toBe('item2');
  });

  it('does not stop again at an optional item passed over', () => {
    // Baseline: residence_kind … are optional; age and the rest required.
    const answers = { ...BASE, employment: 'unemployed', fled: false };
    expect(resumeItemId(DEMOGRAPHICS, answers)).toBe('loss');
  });

  it('opens the review when nothing is left', () => {
    expect(resumeItemId(PHQ9, { ...filled(9, 1), item10: 'not_difficult' })).toBeUndefined();
  });

  it('steps over hidden items both ways', () => {
    expect(nextItemId(DEMOGRAPHICS, { fled: false }, 'fled')).toBe('loss');
    expect(nextItemId(DEMOGRAPHICS, { fled: true }, 'fled')).toBe('flight_reason');
    expect(previousItemId(DEMOGRAPHICS, { fled: false }, 'loss')).toBe('fled');
    expect(previousItemId(PHQ9, {}, 'item1')).toBeUndefined();
    expect(nextItemId(PHQ9, {}, 'item10')).toBeUndefined();
  });

  it('lists the required items still missing, in order', () => {
    expect(missingRequired(PHQ9, { item1: 1, item3: 1 })).toEqual(['item2', 'item4', 'item5', 'item6', 'item7', 'item8', 'item9']);
  });
});

describe('controls', () => {
  const exposure = LEC5.items[0]!.scale as MultiScale;

  it('keeps an exclusive option alone', () => {
    expect(toggleOption(exposure, ['happened', 'witnessed'], 'not_applicable', true)).toEqual(['not_applicable']);
    expect(toggleOption(exposure, ['not_applicable'], 'witnessed', true)).toEqual(['witnessed']);
  });

  it('keeps the definition’s order and unchecks', () => {
    expect(toggleOption(exposure, ['learned'], 'happened', true)).toEqual(['happened', 'learned']);
    expect(toggleOption(exposure, ['happened', 'learned'], 'happened', false)).toEqual(['learned']);
  });

  it('draws short ratings as choices and counts as a number field', () => {
    expect(integerControl({ kind: 'integer', min: 0, max: 3, anchors: [] })).toBe('choice');
    expect(integerControl({ kind: 'integer', min: 0, max: 10, anchors: [] })).toBe('choice');
    expect(integerControl({ kind: 'integer', min: 0, max: 120, anchors: [] })).toBe('number');
  });

  it('reads whole numbers only', () => {
    expect(parseWholeNumber(' 42 ')).toBe(42);
    expect(parseWholeNumber('4.5')).toBeNull();
    expect(parseWholeNumber('')).toBeNull();
  });
});

describe('installed wording from content templates', () => {
  it('finds a trial’s texts by template code and falls back to the neutral labels', () => {
    const lookup = wordingFromTemplates(PHQ9, 'de', { 'instr-phq9-item9': 'Installierter Wortlaut', 'instr-phq9-item1-o-2': 'Option zwei', 'instr-gad7-item1': 'fremd' });
    expect(wordingFor(PHQ9, { kind: 'item', itemId: 'item9' }, 'de', lookup)).toBe('Installierter Wortlaut');
    expect(wordingFor(PHQ9, { kind: 'option', itemId: 'item1', option: 2 }, 'de', lookup)).toBe('Option zwei');
    expect(wordingFor(PHQ9, { kind: 'item', itemId: 'item1' }, 'de', lookup)).toBe(PHQ9.items[0]!.labels.de);
  });

  it('lists options of choices and each point of a rating', () => {
    const parts = wordingParts(PHQ9);
    expect(parts).toContainEqual({ kind: 'option', itemId: 'item9', option: 3 });
    expect(parts).toContainEqual({ kind: 'option', itemId: 'item10', option: 'very' });
  });
});

describe('"question x of y" (issue 25: the count grew as branches opened)', () => {
  /** Walks the form forward as a patient would, answering with `answer`, and records the counter. */
  function walk(answer: (id: string) => unknown): { current: number; total: number }[] {
    let answers: Answers = {};
    const seen: { current: number; total: number }[] = [];
    for (let id: string | undefined = visibleItems(DEMOGRAPHICS, {})[0]!.id; id; id = nextItemId(DEMOGRAPHICS, answers, id)) {
      seen.push(progressOf(DEMOGRAPHICS, answers, id));
      answers = applyAnswer(DEMOGRAPHICS, answers, id, answer(id) as never).answers;
      // Answering the current item changes neither number.
      expect(progressOf(DEMOGRAPHICS, answers, id)).toEqual(seen[seen.length - 1]);
    }
    return seen;
  }

  it.each([
    ['every branch opened', (id: string) => ({ ...BASE, fled: true, loss: true, found_via: 'other', internet_access: true } as Record<string, unknown>)[id] ?? null],
    ['every branch closed', (id: string) => ({ ...BASE, fled: false, loss: false, internet_access: true } as Record<string, unknown>)[id] ?? null],
  ])('moves on by one and never grows its total: %s', (_, answer) => {
    const seen = walk(answer);
    seen.forEach((step, index) => {
      expect(step.current).toBe(index + 1);
      if (index > 0) expect(step.total).toBeLessThanOrEqual(seen[index - 1]!.total);
      expect(step.current).toBeLessThanOrEqual(step.total);
    });
  });

  it('counts a questionnaire without branches plainly', () => {
    expect(progressOf(PHQ9, {}, 'item1')).toEqual({ current: 1, total: 10 });
    expect(progressOf(PHQ9, { item1: 2 }, 'item5')).toEqual({ current: 5, total: 10 });
  });
});

describe('what keeps "Next" from going on', () => {
  const items = visibleItems(DEMOGRAPHICS, {});
  const age = items.find((i) => i.id === 'age')!;
  const children = items.find((i) => i.id === 'children')!;

  it('a required item without an answer', () => {
    expect(pageProblem([age], {}, new Set())).toEqual({ itemId: 'age', kind: 'required' });
    expect(pageProblem([age], { age: 30 }, new Set())).toBeUndefined();
  });

  it('typed text that is not an answer, on required and optional items alike', () => {
    expect(pageProblem([age], { age: 30 }, new Set(['age']))).toEqual({ itemId: 'age', kind: 'invalid' });
    expect(pageProblem([children], {}, new Set(['children']))).toEqual({ itemId: 'children', kind: 'invalid' });
  });

  it('not an optional item left out', () => {
    expect(pageProblem([children], {}, new Set())).toBeUndefined();
  });

  it('names the first problem on a page of several items', () => {
    expect(pageProblem(items, { ...BASE, age: undefined } as unknown as Answers, new Set())).toEqual({ itemId: 'age', kind: 'required' });
  });
});

describe('the project’s own questions address the patient in the second person', () => {
  // The project's own questionnaires a patient is given: their labels are their wording.
  const scheduled = new Set(Object.values(DEFAULT_SCHEDULE).flat());
  const own = Object.values(INSTRUMENTS).filter((d) => d.licence.itemText === 'project' && scheduled.has(d.code as never));
  it.each(own.flatMap((d) => d.items.map((item) => [d.code, item.id, item.labels] as const)))('%s %s is a question to "you"', (_, __, text) => {
    expect(text.en).toMatch(/\?$/);
    expect(text.de).toMatch(/\?$/);
    expect(text.ar).toMatch(/؟$/);
    expect(text.en).toMatch(/\byou(r)?\b/i);
    expect(text.de).toMatch(/\b(Sie|Ihr\w*|Ihnen)\b/);
    // Third person forms seen in the issue ("he has internet access").
    expect(text.ar).not.toMatch(/(لديه|يقيم|كيف تعرّف الشخص)/);
  });
});
