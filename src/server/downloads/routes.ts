/**
 * /downloads (issue 14 item 5): documents coordinators upload per language, stored in the
 * database (0073-downloads.sql). Each route validates, opens a transaction as the request role
 * (withUser) and calls one named function; the table's policies decide who may.
 *
 *   GET    /api/downloads?locale=ar           the list (signed in), newest first; no locale: all
 *   GET    /api/downloads/:id/file            the file, as an attachment with safe headers
 *   POST   /api/downloads?locale=&title=&fileName=   the file's bytes as the body (coordinators)
 *   DELETE /api/downloads/:id                 removes a document (coordinators)
 *
 * The upload route has its own body limit (DOWNLOAD_MAX_BYTES), larger than BODY_LIMIT_BYTES
 * of the JSON routes, and reads any body as raw bytes: the type is taken from the bytes.
 */
import { REFUSAL_MESSAGES } from '../../domain/refusals';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { attachmentDisposition, cleanFileName, sniffDownloadType, type DownloadType } from '../../domain/downloads';
import type { Config } from '../config';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, HttpError, notFound, unauthorized } from '../http/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DownloadDocument {
  id: string;
  locale: string;
  title: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  uploadedBy: string | null;
  uploadedAt: string;
}

export interface NewDownload {
  locale: string;
  title: string;
  fileName: string;
  contentType: DownloadType;
  content: Buffer;
}

/** The documents of a language (or all), newest first: the caller's transaction. */
export async function listDownloads(sql: Sql, locale: string | null): Promise<DownloadDocument[]> {
  const { rows } = await sql.query<DownloadDocument>(
    `select id, locale, title, file_name as "fileName", content_type as "contentType", size_bytes as "sizeBytes",
            uploaded_by as "uploadedBy", to_char(uploaded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "uploadedAt"
       from app_public.download_documents
      where $1::text is null or locale = $1
      order by uploaded_at desc, title`,
    [locale],
  );
  return rows;
}

/** One document with its bytes, or undefined. */
export async function readDownload(sql: Sql, id: string): Promise<{ fileName: string; contentType: string; content: Buffer } | undefined> {
  const { rows } = await sql.query<{
    fileName: string;
    contentType: string;
    content: Buffer;
  }>('select file_name as "fileName", content_type as "contentType", content from app_public.download_documents where id = $1', [id]);
  return rows[0];
}

/** Stores a document: the named SQL function (coordinators only, checked there and by the policy). */
export async function uploadDownload(sql: Sql, d: NewDownload): Promise<string> {
  const { rows } = await sql.query<{ id: string }>('select app_public.upload_download_document($1, $2, $3, $4, $5) as id', [
    d.locale,
    d.title,
    d.fileName,
    d.contentType,
    d.content,
  ]);
  return rows[0]!.id;
}

export async function deleteDownload(sql: Sql, id: string): Promise<void> {
  await sql.query('select app_public.delete_download_document($1)', [id]);
}

/** The SQL refusals of 0073 as errors a person can act on. */
function downloadError(error: unknown): unknown {
  const e = error as {
    code?: string;
    hint?: string;
    message?: string;
    constraint?: string;
  };
  if (e.code === '42501') return forbidden('forbidden', 'Only coordinators may add or remove documents.');
  if (e.code === 'P0002') return notFound('document_not_found', 'There is no such document.');
  if (e.code === '23514') return badRequest('document_invalid', REFUSAL_MESSAGES.file_invalid);
  return error;
}

async function run<T>(pool: pg.Pool, request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
  try {
    return await withUser(pool, request.identity, fn);
  } catch (error) {
    throw downloadError(error);
  }
}

function idParam(value: string): string {
  if (!UUID.test(value)) throw notFound('document_not_found', 'There is no such document.');
  return value;
}

function localeParam(value: unknown, locales: readonly string[], required: boolean): string | null {
  if (value === undefined || value === '') {
    if (required) throw badRequest('locale_required', `Say the document's language: ?locale= one of ${locales.join(', ')}.`);
    return null;
  }
  if (typeof value !== 'string' || !locales.includes(value)) {
    throw badRequest('locale_unknown', `Unknown language "${String(value)}": use one of ${locales.join(', ')}.`);
  }
  return value;
}

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Validates an upload: language, title, file name, and the type from the bytes themselves. */
export function validateUpload(query: Record<string, unknown>, body: unknown, locales: readonly string[], maxBytes: number): NewDownload {
  const locale = localeParam(query.locale, locales, true)!;
  const title = typeof query.title === 'string' ? query.title.trim() : '';
  if (title === '' || title.length > 200) throw badRequest('title_invalid', 'Give the document a title of 1 to 200 characters.');
  const fileName = typeof query.fileName === 'string' ? cleanFileName(query.fileName) : undefined;
  if (!fileName) throw badRequest('file_name_invalid', 'Give the file name (?fileName=…).');
  if (!Buffer.isBuffer(body) || body.length === 0) throw badRequest('file_empty', 'Send the file itself as the request body.');
  if (body.length > maxBytes) throw tooLarge(maxBytes);
  const contentType = sniffDownloadType(body);
  if (!contentType) throw badRequest('file_type_refused', 'Only PDF, PNG, JPEG and WebP files can be offered; this file is none of them.');
  return { locale, title, fileName, contentType, content: body };
}

const tooLarge = (maxBytes: number) => new HttpError(413, 'file_too_large', `The file is too large: at most ${megabytes(maxBytes)} (DOWNLOAD_MAX_BYTES).`);

export function registerDownloadRoutes(app: FastifyInstance, pool: pg.Pool, config: Pick<Config, 'downloadMaxBytes' | 'locales'>): void {
  const locales: readonly string[] = config.locales;

  app.get('/api/downloads', async (request) => {
    const locale = localeParam((request.query as Record<string, unknown>).locale, locales, false);
    return run(pool, request, (sql) => listDownloads(sql, locale));
  });

  app.get<{ Params: { id: string } }>('/api/downloads/:id/file', async (request, reply) => {
    const id = idParam(request.params.id);
    const file = await run(pool, request, (sql) => readDownload(sql, id));
    if (!file) throw notFound('document_not_found', 'There is no such document.');
    return reply
      .header('content-type', file.contentType)
      .header('content-disposition', attachmentDisposition(file.fileName))
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, no-cache')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(file.content);
  });

  app.delete<{ Params: { id: string } }>('/api/downloads/:id', async (request, reply) => {
    const id = idParam(request.params.id);
    await run(pool, request, (sql) => deleteDownload(sql, id));
    return reply.status(204).send();
  });

  // The upload in a scope of its own: raw bytes of any declared type, its own body limit.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: config.downloadMaxBytes }, (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: FastifyError) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw tooLarge(config.downloadMaxBytes);
      throw error;
    });
    scope.post('/api/downloads', { bodyLimit: config.downloadMaxBytes }, async (request, reply) => {
      if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
      const upload = validateUpload(request.query as Record<string, unknown>, request.body, locales, config.downloadMaxBytes);
      const id = await run(pool, request, (sql) => uploadDownload(sql, upload));
      return reply.status(201).send({
        id,
        contentType: upload.contentType,
        sizeBytes: upload.content.length,
      });
    });
  });
}
