/**
 * Issue 14, the template editor's rules at the database: every saved version is kept, a
 * coordinator restores an earlier one (as a new version), others cannot; a letter template with
 * an unknown placeholder is refused with a message naming it and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LETTER_PLACEHOLDERS } from '../../src/domain/letter-templates';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let coordinator: string, therapist: string, patient: string;

const CREATE = `mutation($t: ContentTemplateInput!) { createContentTemplate(input: { contentTemplate: $t }) { contentTemplate { id } } }`;
const UPDATE = `mutation($id: UUID!, $p: ContentTemplatePatch!) { updateContentTemplateById(input: { id: $id, contentTemplatePatch: $p }) { contentTemplate { id content } } }`;
const VERSIONS = `query($id: UUID!) { contentTemplateById(id: $id) { contentTemplateVersionsByTemplateIdList(orderBy: VERSION_ASC) { id version content } } }`;
const RESTORE = `mutation($v: UUID!) { restoreContentTemplateVersion(input: { versionId: $v }) { contentTemplate { id content } } }`;

beforeAll(async () => {
  t = await startTestApp();
  coordinator = (await t.user({ flags: ['coordinator'] })).token;
  therapist = (await t.user({ flags: ['therapist'] })).token;
  patient = (await t.user({ flags: ['patient'] })).token;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('content template versions', () => {
  it('keeps every saved version and restores an earlier one as the newest', async () => {
    const created = await t.graphql(CREATE, { t: { type: 'LETTER', code: 'v1', languageCode: 'ar', title: 'رسالة', content: 'مرحبًا {{patient_alias}}' } }, coordinator);
    expect(created.errors).toBeUndefined();
    const id = created.data.createContentTemplate.contentTemplate.id;
    expect((await t.graphql(UPDATE, { id, p: { content: 'أهلًا {{patient_alias}}' } }, coordinator)).errors).toBeUndefined();
    const versions = (await t.graphql(VERSIONS, { id }, coordinator)).data.contentTemplateById.contentTemplateVersionsByTemplateIdList;
    expect(versions.map((v: { version: number; content: string }) => [v.version, v.content])).toEqual([[1, 'مرحبًا {{patient_alias}}'], [2, 'أهلًا {{patient_alias}}']]);

    for (const token of [therapist, patient]) {
      const refused = await t.graphql(RESTORE, { v: versions[0].id }, token);
      expect(refused.errors?.[0]?.message).toMatch(/No such version|permission/);
    }
    const restored = await t.graphql(RESTORE, { v: versions[0].id }, coordinator);
    expect(restored.errors).toBeUndefined();
    expect(restored.data.restoreContentTemplateVersion.contentTemplate.content).toBe('مرحبًا {{patient_alias}}');
    const after = (await t.graphql(VERSIONS, { id }, coordinator)).data.contentTemplateById.contentTemplateVersionsByTemplateIdList;
    expect(after.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    // staff other than coordinators see no versions
    const staffView = await t.graphql(VERSIONS, { id }, therapist);
    expect(staffView.data.contentTemplateById.contentTemplateVersionsByTemplateIdList).toEqual([]);
  });

  it('refuses a letter template with an unknown placeholder, naming it; nothing is stored', async () => {
    const answer = await t.graphql(CREATE, { t: { type: 'LETTER', code: 'bad', languageCode: 'de', title: 'Bad', content: 'Hallo {{patient_alias}} {{shoe_size}}' } }, coordinator);
    expect(answer.errors?.[0]?.message).toMatch(/Unknown placeholder\(s\) shoe_size: use only \{\{patient_alias\}\}, \{\{therapist_alias\}\}, \{\{date\}\}/);
    const { rows } = await t.database.db.pool.query(`select 1 from app_public.content_templates where code = 'bad'`);
    expect(rows).toEqual([]);
  });

  it('the database knows the same placeholders as the server', async () => {
    const { rows } = await withOwner(t.database.db.pool, (sql) => sql.query<{ names: string[] }>('select app_hidden.letter_placeholders() as names'));
    expect(rows[0]!.names).toEqual([...LETTER_PLACEHOLDERS]);
  });
});
