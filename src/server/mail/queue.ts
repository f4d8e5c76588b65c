/**
 * The outcome of one send attempt for a row of a mail queue (the new-message notifications,
 * the interview mails, the workflow mails): a sent mail leaves the queue; a failed one is tried
 * again after 1, 2, 4, … minutes, and dropped (with an error in the log) after `maxAttempts`.
 * One rule for every queue, so they cannot drift apart.
 */
import type { Logger } from 'pino';
import type { Sql } from '../db/transaction';

/** The mail queues; names are fixed here, never taken from input. */
export type MailQueue = 'app_private.notification_queue' | 'app_private.interview_mail_queue' | 'app_private.workflow_mails' | 'app_private.report_mails';

export async function settleQueuedMail(
  sql: Sql,
  queue: MailQueue,
  row: { id: number | string; attempts: number },
  sent: boolean,
  maxAttempts: number,
  log: Pick<Logger, 'error'>,
): Promise<'sent' | 'retry' | 'dropped'> {
  if (sent || row.attempts + 1 >= maxAttempts) {
    if (!sent) log.error({ queue, id: row.id }, 'queued mail dropped after repeated failures');
    await sql.query(`delete from ${queue} where id = $1`, [row.id]);
    return sent ? 'sent' : 'dropped';
  }
  await sql.query(`update ${queue} set attempts = attempts + 1, run_after = now() + make_interval(mins => $2) where id = $1`, [
    row.id,
    2 ** row.attempts,
  ]);
  return 'retry';
}
