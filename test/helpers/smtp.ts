/**
 * A real SMTP server in the test process (smtp-server), so account mails travel through
 * nodemailer's SMTP transport exactly as in production, and tests read what arrived.
 */
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import type { AddressInfo } from 'node:net';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  language: string | undefined;
  /** Attachments as text (the .ics files of interview mails). */
  attachments: { filename: string | null; mimeType: string; content: string }[];
  raw: string;
}

export interface TestSmtp {
  url: string;
  mails: ReceivedMail[];
  /** Waits for a mail to the address (optionally matching the subject) and returns it. */
  waitFor(to: string, subject?: RegExp, timeoutMs?: number): Promise<ReceivedMail>;
  clear(): void;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw)
          .then((parsed) => {
            mails.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              language: parsed.headers.find((h) => h.key === 'content-language')?.value,
              attachments: parsed.attachments.map((a) => ({
                filename: a.filename,
                mimeType: a.mimeType,
                content: typeof a.content === 'string' ? a.content : new TextDecoder().decode(a.content),
              })),
              raw,
            });
            callback();
          })
          .catch(callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, subject, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find((m) => m.to.includes(to.toLowerCase()) && (!subject || subject.test(m.subject)));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No mail to ${to}${subject ? ` matching ${subject}` : ''} arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    clear() {
      mails.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The single-use token in a mailed link such as …/confirm-registration?token=abc. */
export function tokenFromMail(mail: ReceivedMail): string {
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text);
  if (!match?.[1]) throw new Error(`No token link in mail "${mail.subject}"`);
  return match[1];
}

/**
 * An attachment's exact bytes as sent (base64 in the raw message). Parsers normalise the line
 * ends of text attachments; an .ics file must keep its CRLF, so tests read the raw part.
 */
export function rawAttachment(mail: ReceivedMail, filename: string): string {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const part = new RegExp(`filename="?${escaped}"?\\r?\\n(?:[A-Za-z-]+:[^\\r\\n]*\\r?\\n)*\\r?\\n([A-Za-z0-9+/=\\r\\n]+)`).exec(mail.raw);
  if (!part?.[1]) throw new Error(`No attachment ${filename} in mail "${mail.subject}"`);
  return Buffer.from(part[1].replace(/\s/g, ''), 'base64').toString('utf8');
}
