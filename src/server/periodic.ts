/**
 * A background task run every `intervalMs` in this process (the notification mails, the
 * interview mails, the workflow scheduler): a run that is still busy when the next is due is not
 * queued behind it, a failure is logged and the next run tries again, and `stop()` waits for the
 * run under way so a shutdown never cuts a transaction short.
 *
 * Issue 28: with a gate (the database availability monitor), runs pause while the database
 * cannot be reached and resume when it is back; a run that fails because the database went
 * away is reported to the gate instead of logged as an error every interval.
 */
import type { Logger } from 'pino';
import type { AvailabilityGate } from './db/availability';

export interface Periodic {
  stop(): Promise<void>;
}

export function startPeriodic(
  name: string,
  intervalMs: number,
  log: Pick<Logger, 'error'>,
  run: () => Promise<unknown>,
  gate?: AvailabilityGate,
): Periodic {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (busy || stopped || (gate && !gate.available)) return;
    busy = true;
    running = (async () => {
      try {
        await run();
      } catch (error) {
        if (!gate?.report(error)) log.error({ err: error }, `${name} failed`);
      } finally {
        busy = false;
      }
    })();
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
