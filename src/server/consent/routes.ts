/**
 * Versioned e-consent (issue 31 item 1), under /api/consent. Each route validates, opens a
 * transaction as the request role (withUser) and calls one function of ./service; the SQL of
 * 0245 decides who may and refuses bad input before anything is written.
 *
 *   GET  /api/consent/current?language=xx          the current published document (anyone; registration)
 *   GET  /api/consent/mine?language=xx             a patient's consents and whether re-consent is pending
 *   POST /api/consent/agree                        a patient agrees {versionId, language, typedUsername}
 *   GET  /api/consent/records/:id                  the printable record (HTML) — patient, case staff, coordinators
 *   GET  /api/consent/versions                     coordinators: every version with its counts
 *   POST /api/consent/versions                     coordinators: a new draft (texts of the newest copied)
 *   GET  /api/consent/versions/:id/texts           the texts of a version
 *   PUT  /api/consent/versions/:id/texts/:language coordinators: save a draft's text
 *   POST /api/consent/versions/:id/publish         coordinators: publish {major, reason} (confirmed with a reason)
 *   GET  /api/consent/coverage                     coordinators: the coverage report
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { LOCALES } from '../../domain/locales';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, notFound, unauthorized } from '../http/errors';
import { renderConsentRecord } from './record-document';
import {
  consentCoverage,
  consentRecord,
  consentTexts,
  consentVersions,
  createConsentDraft,
  currentConsentDocument,
  giveConsent,
  myConsentState,
  publishConsentVersion,
  saveConsentText,
} from './service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function languageParam(value: unknown, fallback = 'ar'): string {
  if (value === undefined || value === '') return fallback;
  if (typeof value === 'string' && (LOCALES as readonly string[]).includes(value)) return value;
  throw badRequest('consent_language_missing', 'Choose one of the languages ar, de, en.');
}

function versionIdParam(value: unknown): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw notFound('consent_version_unknown', 'There is no such consent version.');
  return value;
}

function objectBody(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function textField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
    throw badRequest('text_length', `"${name}" must be a text of 1 to ${max} characters.`);
  }
  return value;
}

function signedIn(request: FastifyRequest): void {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
}

/** The reader's language and zone, for pages the server renders. */
async function readerSettings(sql: Sql): Promise<{ locale: string; timeZone: string }> {
  const { rows } = await sql.query<{ locale: string; time_zone: string }>('select locale, time_zone from app_public.users where id = app_public.current_user_id()');
  return { locale: rows[0]?.locale ?? 'ar', timeZone: rows[0]?.time_zone ?? 'UTC' };
}

export function registerConsentRoutes(app: FastifyInstance, pool: pg.Pool): void {
  // Before a trial publishes its first consent document, registration asks for the terms only:
  // "none published" is an ordinary answer (JSON null), not a failed request in every browser.
  app.get<{ Querystring: { language?: string } }>('/api/consent/current', async (request, reply) => {
    const language = languageParam(request.query.language);
    const document = await withUser(pool, request.identity, (sql) => currentConsentDocument(sql, language));
    return reply.type('application/json').send(document ? JSON.stringify(document) : 'null');
  });

  app.get<{ Querystring: { language?: string } }>('/api/consent/mine', async (request) => {
    signedIn(request);
    const language = languageParam(request.query.language);
    return withUser(pool, request.identity, (sql) => myConsentState(sql, language));
  });

  app.post('/api/consent/agree', async (request, reply) => {
    signedIn(request);
    const body = objectBody(request);
    const versionId = versionIdParam(body.versionId);
    const language = languageParam(body.language, '');
    const typed = typeof body.typedUsername === 'string' ? body.typedUsername : '';
    const record = await withUser(pool, request.identity, (sql) => giveConsent(sql, versionId, language, typed));
    return reply.status(201).send(record);
  });

  app.get<{ Params: { id: string } }>('/api/consent/records/:id', async (request, reply) => {
    signedIn(request);
    if (!UUID.test(request.params.id)) throw notFound('consent_record_not_found', 'There is no such consent record.');
    const page = await withUser(pool, request.identity, async (sql) => {
      const record = await consentRecord(sql, request.params.id);
      const reader = await readerSettings(sql);
      return renderConsentRecord(record, reader.locale, reader.timeZone);
    });
    void reply.header('cache-control', 'no-store');
    void reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    return reply.type('text/html; charset=utf-8').send(page);
  });

  app.get('/api/consent/versions', async (request) => {
    signedIn(request);
    return withUser(pool, request.identity, consentVersions);
  });

  app.post('/api/consent/versions', async (request, reply) => {
    signedIn(request);
    const made = await withUser(pool, request.identity, createConsentDraft);
    return reply.status(201).send(made);
  });

  app.get<{ Params: { id: string } }>('/api/consent/versions/:id/texts', async (request) => {
    signedIn(request);
    const id = versionIdParam(request.params.id);
    return withUser(pool, request.identity, (sql) => consentTexts(sql, id));
  });

  app.put<{ Params: { id: string; language: string } }>('/api/consent/versions/:id/texts/:language', async (request) => {
    signedIn(request);
    const id = versionIdParam(request.params.id);
    const language = languageParam(request.params.language, '');
    const body = objectBody(request);
    const title = textField(body, 'title', 200);
    const text = textField(body, 'body', 100_000);
    await withUser(pool, request.identity, (sql) => saveConsentText(sql, id, language, title, text));
    return { saved: true };
  });

  app.post<{ Params: { id: string } }>('/api/consent/versions/:id/publish', async (request) => {
    signedIn(request);
    const id = versionIdParam(request.params.id);
    const body = objectBody(request);
    if (typeof body.major !== 'boolean') throw badRequest('invalid_body', 'Say whether the version is major (true) or minor (false).');
    const reason = typeof body.reason === 'string' ? body.reason : '';
    const major = body.major;
    return withUser(pool, request.identity, (sql) => publishConsentVersion(sql, id, major, reason));
  });

  app.get('/api/consent/coverage', async (request) => {
    signedIn(request);
    return withUser(pool, request.identity, consentCoverage);
  });
}
