/**
 * The rules of the questionnaire form, apart from any screen: which items are asked for the
 * answers so far, what one answer changes (including the answers it hides, which must be
 * cleared in the same save), where a returning patient resumes, how unsent local answers join
 * the server's record, and how exclusive options combine. The form renderer only draws this.
 */
import {
  clearHidden,
  shownItems,
  templateCode,
  validateAnswers,
  wordingFromRecord,
  wordingKey,
  type AnswerValue,
  type Answers,
  type InstrumentSpec,
  type IntegerScale,
  type ItemDefinition,
  type MultiScale,
  type WordingLookup,
  type WordingPart,
} from './instruments';
import { isAnswered } from './instruments/answers';
import type { Locale } from './locales';

type Definition = Pick<InstrumentSpec<unknown>, 'items'>;

/** Item id → value to save; `null` clears a stored answer. */
export type AnswerChanges = Record<string, AnswerValue | null>;

/** The items asked for these answers, in definition order. */
export function visibleItems(definition: Definition, answers: Answers): ItemDefinition[] {
  const shown = shownItems(definition, answers);
  return definition.items.filter((item) => shown.has(item.id));
}

/** Empty strings and empty selections are "not answered", stored as an empty column. */
function normalised(value: AnswerValue | null | undefined): AnswerValue | null {
  return isAnswered(value) ? (value as AnswerValue) : null;
}

/**
 * One answer given: the answers afterwards and the changes to save. An answer that hides
 * other items (baseline: "fled = no" hides the flight questions) clears theirs, and the
 * clearing is part of the same save, since the server validates the merged record.
 */
export function applyAnswer(definition: Definition, answers: Answers, itemId: string, value: AnswerValue | null | undefined): { answers: Answers; changes: AnswerChanges } {
  const stored = normalised(value);
  const next = clearHidden(definition, { ...answers, [itemId]: stored });
  const changes: AnswerChanges = { [itemId]: stored };
  for (const item of definition.items) {
    if (isAnswered(answers[item.id]) && !Object.hasOwn(next, item.id)) changes[item.id] = null;
  }
  return { answers: next, changes };
}

/**
 * The answers to show: the server's record with the unsent local answers over it (they are
 * newer: the patient gave them after the record was last saved), without hidden items.
 */
export function mergeAnswers(definition: Definition, server: Answers, pending: Answers): Answers {
  const merged: Record<string, AnswerValue | null | undefined> = {};
  for (const item of definition.items) {
    if (Object.hasOwn(pending, item.id)) merged[item.id] = pending[item.id];
    else if (Object.hasOwn(server, item.id)) merged[item.id] = server[item.id];
  }
  return clearHidden(definition, merged);
}

/**
 * Where a returning patient goes on: the first asked item without an answer. Optional items a
 * patient passed over (a later item is answered) do not stop them again; a required one does.
 * Undefined when nothing is left to ask: the form opens at the review.
 */
export function resumeItemId(definition: Definition, answers: Answers): string | undefined {
  const items = visibleItems(definition, answers);
  let lastAnswered = -1;
  items.forEach((item, index) => {
    if (isAnswered(answers[item.id])) lastAnswered = index;
  });
  const gap = items.find((item, index) => index < lastAnswered && item.required && !isAnswered(answers[item.id]));
  if (gap) return gap.id;
  return items.slice(lastAnswered + 1).find((item) => !isAnswered(answers[item.id]))?.id;
}

/** The asked item after `itemId`, or undefined after the last one (then: review). */
export function nextItemId(definition: Definition, answers: Answers, itemId: string): string | undefined {
  const order = definition.items.map((item) => item.id);
  const shown = shownItems(definition, answers);
  return order.slice(order.indexOf(itemId) + 1).find((id) => shown.has(id));
}

/** The asked item before `itemId`, or undefined before the first one. */
export function previousItemId(definition: Definition, answers: Answers, itemId: string): string | undefined {
  const order = definition.items.map((item) => item.id);
  const shown = shownItems(definition, answers);
  const index = order.indexOf(itemId);
  return order
    .slice(0, index < 0 ? order.length : index)
    .reverse()
    .find((id) => shown.has(id));
}

/** Required items that are asked and still unanswered, in order (the review points to them). */
export function missingRequired(definition: InstrumentSpec<unknown>, answers: Answers): string[] {
  return validateAnswers(definition, answers)
    .filter((problem) => problem.code === 'required')
    .map((problem) => problem.field);
}

/**
 * A multi-select after (un)checking one option: an exclusive option ("does not apply") stands
 * alone, so choosing it clears the others and choosing another clears it.
 */
export function toggleOption(scale: MultiScale, selected: readonly string[], code: string, checked: boolean): string[] {
  if (!checked) return selected.filter((c) => c !== code);
  const option = scale.options.find((o) => o.code === code);
  if (!option) return [...selected];
  if (option.exclusive) return [code];
  const exclusive = new Set(scale.options.filter((o) => o.exclusive).map((o) => o.code));
  const kept = selected.filter((c) => c !== code && !exclusive.has(c));
  // Keep the definition's order, so the stored array does not depend on the order of clicks.
  return scale.options.map((o) => o.code).filter((c) => c === code || kept.includes(c));
}

/** Rating scales up to 11 points are a row of choices; counts and ages are a number field. */
export function integerControl(scale: IntegerScale): 'choice' | 'number' {
  return scale.max - scale.min <= 10 ? 'choice' : 'number';
}

/** A number typed into a number field, as an answer: whole numbers only, else "not answered". */
export function parseWholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^-?\d+$/.test(trimmed)) return null;
  return Number(trimmed);
}

/**
 * The lookup for `wordingFor` from a trial's content templates of one instrument and locale
 * (`GET /api/wording/<code>`: template code → text): every part the definition has is
 * looked up under its template code, so the form asks by wording key as everywhere else.
 */
export function wordingFromTemplates(definition: InstrumentSpec<unknown>, locale: Locale, texts: Readonly<Record<string, string>>): WordingLookup {
  const byKey: Record<string, string> = {};
  for (const part of wordingParts(definition)) {
    const code = templateCode(definition.code, part);
    if (Object.hasOwn(texts, code) && typeof texts[code] === 'string') byKey[wordingKey(definition.code, part, locale)] = texts[code];
  }
  return wordingFromRecord(byKey);
}

/** Every text of an instrument a trial may install: title, instructions, items, options. */
export function wordingParts(definition: Pick<InstrumentSpec<unknown>, 'items'>): WordingPart[] {
  const parts: WordingPart[] = [{ kind: 'title' }, { kind: 'instructions' }];
  for (const item of definition.items) {
    parts.push({ kind: 'item', itemId: item.id });
    const scale = item.scale;
    if (scale.kind === 'options' || scale.kind === 'multi') scale.options.forEach((o) => parts.push({ kind: 'option', itemId: item.id, option: o.code }));
    if (scale.kind === 'integer' && integerControl(scale) === 'choice') {
      for (let value = scale.min; value <= scale.max; value++) parts.push({ kind: 'option', itemId: item.id, option: value });
    }
  }
  return parts;
}

/**
 * "Question x of y" that never jumps backwards as branches open (issue 25: "1 of 17", then
 * "2 of 20"). x counts the items asked up to this one; y adds every later item that may still
 * be asked: items whose condition hangs on an earlier item already passed are left out when
 * that answer hides them, all others count, opened or not. Moving on therefore raises x by
 * one and never raises y, and answering the current item changes neither.
 */
export function progressOf(definition: Definition, answers: Answers, itemId: string): { current: number; total: number } {
  const order = definition.items.map((item) => item.id);
  const at = order.indexOf(itemId);
  const shown = shownItems(definition, answers);
  const current = definition.items.slice(0, at + 1).filter((item) => item.id === itemId || shown.has(item.id)).length;
  const passed = new Set(order.slice(0, at));
  const later = definition.items.slice(at + 1).filter((item) => shown.has(item.id) || !item.showIf || !passed.has(item.showIf.item)).length;
  return { current, total: current + later };
}

/** Why an item on the page keeps the patient from going on, if it does. */
export type PageProblem = { itemId: string; kind: 'required' | 'invalid' };

/**
 * The first item on the page that blocks "Next": a required item without an answer, or any
 * item whose typed text is not an answer (an age typed in words would otherwise be dropped
 * without a word). `invalid` holds the items whose field reports typed text it cannot use.
 */
export function pageProblem(items: readonly ItemDefinition[], answers: Answers, invalid: ReadonlySet<string>): PageProblem | undefined {
  for (const item of items) {
    if (invalid.has(item.id)) return { itemId: item.id, kind: 'invalid' };
    if (item.required && !isAnswered(answers[item.id])) return { itemId: item.id, kind: 'required' };
  }
  return undefined;
}
