/**
 * GET /api/my_data?format=json|html — a patient's own record (issue 31 item 2). Validates the
 * format, opens a transaction as the request role (withUser: row-level security decides what is
 * read) and calls one named function, collectOwnData. JSON carries ids for reuse elsewhere
 * (GDPR Art. 20); the HTML page is the readable document in the patient's language and zone.
 * Signed out: 401. Signed in but the patient of no case (staff): 403 own_data_patients_only.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { attachmentDisposition } from '../../domain/downloads';
import { withUser } from '../db/transaction';
import { badRequest, unauthorized } from '../http/errors';
import { collectOwnData } from './collect';
import { renderOwnDataDocument } from './document';

const FORMATS = ['json', 'html'] as const;
type Format = (typeof FORMATS)[number];

function formatParam(value: unknown): Format {
  if (value === undefined || value === '') return 'json';
  if (typeof value === 'string' && (FORMATS as readonly string[]).includes(value)) return value as Format;
  throw badRequest('format_unknown', `Unknown format "${String(value)}": use json or html.`);
}

export function registerOwnDataRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Querystring: { format?: string } }>('/api/my_data', async (request, reply) => {
    const format = formatParam(request.query.format);
    if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
    const data = await withUser(pool, request.identity, collectOwnData);
    const day = data.generated_at.slice(0, 10);
    void reply.header('cache-control', 'no-store');
    if (format === 'html') {
      void reply.header('content-disposition', attachmentDisposition(`my-data-${day}.html`));
      // Opened straight from the server, the page may style itself and do nothing else.
      void reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      return reply.type('text/html; charset=utf-8').send(renderOwnDataDocument(data, data.profile.locale, data.profile.time_zone));
    }
    void reply.header('content-disposition', attachmentDisposition(`my-data-${day}.json`));
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(data, null, 2));
  });
}
