/**
 * Sends the calendar mails queued by the interview functions (app_private.interview_mail_queue,
 * written in the transaction of the booking, cancellation, move or link change). Rows are
 * claimed with FOR UPDATE SKIP LOCKED, so several server processes share the queue; a failed
 * send is retried with backoff. Each mail carries an .ics invitation whose UID is the booking's
 * and whose SEQUENCE is the booking's revision, so calendars update one entry.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config, Locale } from '../config';
import { withOwner } from '../db/transaction';
import type { Mailer } from '../mail/mailer';
import { formatSlot } from '../../domain/format';
import { interviewCalendar } from './ics';
import { interviewSummary, renderInterviewMail, type InterviewMailKind } from './mail-templates';
import { startPeriodic, type Periodic } from '../periodic';
import type { AvailabilityGate } from '../db/availability';
import { settleQueuedMail } from '../mail/queue';

export interface InterviewMailContext {
  pool: pg.Pool;
  config: Pick<Config, 'publicUrl' | 'mailFrom'>;
  mailer: Mailer;
  log: Logger;
}

interface QueuedMail {
  id: number;
  booking_id: string;
  kind: InterviewMailKind;
  method: 'REQUEST' | 'CANCEL';
  sequence: number;
  starts_at: Date;
  ends_at: Date;
  external_link: string | null;
  interviewer_name: string;
  attempts: number;
  created_at: Date;
  email: string;
  name: string;
  locale: Locale;
  time_zone: string;
  is_interviewer: boolean;
}

const MAX_ATTEMPTS = 8;

/** "Sanad <no-reply@sanad.invalid>" → its name and address, for the ORGANIZER line. */
export function parseMailbox(mailbox: string): { name: string; email: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(mailbox);
  return match ? { name: match[1]!.trim() || 'Sanad', email: match[2]!.trim() } : { name: 'Sanad', email: mailbox.trim() };
}

/** The mail for one queued row, in the recipient's language and time zone. */
export function interviewMail(row: QueuedMail, config: InterviewMailContext['config']) {
  const role = row.is_interviewer ? 'interviewer' : 'patient';
  const content = renderInterviewMail(row.kind, row.locale, {
    name: row.name,
    when: formatSlot(row.starts_at, row.ends_at, row.locale, row.time_zone),
    interviewer: row.interviewer_name,
    link: row.external_link,
    appLink: `${config.publicUrl}${role === 'interviewer' ? '/interviews/manage' : '/interviews/booking'}`,
    role,
  });
  const calendar = interviewCalendar({
    uid: `${row.booking_id}@sanad`,
    sequence: row.sequence,
    method: row.method,
    start: row.starts_at,
    end: row.ends_at,
    stamp: row.created_at,
    summary: interviewSummary(row.locale),
    url: row.method === 'CANCEL' ? null : row.external_link,
    organizer: parseMailbox(config.mailFrom),
    attendees: [{ name: row.name, email: row.email }],
  });
  return { ...content, calendar };
}

/** Sends one batch; returns the counts. */
export async function processInterviewMails(ctx: InterviewMailContext, limit = 50): Promise<{ sent: number; failed: number }> {
  return withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<QueuedMail>(
      `select q.id, q.booking_id, q.kind, q.method, q.sequence, q.starts_at, q.ends_at, q.external_link, q.interviewer_name,
              q.attempts, q.created_at, u.email::text, coalesce(u.alias, u.username::text) as name, u.locale, u.time_zone,
              (b.interviewer_id = q.user_id) as is_interviewer
         from app_private.interview_mail_queue q
         join app_public.users u on u.id = q.user_id
         join app_public.interview_bookings b on b.id = q.booking_id
        where q.run_after <= now()
        order by q.id
        limit $1
        for update of q skip locked`,
      [limit],
    );
    const counts = { sent: 0, failed: 0 };
    for (const row of rows) {
      const mail = interviewMail(row, ctx.config);
      const sent = await ctx.mailer.sendRendered({
        to: row.email,
        kind: `interview_${row.kind}`,
        locale: row.locale,
        subject: mail.subject,
        text: mail.text,
        icalEvent: { method: row.method, content: mail.calendar },
      });
      await settleQueuedMail(sql, 'app_private.interview_mail_queue', row, sent, MAX_ATTEMPTS, ctx.log);
      if (sent) counts.sent += 1;
      else counts.failed += 1;
    }
    return counts;
  });
}

/** Runs processInterviewMails every intervalMs until stopped; errors are logged, not thrown. */
export function startInterviewMailWorker(ctx: InterviewMailContext, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('interview mail worker', intervalMs, ctx.log, async () => {
    const counts = await processInterviewMails(ctx);
    if (counts.sent + counts.failed > 0) ctx.log.info(counts, 'interview mails processed');
  }, gate);
}
