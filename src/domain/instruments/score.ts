/**
 * Generic scoring of a definition: subscales, total, band, flags and the definition's own
 * algorithms. Only valid answers of shown items count; an invalid answer counts as missing
 * (validate first to tell the person). Without official proration rules (INSTRUMENTS.md §6),
 * a missing required item leaves the total empty and the record incomplete.
 */
import { answerOf, answerPoints, isAnswered, pointsRange, shownItems, valueProblem } from './answers';
import type { AnswerValue, BandDefinition, Condition, InstrumentDefinition, ItemDefinition, ScoreDefinition, ScoreResult, ScoringContext, TotalDefinition } from './types';

interface Scoring {
  readonly items: ReadonlyMap<string, ItemDefinition>;
  readonly shown: ReadonlySet<string>;
  points(id: string): number | undefined;
  value(id: string): AnswerValue | undefined;
}

function scoringOf(definition: InstrumentDefinition, answers: unknown): Scoring {
  const items = new Map(definition.items.map((item) => [item.id, item]));
  const shown = shownItems(definition, answers);
  const value = (id: string): AnswerValue | undefined => {
    const item = items.get(id);
    const raw = answerOf(answers, id);
    if (!item || !shown.has(id) || !isAnswered(raw) || valueProblem(item.scale, raw)) return undefined;
    return raw as AnswerValue;
  };
  const points = (id: string): number | undefined => {
    const item = items.get(id);
    return item ? answerPoints(item.scale, value(id)) : undefined;
  };
  return { items, shown, points, value };
}

/**
 * Sum or mean of a score's items. Hidden items and unanswered optional items are left out; an
 * unanswered required item leaves the score empty, as does a score with no answered item.
 */
function aggregate(score: ScoreDefinition | TotalDefinition, scoring: Scoring): number | undefined {
  if (score.aggregate === 'derived') return undefined;
  const values: number[] = [];
  for (const id of score.items) {
    const item = scoring.items.get(id)!;
    if (!scoring.shown.has(id)) continue;
    let points = scoring.points(id);
    if (points === undefined) {
      if (item.required) return undefined;
      continue;
    }
    if (score.reversed?.includes(id)) {
      const [low, high] = pointsRange(item.scale)!;
      points = low + high - points;
    }
    values.push(points);
  }
  if (values.length === 0) return undefined;
  const sum = values.reduce((a, b) => a + b, 0);
  return score.aggregate === 'mean' ? sum / values.length : sum;
}

/** The last band whose lower bound the total reaches. */
export function bandOf(bands: readonly BandDefinition[], total: number): string | undefined {
  let found: string | undefined;
  for (const band of bands) if (band.minExclusive ? total > band.min : total >= band.min) found = band.code;
  return found;
}

function holds(condition: Condition, scoring: Scoring, scores: Readonly<Record<string, number | undefined>>): boolean {
  if ('any' in condition) return condition.any.some((c) => holds(c, scoring, scores));
  if ('all' in condition) return condition.all.every((c) => holds(c, scoring, scores));
  if ('score' in condition) {
    const value = scores[condition.score];
    return value !== undefined && value >= condition.atLeast;
  }
  if ('anyOf' in condition) {
    const value = scoring.value(condition.item);
    if (value === undefined) return false;
    const selected = Array.isArray(value) ? value : [value];
    return selected.some((v) => condition.anyOf.includes(v as string | number | boolean));
  }
  const points = scoring.points(condition.item);
  if (points === undefined) return false;
  return 'atLeast' in condition ? points >= condition.atLeast : points <= condition.atMost;
}

/**
 * Scores answers against a definition. Flags are raised from whatever is answered, even when
 * the record is incomplete: a safety item must not wait for the last question.
 */
export function score<C extends object>(definition: InstrumentDefinition<C>, answers: unknown, context: ScoringContext = {}): ScoreResult {
  const scoring = scoringOf(definition as InstrumentDefinition, answers);
  const missingRequired = definition.items.filter((item) => item.required && scoring.shown.has(item.id) && scoring.value(item.id) === undefined).map((item) => item.id);
  const complete = missingRequired.length === 0;

  const subscales: Record<string, number | undefined> = {};
  for (const subscale of definition.subscales) subscales[subscale.id] = aggregate(subscale, scoring);
  const total = complete && definition.total ? aggregate(definition.total, scoring) : undefined;

  const derived = definition.derive?.({ config: definition.config, context, complete, points: scoring.points, value: scoring.value, subscales: { ...subscales }, total });
  for (const subscale of definition.subscales) {
    if (subscale.aggregate === 'derived') subscales[subscale.id] = derived?.subscales?.[subscale.id];
  }

  const scores = { ...subscales, total };
  const raised = new Set(derived?.flags ?? []);
  const flags = definition.flags.filter((flag) => raised.has(flag.code) || (flag.when !== undefined && holds(flag.when, scoring, scores))).map((flag) => flag.code);

  const result: ScoreResult = { subscales, flags, complete, missingRequired };
  if (total !== undefined) result.total = total;
  if (total !== undefined && definition.bands) {
    const band = bandOf(definition.bands, total);
    if (band !== undefined) result.band = band;
  }
  if (definition.diagnoses.length > 0) {
    result.diagnoses = Object.fromEntries(definition.diagnoses.map((d) => [d.code, derived?.diagnoses?.[d.code]]));
  }
  return result;
}
