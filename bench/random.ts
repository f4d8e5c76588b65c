/**
 * The seeded random numbers of the benches, so that a run sends the same requests and seeds the
 * same data as the one before it (figures compare across runs only then). mulberry32 is the
 * tests' generator (test/helpers/random.ts); the linear congruential generator is the one the
 * questionnaire scenarios drew their requests from before both moved here, kept so that their
 * requests stay the same. Neither is for anything secret.
 */
export { mulberry32 } from '../test/helpers/random';

/** Numbers in [0, 1) from `seed` by the LCG of Numerical Recipes (a = 1664525, c = 1013904223, m = 2³²). */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
