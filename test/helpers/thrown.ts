/**
 * The error a call throws, for tests that check its code, status or body: an error of another
 * class is thrown on (the test fails with it), and a call that throws nothing fails the test.
 */
export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
