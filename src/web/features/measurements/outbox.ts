/**
 * Answers on their way to the server. Every answer is written to local storage first, then
 * sent; it leaves local storage only once the server has stored it, so a dropped connection, a
 * closed tab or a crash loses nothing. Sends run one at a time and are retried with backoff
 * (and at once when the browser is online again). A refusal (4xx) is not retried: the answers
 * are dropped, since the server's record is the truth, and the form is told.
 */
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import { ApiError } from '../../api/client';
import { UNSENT_ANSWERS_PREFIX } from '../../session/unsent-answers';

export { clearAllOutboxes } from '../../session/unsent-answers';

/** The part of `localStorage` the outbox uses, so tests can give it a map. */
export type AnswerStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export type OutboxState = 'saved' | 'saving' | 'waiting' | 'rejected';

export interface OutboxOptions {
  /** Sends changes; resolves when the server stored them. */
  send(changes: AnswerChanges): Promise<void>;
  storage: AnswerStorage;
  /** Local-storage key of this record's unsent answers. */
  key: string;
  onState?(state: OutboxState): void;
  onRejected?(error: ApiError): void;
  /**
   * Keep refused changes on this device (shown as refused until the person changes them)
   * instead of dropping them: for long texts such as the interview report, where a refusal
   * (an interview not yet started, one value out of range) must never cost what was typed.
   */
  keepRefused?: boolean;
  /** Waits before the 1st, 2nd, … retry; the last one repeats. */
  retryDelaysMs?: readonly number[];
  setTimer?(callback: () => void, ms: number): unknown;
  clearTimer?(timer: unknown): void;
}

const RETRY_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];

/** The key of one record's unsent answers; the user id keeps people on a shared phone apart. */
export function outboxKey(userId: string, caseId: string, time: string, code: string): string {
  return [UNSENT_ANSWERS_PREFIX, userId, caseId, time, code].join('.');
}

/** A failure worth retrying: no connection, the server busy or failing, a time-out. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class AnswerOutbox {
  private sending: Promise<boolean> | null = null;
  private timer: unknown = null;
  private attempt = 0;
  private disposed = false;
  private state: OutboxState = 'saved';

  constructor(private readonly options: OutboxOptions) {}

  /** Answers given on this device that the server has not confirmed yet. */
  pending(): AnswerChanges {
    try {
      const raw = this.options.storage.getItem(this.options.key);
      const parsed: unknown = raw ? JSON.parse(raw) : {};
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as AnswerChanges) : {};
    } catch {
      return {};
    }
  }

  hasPending(): boolean {
    return Object.keys(this.pending()).length > 0;
  }

  /** Keeps the changes on the device at once, then sends them (after `delayMs` of quiet). */
  add(changes: AnswerChanges, delayMs = 0): void {
    this.write({ ...this.pending(), ...changes });
    this.attempt = 0;
    // Not "saved" while an answer waits for its send; still "waiting" while offline.
    if (this.state !== 'waiting') this.setState('saving');
    this.schedule(delayMs);
  }

  /**
   * Sends what is pending until nothing is or a send fails; true when everything is stored.
   * Concurrent calls share one run.
   */
  flush(): Promise<boolean> {
    this.cancelTimer();
    if (this.sending) return this.sending.then((done) => (done && this.hasPending() ? this.flush() : done));
    this.sending = this.run().finally(() => {
      this.sending = null;
    });
    return this.sending;
  }

  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
  }

  private async run(): Promise<boolean> {
    while (!this.disposed) {
      const snapshot = this.pending();
      if (Object.keys(snapshot).length === 0) {
        this.setState('saved');
        return true;
      }
      this.setState('saving');
      try {
        await this.options.send(snapshot);
      } catch (error) {
        if (isTransient(error)) {
          this.setState('waiting');
          this.retryLater();
          return false;
        }
        // Refused: sending again would be refused again. The record on the server stands;
        // with keepRefused the changes stay here until the person corrects them.
        if (!this.options.keepRefused) this.removeSent(snapshot);
        this.setState('rejected');
        this.options.onRejected?.(error as ApiError);
        return false;
      }
      this.attempt = 0;
      this.removeSent(snapshot);
    }
    return false;
  }

  /** Forgets what was sent, but keeps an answer changed again while it was on its way. */
  private removeSent(sent: AnswerChanges): void {
    const now = this.pending();
    for (const [id, value] of Object.entries(sent)) {
      if (sameValue(now[id], value)) delete now[id];
    }
    this.write(now);
  }

  private write(changes: AnswerChanges): void {
    if (Object.keys(changes).length === 0) this.options.storage.removeItem(this.options.key);
    else this.options.storage.setItem(this.options.key, JSON.stringify(changes));
  }

  private retryLater(): void {
    const delays = this.options.retryDelaysMs ?? RETRY_DELAYS_MS;
    const delay = delays[Math.min(this.attempt, delays.length - 1)] ?? 1000;
    this.attempt += 1;
    this.schedule(delay);
  }

  private schedule(delayMs: number): void {
    if (this.disposed) return;
    this.cancelTimer();
    const setTimer = this.options.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
    this.timer = setTimer(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
  }

  private cancelTimer(): void {
    if (this.timer === null) return;
    const clearTimer = this.options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
    clearTimer(this.timer);
    this.timer = null;
  }

  private setState(state: OutboxState): void {
    if (state === this.state) return;
    this.state = state;
    this.options.onState?.(state);
  }
}
