/**
 * Sends the patient mails of the interview report (app_private.report_mails): a kind,
 * content-free note that the interview result is available, and, on the date the reason to wait
 * expires, the invitation to register again. The text is a content template (type MAIL, code
 * `interview-outcome` or `reregistration-invitation`, in the patient's language), so
 * coordinators word it without a code change; the defaults below apply when none is installed.
 * `{name}` and `{link}` in a template are replaced. Rows are claimed with SKIP LOCKED.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config, Locale } from '../config';
import { withOwner } from '../db/transaction';
import type { Mailer } from '../mail/mailer';
import { settleQueuedMail } from '../mail/queue';
import { startPeriodic, type Periodic } from '../periodic';
import type { AvailabilityGate } from '../db/availability';

export type ReportMailKind = 'interview_outcome' | 'reregistration_invitation';

export const REPORT_MAIL_TEMPLATE_CODES: Record<ReportMailKind, string> = {
  interview_outcome: 'interview-outcome',
  reregistration_invitation: 'reregistration-invitation',
};

const FOOTER: Record<Locale, string> = {
  ar: 'هذه رسالة آلية من منصة سند.',
  de: 'Dies ist eine automatische Nachricht der Plattform Sanad.',
  en: 'This is an automatic message from the Sanad platform.',
};

/** Shipped defaults: no clinical content in a mail, only that something waits in Sanad. */
export const DEFAULT_REPORT_MAILS: Record<ReportMailKind, Record<Locale, { subject: string; text: string }>> = {
  interview_outcome: {
    ar: { subject: 'سند: شكرًا لك على المقابلة', text: 'مرحبًا {name}،\n\nشكرًا لك على وقتك في المقابلة. ستجد الخطوات التالية في سند:\n{link}' },
    de: { subject: 'Sanad: Danke für das Gespräch', text: 'Hallo {name},\n\ndanke, dass Sie sich Zeit für das Gespräch genommen haben. Wie es weitergeht, sehen Sie in Sanad:\n{link}' },
    en: { subject: 'Sanad: thank you for the interview', text: 'Hello {name},\n\nthank you for taking the time for the interview. You will find the next steps in Sanad:\n{link}' },
  },
  reregistration_invitation: {
    ar: { subject: 'سند: يسعدنا أن نسمع منك مجددًا', text: 'مرحبًا {name}،\n\nاتفقنا على أن نتواصل معك مجددًا الآن. إذا كنت لا تزال ترغب في المشاركة، يمكنك التسجيل هنا:\n{link}' },
    de: { subject: 'Sanad: Wir melden uns wie vereinbart', text: 'Hallo {name},\n\nwie vereinbart melden wir uns jetzt wieder bei Ihnen. Wenn Sie weiterhin teilnehmen möchten, können Sie sich hier anmelden:\n{link}' },
    en: { subject: 'Sanad: getting back to you as agreed', text: 'Hello {name},\n\nas agreed, we are getting back to you now. If you would still like to take part, you can register here:\n{link}' },
  },
};

export interface ReportMailContext {
  pool: pg.Pool;
  config: Pick<Config, 'publicUrl'>;
  mailer: Mailer;
  log: Logger;
}

const MAX_ATTEMPTS = 8;

function fill(text: string, params: { name: string; link: string }): string {
  return text.replaceAll('{name}', params.name).replaceAll('{link}', params.link);
}

/** Sends every due report mail; answers how many were sent. */
export async function sendReportMails(ctx: ReportMailContext, limit = 100): Promise<number> {
  return withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<{ id: number; kind: ReportMailKind; attempts: number; email: string; name: string; locale: Locale; subject: string | null; content: string | null }>(
      `select q.id, q.kind, q.attempts, u.email::text, coalesce(u.alias, u.username::text) as name, u.locale,
              t.subject, t.content
         from app_private.report_mails q
         join app_public.users u on u.id = q.user_id
         left join app_public.content_templates t
           on t.type = 'MAIL' and t.language_code = u.locale and t.treatment_code is null
          and t.reader_gender is null and t.writer_gender is null
          and t.code = case q.kind when 'interview_outcome' then 'interview-outcome' else 'reregistration-invitation' end
        where q.run_after <= now() order by q.id limit $1 for update of q skip locked`,
      [limit],
    );
    let sent = 0;
    for (const row of rows) {
      const fallback = DEFAULT_REPORT_MAILS[row.kind][row.locale] ?? DEFAULT_REPORT_MAILS[row.kind].ar;
      const link = row.kind === 'reregistration_invitation' ? `${ctx.config.publicUrl}/register` : `${ctx.config.publicUrl}/`;
      const params = { name: row.name, link };
      const ok = await ctx.mailer.sendRendered({
        to: row.email,
        kind: row.kind,
        locale: row.locale,
        subject: fill(row.subject ?? fallback.subject, params),
        text: `${fill(row.content ?? fallback.text, params)}\n\n${FOOTER[row.locale] ?? FOOTER.ar}`,
      });
      if ((await settleQueuedMail(sql, 'app_private.report_mails', row, ok, MAX_ATTEMPTS, ctx.log)) === 'sent') sent += 1;
    }
    return sent;
  });
}

export function startReportMailWorker(ctx: ReportMailContext, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('report mails', intervalMs, ctx.log, () => sendReportMails(ctx), gate);
}
