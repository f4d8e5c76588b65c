/**
 * Message templates in the case message composer (issue 14): staff of a case list the MESSAGE
 * templates that fit it and have one filled for it, then edit and send the text as any message.
 *
 *   GET /api/cases/:caseId/message-templates          the codes that have a variant for the case
 *   GET /api/cases/:caseId/message-templates/:code    that template filled for the case and writer
 *
 * The variant is chosen as letters choose theirs (`chooseVariant`: the patient's language, the
 * case's treatment, the reader's and the writer's gender); the placeholders are filled like a
 * letter's (`fillTemplate`) from app_hidden.message_template_people (migration 0086), which
 * answers only for a staff member of the case, so the patient of the case, other patients,
 * staff outside it and coordinators who are not members are refused. Nothing is stored.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { chooseVariant, fillTemplate, PlaceholderError, type Gender, type TemplateVariant } from '../../domain/letter-templates';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, notFound, unauthorized } from '../http/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CODE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The patient fields are empty while the case has no patient. */
interface People {
  patient_alias: string | null;
  patient_gender: Gender | null;
  patient_locale: string | null;
  writer_alias: string;
  writer_gender: Gender | null;
  treatment_code: string | null;
}

interface MessageTemplateRow extends TemplateVariant {
  code: string;
  title: string;
  subject: string | null;
  content: string;
}

export interface MessageTemplateChoice {
  code: string;
  title: string;
}

export interface FilledMessage {
  code: string;
  templateId: string;
  language: string;
  subject: string | null;
  body: string;
}

/** The people and the case's templates, or a 403 for anyone but the care team of the case. */
async function caseTemplates(sql: Sql, caseId: string): Promise<{ people: People; templates: MessageTemplateRow[] }> {
  const { rows } = await sql.query<People>('select * from app_hidden.message_template_people($1)', [caseId]);
  const people = rows[0];
  if (!people) throw forbidden('not_case_staff', 'Only the care team of this case may use message templates in it.');
  const { rows: templates } = await sql.query<MessageTemplateRow>('select * from app_hidden.case_message_templates($1)', [caseId]);
  return { people, templates };
}

/** The best variant of each code for this case (spec §3: language, treatment code, genders). */
function bestVariants(people: People, templates: readonly MessageTemplateRow[]): Map<string, MessageTemplateRow> {
  if (people.patient_locale === null) return new Map();
  const wanted = { language: people.patient_locale, treatmentCode: people.treatment_code, readerGender: people.patient_gender, writerGender: people.writer_gender };
  const byCode = new Map<string, MessageTemplateRow[]>();
  for (const template of templates) byCode.set(template.code, [...(byCode.get(template.code) ?? []), template]);
  const best = new Map<string, MessageTemplateRow>();
  for (const [code, variants] of byCode) {
    const chosen = chooseVariant(variants, wanted);
    if (chosen) best.set(code, chosen);
  }
  return best;
}

/** The message templates a staff member may insert in this case, by code. */
export async function listMessageTemplates(sql: Sql, caseId: string): Promise<{ language: string | null; templates: MessageTemplateChoice[] }> {
  const { people, templates } = await caseTemplates(sql, caseId);
  const best = bestVariants(people, templates);
  return { language: people.patient_locale, templates: [...best.values()].map((t) => ({ code: t.code, title: t.title })) };
}

/** One message template filled for this case and writer; 404 without a fitting variant. */
export async function renderMessageTemplate(sql: Sql, caseId: string, code: string, now: Date): Promise<FilledMessage> {
  const { people, templates } = await caseTemplates(sql, caseId);
  const template = bestVariants(people, templates).get(code);
  if (!template) {
    if (people.patient_locale === null) throw notFound('message_template_not_found', 'This case has no patient yet, so no message template can be filled.');
    throw notFound('message_template_not_found', `There is no message template "${code}" in the patient's language (${people.patient_locale}) for this case.`);
  }
  try {
    const filled = fillTemplate(template, { patient_alias: people.patient_alias ?? '', therapist_alias: people.writer_alias }, now);
    return { code, templateId: template.id, language: template.language_code, ...filled };
  } catch (error) {
    if (error instanceof PlaceholderError) throw badRequest('template_unfillable', `The template cannot be filled: ${error.message}. Correct it in /admin/templates.`);
    throw error;
  }
}

function caseIdOf(request: FastifyRequest<{ Params: { caseId: string } }>): string {
  const { caseId } = request.params;
  if (!UUID.test(caseId)) throw badRequest('invalid_case_id', 'The case id must be a UUID.');
  return caseId;
}

function signedIn(request: FastifyRequest): void {
  if (request.identity.userId === null) throw unauthorized('sign_in_required', 'Please sign in first.');
}

export function registerMessageTemplateRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Params: { caseId: string } }>('/api/cases/:caseId/message-templates', async (request) => {
    signedIn(request);
    const caseId = caseIdOf(request);
    return withUser(pool, request.identity, (sql) => listMessageTemplates(sql, caseId));
  });

  app.get<{ Params: { caseId: string; code: string } }>('/api/cases/:caseId/message-templates/:code', async (request, reply) => {
    signedIn(request);
    const caseId = caseIdOf(request);
    const { code } = request.params;
    if (!CODE.test(code)) throw badRequest('invalid_template_code', 'A template code starts with a letter and holds letters, digits, "_" and "-" (at most 64).');
    const filled = await withUser(pool, request.identity, (sql) => renderMessageTemplate(sql, caseId, code, new Date()));
    // The text names the patient: no cache may keep it.
    void reply.header('cache-control', 'no-store');
    return filled;
  });
}
