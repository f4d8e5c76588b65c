/**
 * Installing a trial's questionnaire wording: one checked wording file (src/domain/wording-file.ts)
 * becomes content templates of type PAGE (`instr-<code>-…`, language = the file's locale), which
 * GET /api/wording/:instrument serves to the forms. The CLI (`import-wording`) and the template
 * editor (PUT /api/wording) both go through `checkWordingFile` and `installWording`, so a file is
 * judged the same way wherever it comes from, and either every text is stored or none.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { checkWordingFile, checkWordingText, type WordingInstall } from '../../domain/wording-file';
import type { Config } from '../config';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, unauthorized } from '../http/errors';

/**
 * Stores (or replaces) every text of a checked file inside the caller's transaction. The
 * version trigger of migration 0072 keeps each replaced text restorable in the editor.
 */
export async function installWording(sql: Sql, install: WordingInstall): Promise<number> {
  // The database lets a request role write `instr-` texts only while this is on (0087), so the
  // template editor's ordinary save cannot go around the checker.
  await sql.query(`select set_config('sanad.wording_checked', 'on', true)`);
  for (const text of install.texts) {
    await sql.query(
      `insert into app_public.content_templates (type, code, language_code, title, content)
       values ('PAGE', $1, $2, $3, $4)
       on conflict on constraint one_text_per_variant
       do update set title = excluded.title, content = excluded.content
        where content_templates.content is distinct from excluded.content or content_templates.title is distinct from excluded.title`,
      [text.code, install.locale, text.title, text.content],
    );
  }
  await sql.query(`select set_config('sanad.wording_checked', 'off', true)`);
  return install.texts.length;
}

/**
 * One wording text from the template editor (saved on its own, or an earlier version brought
 * back): checked together with the texts stored beside it (`checkWordingText`), then stored as
 * a new version of its content template. Keeps a title the template already has.
 */
export async function saveWordingText(sql: Sql, text: { code: string; locale: string; content: string }, locales: Config['locales']): Promise<{ id: string; code: string; locale: string }> {
  const { rows } = await sql.query<{ code: string; title: string; content: string }>(
    `select code, title, content from app_public.content_templates where type = 'PAGE' and language_code = $1 and code like 'instr-%'`,
    [text.locale],
  );
  const stored = Object.fromEntries(rows.map((row) => [row.code, row.content]));
  const checked = checkWordingText(text.code, text.locale, text.content, stored, locales);
  if (!checked.ok) throw badRequest('wording_invalid', checked.problems.join('\n'));
  const title = rows.find((row) => row.code === text.code)?.title;
  await installWording(sql, { ...checked.install, texts: checked.install.texts.map((t) => ({ ...t, title: title ?? t.title })) });
  const saved = await sql.query<{ id: string }>(
    `select id from app_public.content_templates where type = 'PAGE' and code = $1 and language_code = $2 and treatment_code is null and reader_gender is null and writer_gender is null`,
    [text.code, text.locale],
  );
  return { id: saved.rows[0]!.id, code: text.code, locale: text.locale };
}

async function requireCoordinator(sql: Sql): Promise<void> {
  const { rows } = await sql.query<{ ok: boolean }>('select app_hidden.is_coordinator() as ok');
  if (!rows[0]?.ok) throw forbidden('coordinator_only', 'Only coordinators may install questionnaire wording.');
}

/** The body of PUT /api/wording/text, or a 400 naming what is wrong. */
function wordingTextBody(body: unknown): { code: string; locale: string; content: string } {
  const value = (body ?? {}) as Record<string, unknown>;
  const wrong = ['code', 'locale', 'content'].filter((key) => typeof value[key] !== 'string');
  if (typeof body !== 'object' || body === null || Array.isArray(body) || wrong.length > 0) {
    throw badRequest('invalid_body', `Send a JSON object with the texts "code", "locale" and "content"${wrong.length ? ` (wrong or missing: ${wrong.join(', ')})` : ''}.`);
  }
  return { code: value.code as string, locale: value.locale as string, content: value.content as string };
}

/**
 * PUT /api/wording: a coordinator installs one wording file from the template editor.
 * PUT /api/wording/text: a coordinator saves one wording text (`{code, locale, content}`) from
 * the template editor's page form, checked like a file.
 */
export function registerWordingRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  app.put('/api/wording', { bodyLimit: 2 * 1024 * 1024 }, async (request) => {
    if (request.identity.userId === null) throw unauthorized('sign_in_required', 'Please sign in first.');
    const checked = checkWordingFile(request.body, config.locales);
    if (!checked.ok) throw badRequest('wording_invalid', checked.problems.join('\n'));
    const stored = await withUser(pool, request.identity, async (sql) => {
      await requireCoordinator(sql);
      return installWording(sql, checked.install);
    });
    return {
      instrument: checked.install.instrument,
      locale: checked.install.locale,
      stored,
    };
  });

  app.put('/api/wording/text', async (request) => {
    if (request.identity.userId === null) throw unauthorized('sign_in_required', 'Please sign in first.');
    const text = wordingTextBody(request.body);
    return withUser(pool, request.identity, async (sql) => {
      await requireCoordinator(sql);
      return saveWordingText(sql, text, config.locales);
    });
  });
}
