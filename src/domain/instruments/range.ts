/**
 * The lowest and highest total an instrument can reach, from its items' response scales: a
 * chart needs a fixed axis (a PHQ-9 of 12 sits on 0–27, a PCL-5 of 12 on 0–80), and a mean
 * score stays within one item's points.
 */
import type { InstrumentDefinition, ItemDefinition, ResponseScale, TotalDefinition } from './types';

function pointsRange(scale: ResponseScale): [number, number] | undefined {
  switch (scale.kind) {
    case 'integer':
      return [scale.min, scale.max];
    case 'options': {
      const points = scale.options.map((o) => o.points).filter((p): p is number => p !== undefined);
      return points.length > 0 ? [Math.min(...points), Math.max(...points)] : undefined;
    }
    case 'yesno': {
      const { yes, no } = scale.points ?? { yes: 1, no: 0 };
      return [Math.min(yes, no), Math.max(yes, no)];
    }
    case 'multi':
    case 'text':
    case 'date':
      return undefined;
  }
}

/**
 * [lowest, highest] of a summed or mean score over `items`, or undefined when one of them has
 * no points (multi-selects, text) or the score is derived by an algorithm.
 */
export function scoreRange(definition: InstrumentDefinition, score: Pick<TotalDefinition, 'items' | 'aggregate'>): [number, number] | undefined {
  if (score.aggregate === 'derived') return undefined;
  const byId = new Map<string, ItemDefinition>(definition.items.map((item) => [item.id, item]));
  const ranges = score.items.map((id) => {
    const item = byId.get(id);
    return item ? pointsRange(item.scale) : undefined;
  });
  if (ranges.length === 0 || ranges.some((r) => r === undefined)) return undefined;
  const known = ranges as [number, number][];
  if (score.aggregate === 'mean') {
    return [Math.min(...known.map((r) => r[0])), Math.max(...known.map((r) => r[1]))];
  }
  return [known.reduce((sum, r) => sum + r[0], 0), known.reduce((sum, r) => sum + r[1], 0)];
}

/** [lowest, highest] of the total, or undefined when the instrument has no summed or mean total. */
export function totalRange(definition: InstrumentDefinition): [number, number] | undefined {
  return definition.total ? scoreRange(definition, definition.total) : undefined;
}
