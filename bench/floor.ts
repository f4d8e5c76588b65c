/**
 * Where a missed target lies (issue "Speed at clinic scale", item 4): above the floor, so the
 * API's own time is what misses it and it is ours to fix, or below it, where the same answer
 * without our server already misses it. Two floors are measured beside each API scenario: the
 * direct SQL (the database's time, through a pg pool in the bench) and, where it can answer, the
 * floor server (floor-server.ts: bare node:http sending PostgreSQL the API's own message).
 *
 * p99: below the floor when the SQL's p99, or the floor server's, is over the same target.
 * Median (API p50 ≤ ratio × SQL p50): below the floor when the floor server's p50 is over that
 * ratio of the SQL's too: no HTTP server on this machine gets closer.
 */

export interface Percentiles {
  p50: number;
  p99: number;
}

export interface FloorTargets {
  p99Ms: number;
  /** The API median may be at most this many times the SQL's. */
  medianRatio: number;
}

export interface FloorFigures {
  api: Percentiles;
  sql: Percentiles;
  /** The floor server's figures; undefined where it cannot answer (PostGraphile's general path). */
  floor?: Percentiles | undefined;
}

export type Placement = { kind: 'met' } | { kind: 'above' } | { kind: 'below'; because: string };

export interface TargetPlacement {
  p99: Placement;
  median: Placement;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function placeP99(figures: FloorFigures, targetMs: number): Placement {
  if (figures.api.p99 <= targetMs) return { kind: 'met' };
  if (figures.sql.p99 > targetMs) return { kind: 'below', because: `SQL p99 ${ms(figures.sql.p99)}` };
  if (figures.floor && figures.floor.p99 > targetMs) return { kind: 'below', because: `floor p99 ${ms(figures.floor.p99)}` };
  return { kind: 'above' };
}

export function placeMedian(figures: FloorFigures, ratio: number): Placement {
  if (figures.api.p50 <= ratio * figures.sql.p50) return { kind: 'met' };
  if (figures.floor && figures.floor.p50 > ratio * figures.sql.p50) {
    return { kind: 'below', because: `floor/SQL p50 ${(figures.floor.p50 / figures.sql.p50).toFixed(2)}×` };
  }
  return { kind: 'above' };
}

export function placeTargets(figures: FloorFigures, targets: FloorTargets): TargetPlacement {
  return { p99: placeP99(figures, targets.p99Ms), median: placeMedian(figures, targets.medianRatio) };
}

/** The verdict column: "met", or each missed target with where it lies, e.g. "p99 below the floor: SQL p99 76.4 ms". */
export function describePlacement(placement: TargetPlacement): string {
  const parts = (['p99', 'median'] as const).flatMap((target) => {
    const place = placement[target];
    if (place.kind === 'met') return [];
    return [place.kind === 'above' ? `${target} missed` : `${target} below the floor: ${place.because}`];
  });
  return parts.length === 0 ? 'met' : parts.join('; ');
}

/** Whether any target is missed above its floor (ours to fix), and whether any only below it. */
export function missedAbove(placement: TargetPlacement): boolean {
  return placement.p99.kind === 'above' || placement.median.kind === 'above';
}

export function missedBelow(placement: TargetPlacement): boolean {
  return placement.p99.kind === 'below' || placement.median.kind === 'below';
}
