/**
 * Outgoing mail. With SMTP_URL set, a real SMTP transport; otherwise every mail is written to
 * DATA_DIR/outbox/*.eml so a laptop install can be used (and inspected) without a mail server.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config, Locale } from '../config';
import { renderMail, type MailKind } from './templates';

export interface OutgoingMail {
  to: string;
  kind: MailKind;
  locale: Locale;
  params: { link?: string; newEmail?: string; username: string };
}

/** A mail whose text a feature rendered itself (interview invitations with an .ics file). */
export interface RenderedMail {
  to: string;
  /** For the log, e.g. "interview_booked". */
  kind: string;
  locale: Locale;
  subject: string;
  text: string;
  attachments?: { filename: string; content: string; contentType: string }[];
  /** An iCalendar invitation also sent as the text/calendar alternative, as calendar clients expect. */
  icalEvent?: { method: 'REQUEST' | 'CANCEL'; content: string };
}

export interface Mailer {
  /** Sends a templated mail; failures are logged, never thrown: mail must not undo a request. */
  send(mail: OutgoingMail): Promise<boolean>;
  /** Sends a mail rendered by the caller; failures are logged and answered with false. */
  sendRendered(mail: RenderedMail): Promise<boolean>;
  close(): void;
}

export function outboxDirectory(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, log: Logger): Mailer {
  const transport = config.smtpUrl
    ? nodemailer.createTransport(config.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const outbox = outboxDirectory(config.dataDir);

  async function deliver(mail: RenderedMail): Promise<boolean> {
    try {
      const info = await transport.sendMail({
        from: config.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        headers: { 'Content-Language': mail.locale },
        ...(mail.attachments ? { attachments: mail.attachments } : {}),
        ...(mail.icalEvent ? { icalEvent: { method: mail.icalEvent.method, filename: 'invite.ics', content: Buffer.from(mail.icalEvent.content, 'utf8') } } : {}),
      });
      if (config.smtpUrl) {
        log.info({ mailKind: mail.kind, messageId: info.messageId }, 'mail sent');
      } else {
        fs.mkdirSync(outbox, { recursive: true });
        const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.kind}-${crypto.randomUUID().slice(0, 8)}.eml`);
        fs.writeFileSync(file, (info as unknown as { message: Buffer }).message);
        log.info({ mailKind: mail.kind, file }, 'mail written to outbox (no SMTP_URL set)');
      }
      return true;
    } catch (error) {
      log.error({ mailKind: mail.kind, err: error }, 'mail could not be sent');
      return false;
    }
  }

  return {
    async send(mail) {
      const content = renderMail(mail.kind, mail.locale, mail.params);
      return deliver({ to: mail.to, kind: mail.kind, locale: mail.locale, subject: content.subject, text: content.text });
    },
    sendRendered: deliver,
    close() {
      transport.close();
    },
  };
}
