/**
 * Installing a trial's questionnaire wording: one checked wording file (src/domain/wording-file.ts)
 * becomes content templates of type PAGE (`instr-<code>-…`, language = the file's locale), which
 * GET /api/wording/:instrument serves to the forms. The CLI (`import-wording`) and the template
 * editor (PUT /api/wording) both go through `checkWordingFile` and `installWording`, so a file is
 * judged the same way wherever it comes from, and either every text is stored or none.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { checkWordingFile, type WordingInstall } from '../../domain/wording-file';
import type { Config } from '../config';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, unauthorized } from '../http/errors';

/**
 * Stores (or replaces) every text of a checked file inside the caller's transaction. The
 * version trigger of migration 0072 keeps each replaced text restorable in the editor.
 */
export async function installWording(sql: Sql, install: WordingInstall): Promise<number> {
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
  return install.texts.length;
}

/** PUT /api/wording: a coordinator installs one wording file from the template editor. */
export function registerWordingRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  app.put('/api/wording', { bodyLimit: 2 * 1024 * 1024 }, async (request) => {
    if (request.identity.userId === null) throw unauthorized('sign_in_required', 'Please sign in first.');
    const checked = checkWordingFile(request.body, config.locales);
    if (!checked.ok) throw badRequest('wording_invalid', checked.problems.join('\n'));
    const stored = await withUser(pool, request.identity, async (sql) => {
      const { rows } = await sql.query<{ ok: boolean }>('select app_hidden.is_coordinator() as ok');
      if (!rows[0]?.ok) throw forbidden('coordinator_only', 'Only coordinators may install questionnaire wording.');
      return installWording(sql, checked.install);
    });
    return {
      instrument: checked.install.instrument,
      locale: checked.install.locale,
      stored,
    };
  });
}
