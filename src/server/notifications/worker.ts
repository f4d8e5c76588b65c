/**
 * Sends the content-free "you have a new message" mails queued by the database when a
 * message is sent (app_private.notification_queue). Rows are claimed with FOR UPDATE SKIP
 * LOCKED, so several server processes share the queue without sending anything twice; a
 * recipient gets at most one mail per case within the quiet period; a failed send is retried
 * with backoff.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config, Locale } from '../config';
import { conversationPath } from '../../domain/messages';
import { withOwner } from '../db/transaction';
import type { Mailer } from '../mail/mailer';
import type { MailKind } from '../mail/templates';
import { startPeriodic, type Periodic } from '../periodic';
import type { AvailabilityGate } from '../db/availability';
import { settleQueuedMail } from '../mail/queue';

export interface NotificationContext {
  pool: pg.Pool;
  config: Pick<Config, 'notificationQuietSeconds' | 'publicUrl'>;
  mailer: Mailer;
  log: Logger;
}

interface QueuedRow {
  id: number;
  user_id: string;
  case_id: string;
  kind: string;
  attempts: number;
  email: string;
  username: string;
  alias: string | null;
  locale: Locale;
  staff: boolean;
  recently_sent: boolean;
}

const MAX_ATTEMPTS = 8;

/** The kinds of mail the notification queue holds (0006, 0070, 0071). */
export const NOTIFICATION_KINDS = ['new_message', 'new_worksheet', 'worksheet_feedback', 'new_letter'] as const;

/**
 * Which mail a queued kind becomes, and where its link leads (no content, only a place). A
 * patient's sent worksheet is mailed to the case's therapists (staff: the case detail, where the
 * case's exercises are) and counselors (no staff screens: the case's conversation).
 */
export function mailFor(kind: string, caseId: string, staff = true): { kind: MailKind; path: string } {
  if (kind === 'new_worksheet') return { kind: 'new_worksheet', path: staff ? `/admin/cases/${caseId}` : conversationPath(caseId) };
  if (kind === 'worksheet_feedback') return { kind: 'worksheet_feedback', path: '/all-exercises' };
  // A new letter: the same content-free "something new for you" mail, leading to the letters.
  if (kind === 'new_letter') return { kind: 'new_message', path: '/treatment/past-letters' };
  return { kind: 'new_message', path: conversationPath(caseId) };
}

/** Processes one batch; returns how many mails were sent. */
export async function processNotifications(ctx: NotificationContext, limit = 50): Promise<{ sent: number; quiet: number; failed: number }> {
  return withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<QueuedRow>(
      `select q.id, q.user_id, q.case_id, q.kind, q.attempts, u.email::text, u.username::text, u.alias, u.locale,
              (u.is_coordinator_account or u.is_interviewer_account or u.is_therapist_account
               or u.is_supervisor_account or u.is_supporter_account) as staff,
              exists (select 1 from app_private.notification_log l
                       where l.user_id = q.user_id and l.case_id = q.case_id and l.kind = q.kind
                         and l.last_sent_at > now() - make_interval(secs => $2)) as recently_sent
         from app_private.notification_queue q
         join app_public.users u on u.id = q.user_id
        where q.run_after <= now()
        order by q.id
        limit $1
        for update of q skip locked`,
      [limit, ctx.config.notificationQuietSeconds],
    );
    const counts = { sent: 0, quiet: 0, failed: 0 };
    const handled = new Set<string>();
    for (const row of rows) {
      const key = `${row.user_id}:${row.case_id}:${row.kind}`;
      // Quiet: a mail for this person and case went out recently, or earlier in this batch.
      if (row.recently_sent || handled.has(key)) {
        await sql.query('delete from app_private.notification_queue where id = $1', [row.id]);
        counts.quiet += 1;
        continue;
      }
      const { kind, path } = mailFor(row.kind, row.case_id, row.staff);
      const sent = await ctx.mailer.send({
        to: row.email,
        kind,
        locale: row.locale,
        params: { username: row.alias ?? row.username, link: `${ctx.config.publicUrl}${path}` },
      });
      await settleQueuedMail(sql, 'app_private.notification_queue', row, sent, MAX_ATTEMPTS, ctx.log);
      if (sent) {
        handled.add(key);
        await sql.query(
          `insert into app_private.notification_log (user_id, case_id, kind, last_sent_at) values ($1, $2, $3, now())
           on conflict (user_id, case_id, kind) do update set last_sent_at = excluded.last_sent_at`,
          [row.user_id, row.case_id, row.kind],
        );
        counts.sent += 1;
      } else {
        counts.failed += 1;
      }
    }
    return counts;
  });
}

/** Runs processNotifications every intervalMs until stopped; errors are logged, not thrown. */
export function startNotificationWorker(ctx: NotificationContext, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('notification worker', intervalMs, ctx.log, async () => {
    const counts = await processNotifications(ctx);
    if (counts.sent + counts.failed > 0) ctx.log.info(counts, 'notifications processed');
  }, gate);
}
