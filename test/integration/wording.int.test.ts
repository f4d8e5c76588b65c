/**
 * Installing questionnaire wording: the CLI's import-wording (a good file, each kind of bad file
 * refused with its problem named and nothing stored), PUT /api/wording from the template editor
 * (coordinators only, the same checks), and the read path the forms use (GET /api/wording).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, runCommand } from '../../src/server/cli/commands';
import { startTestApp, type TestApp } from '../helpers/app';

const EXAMPLE = path.resolve(import.meta.dirname, '../../docs/examples/wording-gad7-de.example.json');
const example = () => JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as Record<string, any>;

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wording-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function importFile(file: string): Promise<string[]> {
  const lines: string[] = [];
  await runCommand(['import-wording', file], {
    db: t.database.db,
    config: t.config,
    out: (line) => lines.push(line),
    env: {},
  });
  return lines;
}

function writeFile(name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** Every installed wording text, as code/language → content. */
async function installed(): Promise<Record<string, string>> {
  const { rows } = await t.database.db.pool.query<{
    code: string;
    language_code: string;
    content: string;
  }>(`select code, language_code, content from app_public.content_templates where code like 'instr-%' order by code, language_code`);
  return Object.fromEntries(rows.map((r) => [`${r.code}/${r.language_code}`, r.content]));
}

describe('import-wording (CLI)', () => {
  const bad: [string, (file: Record<string, any>) => unknown, string][] = [
    ['an unknown instrument', (f) => ({ ...f, instrument: 'gad77' }), 'Unknown instrument "gad77"'],
    ['an unknown item', (f) => ({ ...f, items: { ...f.items, item42: { text: 'x' } } }), 'Unknown item "item42" for gad7'],
    [
      'a missing option',
      (f) => ({
        ...f,
        items: {
          ...f.items,
          item2: { text: 'x', options: { 0: 'a', 1: 'b', 2: 'c' } },
        },
      }),
      'Item "item2": missing option "3"',
    ],
    [
      'an option for an item without options',
      (f) => ({
        instrument: 'comment',
        locale: f.locale,
        items: { comment: { text: 'x', options: { 0: 'y' } } },
      }),
      'has no options',
    ],
    ['a wrong locale', (f) => ({ ...f, locale: 'fr' }), 'Wrong locale "fr"'],
  ];

  it.each(bad)('refuses %s, naming it, and stores nothing (not even the good parts)', async (_name, change, message) => {
    const before = await installed();
    const error = await importFile(writeFile('bad.json', change(example()))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain('nothing was installed');
    expect(await installed()).toEqual(before);
  });

  it('refuses a file that is not JSON', async () => {
    await expect(importFile(writeFile('broken.json', '{ "instrument": '))).rejects.toThrow(/Cannot read .* as JSON/);
    await expect(importFile(path.join(dir, 'missing.json'))).rejects.toBeInstanceOf(CliError);
  });

  it('installs a good file; the read path serves it in its locale only, and a new import replaces it', async () => {
    expect(await importFile(EXAMPLE)).toEqual(['wording installed: gad7 (de), 12 texts']);
    const de = await t.api('GET', '/api/wording/gad7?locale=de');
    expect(de.status).toBe(200);
    expect(de.body.texts['instr-gad7-item1']).toBe('Erfundene Aussage eins (hier steht der lizenzierte Wortlaut)');
    expect(de.body.texts['instr-gad7-item2-o-3']).toBe('Antwort D (Beispiel)');
    expect(de.body.texts['instr-gad7-title']).toMatch(/^Beispielbogen/);
    expect(Object.keys(de.body.texts)).toHaveLength(12);
    expect((await t.api('GET', '/api/wording/gad7?locale=ar')).body.texts).toEqual({});

    const changed = example();
    changed.items.item1.text = 'Geänderte erfundene Aussage';
    await importFile(writeFile('changed.json', changed));
    expect((await t.api('GET', '/api/wording/gad7?locale=de')).body.texts['instr-gad7-item1']).toBe('Geänderte erfundene Aussage');
    const { rows } = await t.database.db.pool.query<{ n: number }>(
      `select count(*)::int as n from app_public.content_template_versions v join app_public.content_templates c on c.id = v.template_id
        where c.code = 'instr-gad7-item1' and c.language_code = 'de'`,
    );
    expect(rows[0]!.n).toBe(2); // the earlier text stays restorable in the editor
  });
});

describe('PUT /api/wording (template editor)', () => {
  const file = () => ({
    instrument: 'gad7',
    locale: 'en',
    items: {
      item3: {
        text: 'Invented statement three',
        options: { 0: 'A', 1: 'B', 2: 'C', 3: 'D' },
      },
    },
  });

  it.each(['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor'] as const)('refuses a %s and stores nothing', async (flag) => {
    const before = await installed();
    const { token } = await t.user({ flags: [flag] });
    const response = await t.api('PUT', '/api/wording', {
      body: file(),
      token,
    });
    expect(response.status).toBe(403);
    expect(await installed()).toEqual(before);
  });

  it('refuses an anonymous caller', async () => {
    expect((await t.api('PUT', '/api/wording', { body: file() })).status).toBe(401);
  });

  it("checks a coordinator's file like the CLI does: 400 naming every problem, nothing stored", async () => {
    const before = await installed();
    const { token } = await t.user({ flags: ['coordinator'] });
    const response = await t.api('PUT', '/api/wording', {
      body: {
        ...file(),
        locale: 'fr',
        items: { item3: { text: 'x', options: { 0: 'A' } } },
      },
      token,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('wording_invalid');
    expect(response.body.message).toContain('Wrong locale "fr"');
    expect(response.body.message).toContain('Item "item3": missing option "1"');
    expect(await installed()).toEqual(before);
  });

  it("installs a coordinator's file, which the form reads at once", async () => {
    const { token } = await t.user({ flags: ['coordinator'] });
    const response = await t.api('PUT', '/api/wording', {
      body: file(),
      token,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      instrument: 'gad7',
      locale: 'en',
      stored: 5,
    });
    const en = await t.api('GET', '/api/wording/gad7?locale=en');
    expect(en.body.texts).toMatchObject({
      'instr-gad7-item3': 'Invented statement three',
      'instr-gad7-item3-o-0': 'A',
    });
  });
});

describe('single wording texts in the template editor (PUT /api/wording/text; GraphQL refused)', () => {
  let coordinator: Awaited<ReturnType<TestApp['user']>>;
  const item4 = { 'instr-gad7-item4': 'نص تجريبي أربعة', 'instr-gad7-item4-o-0': 'أ', 'instr-gad7-item4-o-1': 'ب', 'instr-gad7-item4-o-2': 'ج', 'instr-gad7-item4-o-3': 'د' };
  const saveText = (body: unknown, token?: string) => t.api('PUT', '/api/wording/text', { body, ...(token ? { token } : {}) });
  const templateId = async (code: string, locale: string) =>
    (await t.database.db.pool.query<{ id: string }>(`select id from app_public.content_templates where type = 'PAGE' and code = $1 and language_code = $2`, [code, locale])).rows[0]?.id;

  beforeAll(async () => {
    coordinator = await t.user({ flags: ['coordinator'] });
    const response = await t.api('PUT', '/api/wording', {
      body: { instrument: 'gad7', locale: 'ar', items: { item4: { text: item4['instr-gad7-item4'], options: { 0: 'أ', 1: 'ب', 2: 'ج', 3: 'د' } } } },
      token: coordinator.token,
    });
    expect(response.status).toBe(200);
  });

  it('saves one checked text as a new version, keeping the texts beside it', async () => {
    const response = await saveText({ code: 'instr-gad7-item4', locale: 'ar', content: 'نص معدّل' }, coordinator.token);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((await t.api('GET', '/api/wording/gad7?locale=ar')).body.texts).toEqual({ ...item4, 'instr-gad7-item4': 'نص معدّل' });
    const { rows } = await t.database.db.pool.query(`select count(*)::int as n from app_public.content_template_versions where template_id = $1`, [await templateId('instr-gad7-item4', 'ar')]);
    expect(rows[0].n).toBe(2);
  });

  it('refuses what the wording checker refuses, naming the problem, and stores nothing', async () => {
    const before = await installed();
    const cases: [unknown, string][] = [
      [{ code: 'instr-gad7-item5', locale: 'ar', content: 'بند بلا خيارات' }, 'Item "item5": missing option "0"'],
      [{ code: 'instr-gad7-item6-o-1', locale: 'ar', content: 'خيار بلا بند' }, 'Item "item6" "text": expected a non-empty text'],
      [{ code: 'instr-gad7-item4', locale: 'ar', content: '  ' }, 'expected a non-empty text'],
      [{ code: 'instr-gad7-item42', locale: 'ar', content: 'x' }, 'is not a text of any questionnaire'],
      [{ code: 'instr-gad7-title', locale: 'fr', content: 'Titre' }, 'Wrong locale "fr"'],
      [{ code: 'instr-gad7-title', locale: 'ar' }, 'wrong or missing: content'],
      [['not', 'an', 'object'], 'Send a JSON object'],
    ];
    for (const [body, problem] of cases) {
      const response = await saveText(body, coordinator.token);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.message).toContain(problem);
    }
    expect(await installed()).toEqual(before);
  });

  it('lets only coordinators save a text; others are refused and nothing changes', async () => {
    const before = await installed();
    const body = { code: 'instr-gad7-item4', locale: 'ar', content: 'ليس لك' };
    expect((await saveText(body)).status).toBe(401);
    for (const flag of ['patient', 'therapist', 'supervisor'] as const) {
      const { token } = await t.user({ flags: [flag] });
      expect((await saveText(body, token)).status, flag).toBe(403);
    }
    expect(await installed()).toEqual(before);
  });

  it('refuses the ordinary template mutations and version restore for wording; other pages still save', async () => {
    const before = await installed();
    const id = await templateId('instr-gad7-item4', 'ar');
    const update = await t.graphql(
      `mutation ($id: UUID!) { updateContentTemplateById(input: { id: $id, contentTemplatePatch: { content: "" } }) { contentTemplate { id } } }`,
      { id },
      coordinator.token,
    );
    expect(update.errors?.[0]?.message).toMatch(/Questionnaire wording \(instr-gad7-item4\) is saved through the questionnaire wording form/);
    const create = await t.graphql(
      `mutation { createContentTemplate(input: { contentTemplate: { type: "PAGE", code: "instr-gad7-item7", languageCode: "ar", title: "x", content: "بند" } }) { contentTemplate { id } } }`,
      {},
      coordinator.token,
    );
    expect(create.errors?.[0]?.message).toMatch(/Questionnaire wording/);
    const { rows: versions } = await t.database.db.pool.query<{ id: string }>(`select id from app_public.content_template_versions where template_id = $1 order by version`, [id]);
    const restore = await t.graphql(`mutation ($v: UUID!) { restoreContentTemplateVersion(input: { versionId: $v }) { contentTemplate { id } } }`, { v: versions[0]!.id }, coordinator.token);
    expect(restore.errors?.[0]?.message).toMatch(/Questionnaire wording/);
    const remove = await t.graphql(`mutation ($id: UUID!) { deleteContentTemplateById(input: { id: $id }) { contentTemplate { id } } }`, { id }, coordinator.token);
    expect(remove.errors?.[0]?.message).toMatch(/Questionnaire wording/);
    expect(await installed()).toEqual(before);
    const page = await t.graphql(
      `mutation { createContentTemplate(input: { contentTemplate: { type: "PAGE", code: "leaflet", languageCode: "ar", title: "نشرة", content: "نص" } }) { contentTemplate { code } } }`,
      {},
      coordinator.token,
    );
    expect(page.errors).toBeUndefined();
    expect(page.data.createContentTemplate.contentTemplate.code).toBe('leaflet');
  });
});
