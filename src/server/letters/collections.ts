/**
 * Letters (`/api/letters`) and letter templates (`/api/letter_templates`, read-only), spec §7.
 * A therapist starts a letter by posting a draft with a `template_id` and no `body`: the server
 * fills the template's placeholders (patient alias, therapist alias, date) from the database,
 * never from the client, and stores the result as the draft's body and subject. Editing,
 * sending (`published_at`) and immutability are the table's rules (0071).
 */
import { fillTemplate, PlaceholderError, type TemplatePeople, type TemplateText } from '../../domain/letter-templates';
import { defineCollection, RestError, type Row, type WriteContext } from '../rest';

/** Fills the chosen template for this case; a 400 that names the problem otherwise. */
async function startFromTemplate(row: Row, ctx: WriteContext): Promise<void> {
  const { rows: templates } = await ctx.sql.query<TemplateText>('select content, subject, language_code from app_public.letter_templates where id = $1', [row.template_id]);
  const template = templates[0];
  if (!template) throw new RestError(400, 'P0001', 'No letter template with this id', null, 'Choose one of /api/letter_templates.');
  const { rows: found } = await ctx.sql.query<TemplatePeople>(
    'select patient_alias, writer_alias as therapist_alias from app_hidden.letter_people($1)',
    [row.case_id],
  );
  const people = found[0];
  if (!people) throw new RestError(403, '42501', 'Only a therapist or counselor of the case writes its letters', null, null);
  try {
    const filled = fillTemplate(template, people, new Date());
    row.body = filled.body;
    row.subject = filled.subject ?? row.subject ?? null;
  } catch (error) {
    if (error instanceof PlaceholderError) throw new RestError(400, '23514', `The template cannot be filled: ${error.message}`, null, 'Correct the template in /admin/templates.');
    throw error;
  }
  row.language_code = template.language_code;
}

export const LETTERS = defineCollection({
  name: 'letters',
  table: 'app_public.letters',
  columns: {
    id: 'uuid', case_id: 'uuid', sender_id: 'uuid', template_id: 'uuid', language_code: 'text', subject: 'text', body: 'text',
    published_at: 'timestamptz', created_at: 'timestamptz', updated_at: 'timestamptz', out_of_arm_reason: 'text',
  },
  // out_of_arm_reason: why a letter from another arm's template goes to this case (issue 27, 0220).
  writable: ['id', 'case_id', 'template_id', 'language_code', 'subject', 'body', 'published_at', 'out_of_arm_reason'],
  conflictKey: ['id'],
  defaultOrder: [{ column: 'created_at', dir: 'desc' }, { column: 'id' }],
  methods: ['GET', 'POST', 'DELETE'],
  maxRows: 1000,
  async beforeWrite(row, ctx) {
    if (typeof row.template_id === 'string' && !Object.hasOwn(row, 'body')) await startFromTemplate(row, ctx);
  },
});

export const LETTER_TEMPLATES = defineCollection({
  name: 'letter_templates',
  table: 'app_public.letter_templates',
  methods: ['GET'],
  columns: {
    id: 'uuid', code: 'text', language_code: 'text', title: 'text', subject: 'text', description: 'text', content: 'text',
    treatment_code: 'text', reader_gender: 'text', writer_gender: 'text', updated_at: 'timestamptz',
  },
  defaultOrder: [{ column: 'code' }, { column: 'language_code' }, { column: 'id' }],
  maxRows: 1000,
});
