/**
 * A background task run every `intervalMs` in this process (the notification mails, the
 * interview mails, the workflow scheduler): a run that is still busy when the next is due is not
 * queued behind it, a failure is logged and the next run tries again, and `stop()` waits for the
 * run under way so a shutdown never cuts a transaction short.
 */
import type { Logger } from 'pino';

export interface Periodic {
  stop(): Promise<void>;
}

export function startPeriodic(name: string, intervalMs: number, log: Pick<Logger, 'error'>, run: () => Promise<unknown>): Periodic {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    running = (async () => {
      try {
        await run();
      } catch (error) {
        log.error({ err: error }, `${name} failed`);
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
