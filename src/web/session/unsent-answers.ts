/**
 * Where questionnaire answers wait on the device until the server has them (see
 * features/measurements/outbox.ts). Kept apart from the outbox, without imports, so the session
 * can clear them at sign-out without loading the questionnaire code.
 */
export const UNSENT_ANSWERS_PREFIX = 'sanad.unsent';

/** Removes every unsent answer on this device (sign-out on a shared phone). */
export function clearAllOutboxes(storage: Storage): void {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key?.startsWith(`${UNSENT_ANSWERS_PREFIX}.`)) keys.push(key);
  }
  keys.forEach((key) => storage.removeItem(key));
}
