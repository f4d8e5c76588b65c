/** Helpers for the instrument tests: item vectors by item number. */
import type { AnswerValue } from './types';

/** `{ item1: v1, item2: v2, … }` from a list of values (undefined leaves an item out). */
export function vector(values: readonly (AnswerValue | undefined)[], prefix = 'item'): Record<string, AnswerValue> {
  const answers: Record<string, AnswerValue> = {};
  values.forEach((value, index) => {
    if (value !== undefined) answers[`${prefix}${index + 1}`] = value;
  });
  return answers;
}

/** The same value for items 1…count. */
export function filled(count: number, value: AnswerValue, prefix = 'item'): Record<string, AnswerValue> {
  return vector(Array.from({ length: count }, () => value), prefix);
}

/** Values for items 1…count, all `rest` except the given item numbers. */
export function withItems(count: number, rest: AnswerValue, set: Readonly<Record<number, AnswerValue>>, prefix = 'item'): Record<string, AnswerValue> {
  return vector(Array.from({ length: count }, (_, index) => set[index + 1] ?? rest), prefix);
}

/** `total` points spread over the given items in order, each from `min` up to at most `max`. */
export function spread(ids: readonly string[], total: number, min: number, max: number): Record<string, number> {
  const answers: Record<string, number> = {};
  let left = total - min * ids.length;
  for (const id of ids) {
    const add = Math.max(0, Math.min(max - min, left));
    answers[id] = min + add;
    left -= add;
  }
  return answers;
}
