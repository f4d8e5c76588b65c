/**
 * Validation of submitted answers and the rules scoring shares with it: which items are
 * shown, which answers are valid, and the points of an answer. Nothing here throws on bad
 * input: a request body is untrusted and every problem becomes a field error with a stable code.
 */
import { COMPUTED_NAMES } from './define';
import type { AnswerValue, Answers, FieldError, InstrumentSpec, ItemDefinition, ResponseScale, ValidationCode } from './types';

/** Empty database columns, empty strings and empty selections all mean "not answered". */
export function isAnswered(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Why a present value does not fit the scale, or undefined when it does. */
export function valueProblem(scale: ResponseScale, value: unknown): ValidationCode | undefined {
  switch (scale.kind) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'wrong_type';
      if (!Number.isInteger(value)) return 'not_integer';
      return value < scale.min || value > scale.max ? 'out_of_range' : undefined;
    case 'options':
      if (typeof value !== 'string') return 'wrong_type';
      return scale.options.some((o) => o.code === value) ? undefined : 'unknown_option';
    case 'multi': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'wrong_type';
      const codes = value as string[];
      if (codes.some((code) => !scale.options.some((o) => o.code === code))) return 'unknown_option';
      if (new Set(codes).size !== codes.length) return 'duplicate_option';
      const exclusive = scale.options.filter((o) => o.exclusive).map((o) => o.code);
      return codes.length > 1 && codes.some((code) => exclusive.includes(code)) ? 'exclusive_option' : undefined;
    }
    case 'yesno':
      return typeof value === 'boolean' ? undefined : 'wrong_type';
    case 'text':
      if (typeof value !== 'string') return 'wrong_type';
      return [...value].length > scale.maxLength ? 'too_long' : undefined;
    case 'date':
      if (typeof value !== 'string') return 'wrong_type';
      return isCalendarDate(value) ? undefined : 'invalid_date';
  }
}

/** Points of a valid answer; undefined for unanswered, invalid or unscored answers. */
export function answerPoints(scale: ResponseScale, value: unknown): number | undefined {
  if (!isAnswered(value) || valueProblem(scale, value)) return undefined;
  switch (scale.kind) {
    case 'integer':
      return value as number;
    case 'options':
      return scale.options.find((o) => o.code === value)?.points;
    case 'yesno':
      return value ? (scale.points?.yes ?? 1) : (scale.points?.no ?? 0);
    case 'multi':
    case 'text':
    case 'date':
      return undefined;
  }
}

/** Lowest and highest points an item can give; reversed items are mirrored inside this range. */
export function pointsRange(scale: ResponseScale): [number, number] | undefined {
  switch (scale.kind) {
    case 'integer':
      return [scale.min, scale.max];
    case 'options': {
      const points = scale.options.map((o) => o.points).filter((p): p is number => typeof p === 'number');
      return points.length > 0 ? [Math.min(...points), Math.max(...points)] : undefined;
    }
    case 'yesno': {
      const yes = scale.points?.yes ?? 1;
      const no = scale.points?.no ?? 0;
      return [Math.min(yes, no), Math.max(yes, no)];
    }
    case 'multi':
    case 'text':
    case 'date':
      return undefined;
  }
}

/** Reads an own property only, so `constructor` or `__proto__` in a body is just a key. */
export function answerOf(answers: unknown, id: string): unknown {
  return typeof answers === 'object' && answers !== null && Object.hasOwn(answers, id) ? (answers as Record<string, unknown>)[id] : undefined;
}

function conditionHolds(item: ItemDefinition, condition: NonNullable<ItemDefinition['showIf']>, value: unknown): boolean {
  if (!isAnswered(value) || valueProblem(item.scale, value)) return false;
  if (condition.anyOf) {
    const selected = Array.isArray(value) ? value : [value];
    if (!selected.some((v) => condition.anyOf!.includes(v as string | number | boolean))) return false;
  }
  if (condition.atLeast !== undefined) {
    const points = answerPoints(item.scale, value);
    if (points === undefined || points < condition.atLeast) return false;
  }
  return true;
}

/**
 * Ids of the items shown for these answers. Conditions refer to earlier items, so one pass in
 * item order decides every item; an item behind a hidden item is hidden too.
 */
export function shownItems(definition: Pick<InstrumentSpec<unknown>, 'items'>, answers: unknown): Set<string> {
  const byId = new Map(definition.items.map((item) => [item.id, item]));
  const shown = new Set<string>();
  for (const item of definition.items) {
    const condition = item.showIf;
    if (!condition) {
      shown.add(item.id);
      continue;
    }
    const source = byId.get(condition.item);
    if (source && shown.has(source.id) && conditionHolds(source, condition, answerOf(answers, source.id))) shown.add(item.id);
  }
  return shown;
}

/** Names a client might send as scores; they are refused with their own code. */
function computedNames(definition: InstrumentSpec<unknown>): Set<string> {
  return new Set([...COMPUTED_NAMES, ...definition.subscales.map((s) => s.id)]);
}

const MESSAGES: Record<ValidationCode, string> = {
  not_an_object: 'Answers must be an object of item ids to values',
  unknown_item: 'Not an item of this instrument',
  computed_field: 'Scores are computed by the server and cannot be sent',
  wrong_type: 'The value has the wrong type for this item',
  not_integer: 'The value must be a whole number',
  out_of_range: 'The value is outside the scale',
  unknown_option: 'Not an option of this item',
  duplicate_option: 'An option is selected twice',
  exclusive_option: 'This option cannot be combined with others',
  too_long: 'The text is too long',
  invalid_date: 'The value must be a date written YYYY-MM-DD',
  not_applicable: 'This item is not shown for the other answers and must stay empty',
  required: 'This item must be answered',
};

function fieldError(field: string, code: ValidationCode): FieldError {
  return { field, code, message: MESSAGES[code] };
}

/** An empty string is "not answered" for text-like items, an empty array for multi-selects. */
function isEmptyOfRightType(scale: ResponseScale, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return scale.kind === 'text' || scale.kind === 'options' || scale.kind === 'date';
  if (Array.isArray(value)) return scale.kind === 'multi';
  return false;
}

export interface ValidationOptions {
  /** A draft: missing required items are not errors (scoring still reports them). */
  readonly partial?: boolean;
}

/**
 * Field errors of submitted answers, in item order after unknown keys; empty when valid.
 * `answers` holds item values only: record fields (case, time of measurement) are the
 * caller's, and any computed score in it is refused with `computed_field`.
 */
export function validateAnswers(definition: InstrumentSpec<unknown>, answers: unknown, options: ValidationOptions = {}): FieldError[] {
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) return [fieldError('', 'not_an_object')];
  const items = new Set(definition.items.map((item) => item.id));
  const computed = computedNames(definition);
  const errors: FieldError[] = [];
  for (const key of Object.keys(answers)) {
    if (!items.has(key)) errors.push(fieldError(key, computed.has(key) ? 'computed_field' : 'unknown_item'));
  }
  const shown = shownItems(definition, answers);
  // Whether an item behind an invalid answer is shown cannot be told: that answer is the error.
  const undecided = new Set<string>();
  for (const item of definition.items) {
    const value = answerOf(answers, item.id);
    const visibilityUnknown = item.showIf !== undefined && undecided.has(item.showIf.item);
    if (!isAnswered(value)) {
      if (!isEmptyOfRightType(item.scale, value)) {
        errors.push(fieldError(item.id, 'wrong_type'));
        undecided.add(item.id);
      } else if (item.required && shown.has(item.id) && !visibilityUnknown && !options.partial) {
        errors.push(fieldError(item.id, 'required'));
      }
      continue;
    }
    const problem = valueProblem(item.scale, value);
    if (problem) {
      errors.push(fieldError(item.id, problem));
      undecided.add(item.id);
    } else if (visibilityUnknown) {
      undecided.add(item.id);
    } else if (!shown.has(item.id)) {
      errors.push(fieldError(item.id, 'not_applicable'));
    }
  }
  return errors;
}

/** The answers without those of hidden items (a form clears them when a gate changes). */
export function clearHidden(definition: Pick<InstrumentSpec<unknown>, 'items'>, answers: Answers): Record<string, AnswerValue | null | undefined> {
  const shown = shownItems(definition, answers);
  return Object.fromEntries(definition.items.filter((item) => shown.has(item.id) && Object.hasOwn(answers, item.id)).map((item) => [item.id, answers[item.id]]));
}
