/**
 * Issue 14 item 5, /downloads: who may list, download, upload and delete (anonymous, patient,
 * staff, coordinator); refused uploads (too large, wrong magic bytes, unknown language, no
 * title) answer 4xx with a clear message and store nothing; the download's safe headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
const tokens: Record<string, string | undefined> = { anonymous: undefined };
// Above BODY_LIMIT_BYTES (256 KB) on purpose: the upload route has its own limit.
const MAX = 512 * 1024;

// A real 1×1 PNG and the start of a PDF; only the signatures matter to the server.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

async function upload(who: string, query: Record<string, string>, body: Buffer, contentType = 'application/octet-stream') {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (tokens[who]) headers.authorization = `Bearer ${tokens[who]}`;
  const response = await fetch(`${t.url}/api/downloads?${new URLSearchParams(query)}`, { method: 'POST', headers, body: new Uint8Array(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
async function download(who: string, id: string) {
  const headers: Record<string, string> = tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {};
  const response = await fetch(`${t.url}/api/downloads/${id}/file`, {
    headers,
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}
const count = async () => Number((await t.database.db.pool.query('select count(*) from app_public.download_documents')).rows[0].count);

beforeAll(async () => {
  t = await startTestApp({ DOWNLOAD_MAX_BYTES: String(MAX) });
  tokens.patient = (await t.user({ flags: ['patient'] })).token;
  tokens.staff = (
    await t.user({
      flags: ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor'],
    })
  ).token;
  tokens.coordinator = (await t.user({ flags: ['coordinator'] })).token;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('downloads', () => {
  let docId: string;

  it('a coordinator uploads a PNG in German: the type comes from the bytes, not the header', async () => {
    const answer = await upload(
      'coordinator',
      {
        locale: 'de',
        title: 'Merkblatt',
        fileName: 'C:\\tmp\\Merkblatt ä.png',
      },
      PNG,
      'application/pdf',
    );
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      contentType: 'image/png',
      sizeBytes: PNG.length,
    });
    docId = answer.body.id;
    const row = (await t.database.db.pool.query('select * from app_public.download_documents where id = $1', [docId])).rows[0];
    expect(row).toMatchObject({
      locale: 'de',
      title: 'Merkblatt',
      file_name: 'Merkblatt ä.png',
      content_type: 'image/png',
      size_bytes: PNG.length,
    });
    expect(Buffer.compare(row.content, PNG)).toBe(0);
    expect(row.uploaded_by).not.toBeNull();
  });

  it('a file larger than BODY_LIMIT_BYTES but within DOWNLOAD_MAX_BYTES is accepted', async () => {
    expect(t.config.bodyLimitBytes).toBeLessThan(300 * 1024);
    const big = Buffer.concat([PDF, Buffer.alloc(300 * 1024, 0x20)]);
    const answer = await upload('coordinator', { locale: 'en', title: 'Long guide', fileName: 'guide.pdf' }, big);
    expect(answer.status).toBe(201);
    expect(answer.body.sizeBytes).toBe(big.length);
    expect((await t.api('DELETE', `/api/downloads/${answer.body.id}`, { token: tokens.coordinator })).status).toBe(204);
  });

  it.each(['patient', 'staff', 'anonymous'])('%s may not upload: nothing is stored', async (who) => {
    const before = await count();
    const answer = await upload(who, { locale: 'ar', title: 'x', fileName: 'x.pdf' }, PDF);
    expect(answer.status).toBe(who === 'anonymous' ? 401 : 403);
    expect(answer.body.message).toMatch(who === 'anonymous' ? /sign in/ : /Only coordinators/);
    expect(await count()).toBe(before);
  });

  it.each([
    ['too large', { locale: 'ar', title: 'Big', fileName: 'big.pdf' }, Buffer.concat([PDF, Buffer.alloc(MAX)]), 413, /too large: at most/],
    ['wrong magic bytes', { locale: 'ar', title: 'Page', fileName: 'page.pdf' }, Buffer.from('<html><script>alert(1)</script>'), 400, /Only PDF, PNG, JPEG and WebP/],
    ['unknown locale', { locale: 'fr', title: 'Guide', fileName: 'guide.pdf' }, PDF, 400, /Unknown language "fr"/],
    ['no locale', { title: 'Guide', fileName: 'guide.pdf' }, PDF, 400, /Say the document's language/],
    ['no title', { locale: 'ar', title: '  ', fileName: 'guide.pdf' }, PDF, 400, /title/],
    ['no file name', { locale: 'ar', title: 'Guide', fileName: '../' }, PDF, 400, /file name/],
    ['empty body', { locale: 'ar', title: 'Guide', fileName: 'guide.pdf' }, Buffer.alloc(0), 400, /file itself/],
  ] as const)('a refused upload (%s) answers 4xx with a clear message and stores nothing', async (_what, query, body, status, message) => {
    const before = await count();
    const answer = await upload('coordinator', query as Record<string, string>, body);
    expect(answer.status).toBe(status);
    expect(answer.body.message).toMatch(message);
    expect(await count()).toBe(before);
  });

  it('the table itself refuses bytes that disagree with the type, even from its owner', async () => {
    await expect(
      t.database.db.pool.query(
        `insert into app_public.download_documents (locale, title, file_name, content_type, content) values ('de', 'x', 'x.pdf', 'application/pdf', '\\x3c68746d6c3e')`,
      ),
    ).rejects.toThrow(/download_type_matches_content/);
  });

  it.each(['patient', 'staff', 'coordinator'])('%s lists the documents of a language and downloads with safe headers', async (who) => {
    const list = await t.api('GET', '/api/downloads?locale=de', {
      token: tokens[who],
    });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({
        id: docId,
        title: 'Merkblatt',
        fileName: 'Merkblatt ä.png',
        contentType: 'image/png',
        sizeBytes: PNG.length,
      }),
    ]);
    expect((await t.api('GET', '/api/downloads?locale=ar', { token: tokens[who] })).body).toEqual([]);

    const file = await download(who, docId);
    expect(file.status).toBe(200);
    expect(Buffer.compare(file.bytes, PNG)).toBe(0);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="Merkblatt _.png"; filename*=UTF-8''Merkblatt%20%C3%A4.png`);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('cache-control')).toMatch(/^private/);
  });

  it('anonymous may neither list nor download', async () => {
    expect((await t.api('GET', '/api/downloads?locale=de')).status).toBe(401);
    expect((await download('anonymous', docId)).status).toBe(401);
  });

  it('a list with an unknown language, or an unknown document, is a clear 4xx', async () => {
    const list = await t.api('GET', '/api/downloads?locale=xx', {
      token: tokens.patient,
    });
    expect(list.status).toBe(400);
    expect(list.body.message).toMatch(/Unknown language/);
    expect((await download('patient', '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await download('patient', 'nope')).status).toBe(404);
  });

  it.each(['anonymous', 'patient', 'staff'])('%s may not delete: the document stays', async (who) => {
    const answer = await t.api('DELETE', `/api/downloads/${docId}`, {
      token: tokens[who],
    });
    expect(answer.status).toBe(who === 'anonymous' ? 401 : 403);
    expect((await download('coordinator', docId)).status).toBe(200);
  });

  it('a coordinator deletes; deleting again is a 404', async () => {
    const pdf = await upload('coordinator', { locale: 'ar', title: 'دليل', fileName: 'دليل.pdf' }, PDF, 'application/pdf');
    expect(pdf.status).toBe(201);
    expect(
      (
        await t.api('DELETE', `/api/downloads/${docId}`, {
          token: tokens.coordinator,
        })
      ).status,
    ).toBe(204);
    expect((await download('patient', docId)).status).toBe(404);
    expect(
      (
        await t.api('DELETE', `/api/downloads/${docId}`, {
          token: tokens.coordinator,
        })
      ).status,
    ).toBe(404);
    const all = await t.api('GET', '/api/downloads', {
      token: tokens.coordinator,
    });
    expect(all.body.map((d: { title: string }) => d.title)).toEqual(['دليل']);
  });
});
