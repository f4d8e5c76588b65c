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

export interface Mailer {
  /** Sends a templated mail; failures are logged, never thrown: mail must not undo a request. */
  send(mail: OutgoingMail): Promise<boolean>;
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

  return {
    async send(mail) {
      const content = renderMail(mail.kind, mail.locale, mail.params);
      try {
        const info = await transport.sendMail({
          from: config.mailFrom,
          to: mail.to,
          subject: content.subject,
          text: content.text,
          headers: { 'Content-Language': mail.locale },
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
    },
    close() {
      transport.close();
    },
  };
}
