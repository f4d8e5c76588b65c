/**
 * Building definitions from configuration, trial overrides, and the consistency check every
 * definition passes when it is built (so a wrong override fails at start, not in a score).
 */
import type { Condition, InstrumentDefinition, InstrumentSpec, ItemDefinition, ResponseScale } from './types';

/** Overrides of a configuration: nested objects partially, arrays and values wholesale. */
export type ConfigOverrides<C> = {
  readonly [K in keyof C]?: C[K] extends readonly unknown[] ? C[K] : C[K] extends object ? ConfigOverrides<C[K]> : C[K];
};

export class InstrumentDefinitionError extends Error {
  constructor(
    readonly instrument: string,
    readonly problems: readonly string[],
  ) {
    super(`Instrument ${instrument} is inconsistent: ${problems.join('; ')}`);
    this.name = 'InstrumentDefinitionError';
  }
}

/**
 * Builds a definition from its default configuration. The build function is kept, so an
 * override rebuilds items, scores and cut-offs from the changed configuration.
 */
export function defineInstrument<C extends object>(defaults: C, build: (config: C) => InstrumentSpec<C>): InstrumentDefinition<C> {
  const make = (config: C): InstrumentDefinition<C> => {
    const definition: InstrumentDefinition<C> = { ...build(config), config, rebuild: make };
    const problems = definitionProblems(definition);
    if (problems.length > 0) throw new InstrumentDefinitionError(definition.code, problems);
    return deepFreeze(definition);
  };
  return make(defaults);
}

/**
 * The definition a trial uses: its configuration with the overrides applied. Unknown keys and
 * values of the wrong kind throw, because a silently ignored typo would change scores.
 */
export function withOverrides<C extends object>(definition: InstrumentDefinition<C>, overrides: ConfigOverrides<C>): InstrumentDefinition<C> {
  const config = mergeConfig(definition.config, overrides, definition.code) as C;
  return definition.rebuild(config);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeConfig(base: object, overrides: object, path: string): object {
  if (!isPlainObject(overrides)) throw new InstrumentDefinitionError(path, ['overrides must be an object']);
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overrides)) {
    const where = `${path}.${key}`;
    if (!Object.hasOwn(result, key)) throw new InstrumentDefinitionError(path, [`unknown configuration key ${where}`]);
    if (value === undefined) continue;
    const current = result[key];
    if (isPlainObject(current)) {
      result[key] = mergeConfig(current, value as object, where);
    } else if (Array.isArray(current) !== Array.isArray(value) || typeof current !== typeof value) {
      throw new InstrumentDefinitionError(path, [`${where} must be ${Array.isArray(current) ? 'an array' : `a ${typeof current}`}`]);
    } else {
      result[key] = value;
    }
  }
  return result;
}

const ID = /^[a-z][a-z0-9_]{0,62}$/;
const OPTION_CODE = /^[A-Za-z0-9_]{1,32}$/;

/** Names of computed fields: a client sending one is refused with its own error code. */
export const COMPUTED_NAMES: ReadonlySet<string> = new Set(['total', 'band', 'flags', 'diagnoses', 'complete', 'missing_required', 'score', 'scores', 'subscales']);

/**
 * Names an item may not take: the common record columns of spec §3, the computed fields and
 * the wording-key words, so item ids can be table columns next to them.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'id',
  'case_id',
  'submitter_id',
  'time_of_measurement',
  'created_at',
  'updated_at',
  ...COMPUTED_NAMES,
  'title',
  'instructions',
  'option',
]);

/** Freezes a built definition with everything in it: a trial changes it through overrides only. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Items that have points (the ones a score can use). */
export function isScorable(scale: ResponseScale): boolean {
  switch (scale.kind) {
    case 'integer':
    case 'yesno':
      return true;
    case 'options':
      return scale.options.every((o) => typeof o.points === 'number');
    case 'multi':
    case 'text':
    case 'date':
      return false;
  }
}

function scaleProblems(item: ItemDefinition): string[] {
  const scale = item.scale;
  const problems: string[] = [];
  switch (scale.kind) {
    case 'integer': {
      if (!Number.isInteger(scale.min) || !Number.isInteger(scale.max) || scale.min > scale.max) problems.push(`${item.id}: bad integer range`);
      const values = scale.anchors.map((a) => a.value);
      if (values.some((v) => v < scale.min || v > scale.max) || new Set(values).size !== values.length) problems.push(`${item.id}: bad anchors`);
      break;
    }
    case 'options':
    case 'multi': {
      const codes = scale.options.map((o) => o.code);
      if (codes.length === 0) problems.push(`${item.id}: no options`);
      if (new Set(codes).size !== codes.length) problems.push(`${item.id}: duplicate option codes`);
      if (codes.some((c) => !OPTION_CODE.test(c))) problems.push(`${item.id}: bad option code`);
      if (scale.options.some((o) => o.points !== undefined && !Number.isFinite(o.points))) problems.push(`${item.id}: bad points`);
      break;
    }
    case 'text':
      if (!Number.isInteger(scale.maxLength) || scale.maxLength < 1) problems.push(`${item.id}: bad maxLength`);
      break;
    case 'yesno':
    case 'date':
      break;
  }
  return problems;
}

function conditionProblems(condition: Condition, items: ReadonlyMap<string, ItemDefinition>, scores: ReadonlySet<string>, where: string): string[] {
  if ('any' in condition) return condition.any.flatMap((c) => conditionProblems(c, items, scores, where));
  if ('all' in condition) return condition.all.flatMap((c) => conditionProblems(c, items, scores, where));
  if ('score' in condition) return scores.has(condition.score) ? [] : [`${where}: unknown score ${condition.score}`];
  return items.has(condition.item) ? [] : [`${where}: unknown item ${condition.item}`];
}

/** Every inconsistency of a definition; empty when it is sound. */
export function definitionProblems(definition: InstrumentSpec<unknown>): string[] {
  const problems: string[] = [];
  if (!ID.test(definition.code)) problems.push(`bad code ${definition.code}`);
  const items = new Map<string, ItemDefinition>();
  for (const item of definition.items) {
    if (!ID.test(item.id)) problems.push(`bad item id ${item.id}`);
    if (RESERVED_NAMES.has(item.id)) problems.push(`reserved item id ${item.id}`);
    if (items.has(item.id)) problems.push(`duplicate item id ${item.id}`);
    if (item.showIf && !items.has(item.showIf.item)) problems.push(`${item.id}: display condition must refer to an earlier item`);
    problems.push(...scaleProblems(item));
    items.set(item.id, item);
  }

  const scoreIds = new Set<string>(definition.total ? ['total'] : []);
  const scoreDefinitions = [...definition.subscales, ...(definition.total ? [{ ...definition.total, id: 'total' }] : [])];
  for (const subscale of definition.subscales) {
    if (!ID.test(subscale.id) || RESERVED_NAMES.has(subscale.id) || items.has(subscale.id) || scoreIds.has(subscale.id)) problems.push(`bad or duplicate subscale id ${subscale.id}`);
    scoreIds.add(subscale.id);
  }
  for (const score of scoreDefinitions) {
    for (const id of score.items) {
      const item = items.get(id);
      if (!item) problems.push(`${score.id}: unknown item ${id}`);
      else if (score.aggregate !== 'derived' && !isScorable(item.scale)) problems.push(`${score.id}: item ${id} has no points`);
    }
    for (const id of score.reversed ?? []) if (!score.items.includes(id)) problems.push(`${score.id}: reversed item ${id} is not in the score`);
  }

  if (definition.bands) {
    if (!definition.total) problems.push('bands need a total');
    definition.bands.forEach((band, index) => {
      const previous = definition.bands![index - 1];
      if (previous && !(band.min > previous.min || (band.min === previous.min && band.minExclusive && !previous.minExclusive))) problems.push(`band ${band.code} is out of order`);
    });
    if (new Set(definition.bands.map((b) => b.code)).size !== definition.bands.length) problems.push('duplicate band codes');
  }

  const flagCodes = definition.flags.map((f) => f.code);
  if (new Set(flagCodes).size !== flagCodes.length) problems.push('duplicate flag codes');
  for (const flag of definition.flags) if (flag.when) problems.push(...conditionProblems(flag.when, items, scoreIds, `flag ${flag.code}`));
  const diagnosisCodes = definition.diagnoses.map((d) => d.code);
  if (new Set(diagnosisCodes).size !== diagnosisCodes.length) problems.push('duplicate diagnosis codes');
  return problems;
}
