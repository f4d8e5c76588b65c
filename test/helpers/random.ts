/**
 * The seeded random numbers of the tests: mulberry32, small and fast, so that a randomized test
 * (a property test, a fuzz run, a random walk) can be replayed exactly from the seed it reports.
 * Not for anything secret: the trial's allocation draws its numbers in `src/domain/randomization`.
 */

/** Numbers in [0, 1) from `seed`; the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Dice {
  /** The next number in [0, 1). */
  next: () => number;
  /** A whole number in [0, n). */
  int: (n: number) => number;
  /** One of `items` (which must not be empty). */
  pick: <T>(items: readonly T[]) => T;
}

/** `mulberry32(seed)` with the two uses most tests make of it: a whole number and a pick. */
export function dice(seed: number): Dice {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)]! };
}
