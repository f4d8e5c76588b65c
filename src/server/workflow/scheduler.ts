/**
 * The in-process scheduler of the workflow host (like the notification worker): every interval
 * it fires due timer and retry jobs (in batches of up to JOB_BATCH per transaction), consumes
 * the workflow outbox, runs queued process starts and sends the mails the processes queued. Work
 * claims its rows with FOR UPDATE SKIP LOCKED, so several server processes share the work and
 * nothing runs twice. Tests call `tick()` directly (WORKFLOW_INTERVAL_MS=0 turns the interval off).
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config, Locale } from '../config';
import { withOwner } from '../db/transaction';
import type { Mailer } from '../mail/mailer';
import type { MailKind } from '../mail/templates';
import { JOB_BATCH, type WorkflowHost } from './host';
import { startPeriodic, type Periodic } from '../periodic';
import type { AvailabilityGate } from '../db/availability';
import { settleQueuedMail } from '../mail/queue';

export interface SchedulerContext {
  host: WorkflowHost;
  pool: pg.Pool;
  mailer: Mailer;
  config: Pick<Config, 'publicUrl'>;
  log: Logger;
}

export interface TickCounts {
  jobs: number;
  outbox: number;
  starts: number;
  mails: number;
}

const MAIL_ATTEMPTS = 8;

/** Runs until nothing is due (at most `limit` units of each kind). */
export async function tick(ctx: SchedulerContext, limit = 500): Promise<TickCounts> {
  const counts: TickCounts = { jobs: 0, outbox: 0, starts: 0, mails: 0 };
  while (counts.starts < limit && (await ctx.host.processOneStartRequest())) counts.starts += 1;
  while (counts.outbox < limit && (await ctx.host.processOneOutboxRow())) counts.outbox += 1;
  while (counts.jobs < limit) {
    const claimed = await ctx.host.fireDueJobs(Math.min(JOB_BATCH, limit - counts.jobs));
    if (claimed === 0) break;
    counts.jobs += claimed;
  }
  counts.mails = await sendWorkflowMails(ctx, limit);
  return counts;
}

/** Sends queued workflow mails; a failed send is retried with backoff. */
export async function sendWorkflowMails(ctx: SchedulerContext, limit = 100): Promise<number> {
  return withOwner(ctx.pool, async (sql) => {
    // A mail names an account, or an address with its language (the safety on-call address, 0130).
    const { rows } = await sql.query<{ id: number; template: MailKind; attempts: number; email: string; username: string; alias: string | null; locale: Locale }>(
      `select q.id, q.template, q.attempts, coalesce(u.email::text, q.to_address) as email, coalesce(u.username::text, q.to_address) as username,
              u.alias, coalesce(u.locale, q.locale) as locale
         from app_private.workflow_mails q left join app_public.users u on u.id = q.user_id
        where q.run_after <= now() and (u.id is not null or q.to_address is not null)
        order by q.id limit $1 for update of q skip locked`,
      [limit],
    );
    let sent = 0;
    for (const row of rows) {
      const ok = await ctx.mailer.send({
        to: row.email,
        kind: row.template,
        locale: row.locale,
        params: { username: row.alias ?? row.username, link: `${ctx.config.publicUrl}/due` },
      });
      if ((await settleQueuedMail(sql, 'app_private.workflow_mails', row, ok, MAIL_ATTEMPTS, ctx.log)) === 'sent') sent += 1;
    }
    return sent;
  });
}

/** Runs `tick` every intervalMs until stopped; a failure is logged and the next run tries again. */
export function startWorkflowScheduler(ctx: SchedulerContext, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('workflow scheduler', intervalMs, ctx.log, async () => {
    const counts = await tick(ctx);
    if (counts.jobs + counts.outbox + counts.starts + counts.mails > 0) ctx.log.debug(counts, 'workflow scheduler ran');
  }, gate);
}
