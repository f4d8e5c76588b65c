/**
 * The open information pages. Their texts live in content templates that coordinators edit;
 * the defaults shipped in content/pages/<code>.<locale>.md are inserted when a page is
 * missing, so an edited page is never overwritten by an upgrade.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Config } from '../config';
import { withOwner, withUser } from '../db/transaction';
import { notFound } from '../http/errors';
import { repoPath } from '../paths';

export const PAGE_CODES = ['about', 'faq', 'privacy', 'imprint', 'downloads', 'conditionsTherapy', 'conditionsCounseling', 'interview'] as const;
const PAGES_DIR = repoPath('src/server/content/pages');

export interface DefaultPage {
  code: string;
  locale: string;
  title: string;
  content: string;
}

/** Reads the shipped default pages; the first `# ` line of each file is its title. */
export function readDefaultPages(dir = PAGES_DIR): DefaultPage[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => /^[A-Za-z]+\.(ar|de|en)\.md$/.test(file))
    .map((file) => {
      const [code, locale] = file.split('.') as [string, string];
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? code;
      return { code, locale, title, content: text };
    });
}

/** Inserts the default text of every page and language that has none yet. */
export async function seedDefaultPages(pool: pg.Pool, pages = readDefaultPages()): Promise<number> {
  return withOwner(pool, async (sql) => {
    let inserted = 0;
    for (const page of pages) {
      const result = await sql.query(
        `insert into app_public.content_templates (type, code, language_code, title, content, description)
         values ('PAGE', $1, $2, $3, $4, 'Default text shipped with Sanad')
         on conflict on constraint one_text_per_variant do nothing`,
        [page.code, page.locale, page.title, page.content],
      );
      inserted += result.rowCount ?? 0;
    }
    return inserted;
  });
}

interface PageRow {
  code: string;
  locale: string;
  title: string;
  content: string;
  updated_at: Date;
}

export function registerPageRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  app.get<{ Params: { code: string }; Querystring: { locale?: string } }>(
    '/api/pages/:code',
    {
      schema: {
        params: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' } } },
        querystring: { type: 'object', additionalProperties: false, properties: { locale: { type: 'string', enum: [...config.locales] } } },
      },
    },
    async (request) => {
      const locale = request.query.locale ?? config.locales[0] ?? 'ar';
      // The person's language first, then the installation's default language.
      const rows = await withUser(pool, request.identity, async (sql) => {
        const result = await sql.query<PageRow>(
          `select code, language_code as locale, title, content, updated_at
             from app_public.content_templates
            where type = 'PAGE' and code = $1 and language_code = any($2)
              and treatment_code is null and reader_gender is null and writer_gender is null
            order by array_position($2, language_code)
            limit 1`,
          [request.params.code, [locale, ...config.locales.filter((l) => l !== locale)]],
        );
        return result.rows;
      });
      const page = rows[0];
      if (!page) throw notFound('not_found', `There is no page "${request.params.code}".`);
      return { code: page.code, locale: page.locale, title: page.title, content: page.content, updatedAt: page.updated_at };
    },
  );
}
