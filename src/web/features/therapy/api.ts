/**
 * The server calls of the worksheets (issue 14): the six worksheet collections and the
 * therapist's feedback, all through the REST layer (docs/REST.md). A draft is saved by upserting
 * its client-made id; sending posts the whole entry once more with `published_at` (the database
 * stamps its own time and refuses any later change).
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { assignmentStatus, WORKSHEET_CODES, type AssignmentStatus, type WorksheetCode } from '../../../domain/worksheets';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import type { InstrumentCode } from '../../../domain/instruments';
import { api } from '../../api/client';
import { measurementKeys } from '../measurements/api';
import { graphql, request, type ResultOf } from '../../api/graphql';

export interface WorksheetEntry {
  id: string;
  case_id: string;
  submitter_id: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export interface Feedback {
  id: string;
  case_id: string;
  worksheet: WorksheetCode;
  worksheet_id: string;
  author_id: string | null;
  body: string;
  /** `plain` text, or `markdown` (rendered through the sanitizing Markdown renderer). */
  format: 'plain' | 'markdown';
  published_at: string | null;
  created_at: string;
}

export interface CaseWorksheets {
  entries: Record<WorksheetCode, WorksheetEntry[]>;
  feedback: Feedback[];
}

export const therapyKeys = {
  all: ['therapy'] as const,
  case: (caseId: string) => ['therapy', 'case', caseId] as const,
  entry: (code: WorksheetCode, id: string) => ['therapy', 'entry', code, id] as const,
};

const UPSERT = { Prefer: 'resolution=merge-duplicates,return=representation' };

/** Every worksheet entry of a case the reader may see (RLS decides), with the feedback on them. */
export const caseWorksheetsQuery = (caseId: string) =>
  queryOptions({
    queryKey: therapyKeys.case(caseId),
    queryFn: async ({ signal }): Promise<CaseWorksheets> => {
      const [feedback, ...lists] = await Promise.all([
        api<Feedback[]>('GET', `/api/worksheet_feedback?case_id=eq.${caseId}&order=created_at`, { signal }),
        ...WORKSHEET_CODES.map((code) => api<WorksheetEntry[]>('GET', `/api/${code}?case_id=eq.${caseId}&order=created_at.desc`, { signal })),
      ]);
      return { feedback, entries: Object.fromEntries(WORKSHEET_CODES.map((code, i) => [code, lists[i] ?? []])) as Record<WorksheetCode, WorksheetEntry[]> };
    },
  });

/** Each worksheet's entries with whether sent feedback answers them (what the states are made of). */
export function entriesWithFeedback(data: CaseWorksheets): Record<WorksheetCode, { published_at: string | null; has_feedback: boolean }[]> {
  const answered = new Set(data.feedback.filter((f) => f.published_at).map((f) => f.worksheet_id));
  return Object.fromEntries(
    WORKSHEET_CODES.map((code) => [code, data.entries[code].map((e) => ({ published_at: e.published_at, has_feedback: answered.has(e.id) }))]),
  ) as Record<WorksheetCode, { published_at: string | null; has_feedback: boolean }[]>;
}

/**
 * The worksheets the treatment assigned as tasks (workflows/treatment-modules.bpmn): one task
 * per worksheet, its business key the worksheet code; sending the worksheet completes it.
 */
export const WorksheetTasks = graphql(`
  query WorksheetTasks($caseId: UUID!) {
    allWorkflowTasksList(condition: { caseId: $caseId, taskDefinitionKey: "worksheetTask" }, orderBy: [DUE_ASC]) {
      id due endTime deleteReason
      workflowInstanceByProcessInstanceId { definitionKey businessKey }
    }
  }
`);

export interface WorksheetTask {
  id: string;
  worksheet: WorksheetCode;
  due: string | null;
  done: boolean;
  /** Due, overdue, done (sent), or ended unsent (dropout, the treatment ended, cancelled). */
  status: AssignmentStatus;
}

export const worksheetTasksQuery = (caseId: string) =>
  queryOptions({
    queryKey: [...therapyKeys.case(caseId), 'tasks'] as const,
    queryFn: async (): Promise<WorksheetTask[]> => {
      const data = await request(WorksheetTasks, { caseId });
      const tasks: WorksheetTask[] = [];
      for (const task of data.allWorkflowTasksList ?? []) {
        const instance = task.workflowInstanceByProcessInstanceId;
        const worksheet = instance?.businessKey;
        if (instance?.definitionKey !== 'treatment-modules' || !(WORKSHEET_CODES as readonly string[]).includes(worksheet ?? '')) continue;
        const status = assignmentStatus({ due: task.due ?? null, endTime: task.endTime ?? null, deleteReason: task.deleteReason ?? null }, new Date());
        tasks.push({ id: task.id, worksheet: worksheet as WorksheetCode, due: task.due ?? null, done: status === 'done', status });
      }
      return tasks;
    },
  });

/** One entry, or null when it does not exist yet (a new draft not saved so far). */
export async function loadEntry(code: WorksheetCode, id: string): Promise<WorksheetEntry | null> {
  const rows = await api<WorksheetEntry[]>('GET', `/api/${code}?id=eq.${id}`);
  return rows[0] ?? null;
}

/** Saves changed fields of a draft (creating it on the first save). */
export async function saveDraft(code: WorksheetCode, id: string, caseId: string, changes: AnswerChanges): Promise<void> {
  const rows = await api<unknown[]>('POST', `/api/${code}`, { body: { id, case_id: caseId, ...changes }, headers: UPSERT });
  if (rows.length !== 1) throw new Error('Expected exactly one result'); // spec §5
}

/** Sends the entry: it is part of the record from now on. */
export async function sendEntry(code: WorksheetCode, id: string, caseId: string, values: AnswerChanges): Promise<void> {
  const rows = await api<unknown[]>('POST', `/api/${code}`, {
    body: { ...values, id, case_id: caseId, published_at: new Date().toISOString() },
    headers: UPSERT,
  });
  if (rows.length !== 1) throw new Error('Expected exactly one result');
}

export async function deleteDraft(code: WorksheetCode, id: string): Promise<void> {
  await api('DELETE', `/api/${code}?id=eq.${id}&published_at=is.null`);
}

/** Saves (or, with `send`, sends) the therapist's feedback on one sent entry. */
export async function saveFeedback(feedback: Pick<Feedback, 'id' | 'case_id' | 'worksheet' | 'worksheet_id' | 'body'>, send: boolean): Promise<void> {
  const rows = await api<unknown[]>('POST', '/api/worksheet_feedback', {
    body: { ...feedback, format: 'plain', ...(send ? { published_at: new Date().toISOString() } : {}) },
    headers: UPSERT,
  });
  if (rows.length !== 1) throw new Error('Expected exactly one result');
}

/** After any worksheet or feedback change: the case's worksheets. */
export const refetchAfterWorksheet = (client: QueryClient, caseId: string) => client.invalidateQueries({ queryKey: therapyKeys.case(caseId) });

export interface Letter {
  id: string;
  case_id: string;
  sender_id: string | null;
  template_id: string | null;
  language_code: string;
  subject: string | null;
  body: string;
  published_at: string | null;
  created_at: string;
}

export interface LetterTemplate {
  id: string;
  code: string;
  language_code: string;
  title: string;
  treatment_code: string | null;
  reader_gender: string | null;
  writer_gender: string | null;
}

export const letterKeys = {
  case: (caseId: string) => ['therapy', 'letters', caseId] as const,
  templates: ['therapy', 'letterTemplates'] as const,
};

/** The letters of a case the reader may see: sent ones, and their own drafts. */
export const caseLettersQuery = (caseId: string) =>
  queryOptions({
    queryKey: letterKeys.case(caseId),
    queryFn: ({ signal }) => api<Letter[]>('GET', `/api/letters?case_id=eq.${caseId}&order=created_at.desc`, { signal }),
  });

export const letterTemplatesQuery = () =>
  queryOptions({
    queryKey: letterKeys.templates,
    queryFn: ({ signal }) =>
      api<LetterTemplate[]>('GET', '/api/letter_templates?select=id,code,language_code,title,treatment_code,reader_gender,writer_gender', { signal }),
  });

/** Starts a draft from a template; the server fills the placeholders. */
export async function startLetter(caseId: string, templateId: string): Promise<Letter> {
  const rows = await api<Letter[]>('POST', '/api/letters', { body: { id: crypto.randomUUID(), case_id: caseId, template_id: templateId }, headers: UPSERT });
  if (rows.length !== 1) throw new Error('Expected exactly one result');
  return rows[0]!;
}

/** Saves the draft's text, or with `send` sends it (then it can no longer change). */
export async function saveLetter(letter: Pick<Letter, 'id' | 'case_id' | 'subject' | 'body'>, send: boolean, outOfArmReason?: string): Promise<void> {
  const rows = await api<unknown[]>('POST', '/api/letters', {
    body: { ...letter, ...(send ? { published_at: new Date().toISOString() } : {}), ...(outOfArmReason ? { out_of_arm_reason: outOfArmReason } : {}) },
    headers: UPSERT,
  });
  if (rows.length !== 1) throw new Error('Expected exactly one result');
}

export const refetchAfterLetter = (client: QueryClient, caseId: string) => client.invalidateQueries({ queryKey: letterKeys.case(caseId) });

// The template editor (/admin/templates, coordinators): content templates through GraphQL.

export const TemplateFields = graphql(`
  fragment TemplateFields on ContentTemplate {
    id type code languageCode title subject content description treatmentCode readerGender writerGender updatedAt
  }
`);
export type ContentTemplate = ResultOf<typeof TemplateFields>;

export const AllContentTemplates = graphql(
  `query AllContentTemplates { allContentTemplatesList(orderBy: [TYPE_ASC, CODE_ASC, LANGUAGE_CODE_ASC]) { ...TemplateFields } }`,
  [TemplateFields],
);
export const ContentTemplateVersions = graphql(`
  query ContentTemplateVersions($id: UUID!) {
    contentTemplateById(id: $id) { id contentTemplateVersionsByTemplateIdList(orderBy: VERSION_DESC) { id version title content savedAt } }
  }
`);
export const CreateContentTemplate = graphql(
  `mutation CreateContentTemplate($t: ContentTemplateInput!) { createContentTemplate(input: { contentTemplate: $t }) { contentTemplate { ...TemplateFields } } }`,
  [TemplateFields],
);
export const UpdateContentTemplateById = graphql(
  `mutation UpdateContentTemplateById($id: UUID!, $patch: ContentTemplatePatch!) { updateContentTemplateById(input: { id: $id, contentTemplatePatch: $patch }) { contentTemplate { ...TemplateFields } } }`,
  [TemplateFields],
);
export const RestoreContentTemplateVersion = graphql(
  `mutation RestoreContentTemplateVersion($versionId: UUID!) { restoreContentTemplateVersion(input: { versionId: $versionId }) { contentTemplate { ...TemplateFields } } }`,
  [TemplateFields],
);

export const templateKeys = {
  all: ['therapy', 'templates'] as const,
  versions: (id: string) => ['therapy', 'templates', 'versions', id] as const,
};

export const contentTemplatesQuery = () =>
  queryOptions({ queryKey: templateKeys.all, queryFn: async () => (await request(AllContentTemplates, {})).allContentTemplatesList ?? [] });

export const templateVersionsQuery = (id: string) =>
  queryOptions({
    queryKey: templateKeys.versions(id),
    queryFn: async () => (await request(ContentTemplateVersions, { id })).contentTemplateById?.contentTemplateVersionsByTemplateIdList ?? [],
  });

export interface TemplateDraft {
  type: string;
  code: string;
  languageCode: string;
  title: string;
  subject: string;
  content: string;
  treatmentCode: string;
  readerGender: string;
  writerGender: string;
}

type Gender = 'FEMALE' | 'MALE' | 'DIVERSE';
const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

/** Saves a template (creates it without an id); the database keeps the previous text as a version. */
export async function saveTemplate(id: string | null, draft: TemplateDraft): Promise<ContentTemplate> {
  const common = {
    title: draft.title,
    subject: orNull(draft.subject),
    content: draft.content,
    treatmentCode: orNull(draft.treatmentCode),
    readerGender: orNull(draft.readerGender) as Gender | null,
    writerGender: orNull(draft.writerGender) as Gender | null,
  };
  if (id) {
    const data = await request(UpdateContentTemplateById, { id, patch: common });
    const saved = data.updateContentTemplateById?.contentTemplate;
    if (!saved) throw new Error('Expected exactly one result');
    return saved;
  }
  const data = await request(CreateContentTemplate, { t: { ...common, type: draft.type, code: draft.code, languageCode: draft.languageCode } });
  const saved = data.createContentTemplate?.contentTemplate;
  if (!saved) throw new Error('Expected exactly one result');
  return saved;
}

export async function restoreVersion(versionId: string): Promise<ContentTemplate> {
  const data = await request(RestoreContentTemplateVersion, { versionId });
  const restored = data.restoreContentTemplateVersion?.contentTemplate;
  if (!restored) throw new Error('Expected exactly one result');
  return restored;
}

/** After saving or restoring: the list and that template's versions. */
export const refetchAfterTemplate = (client: QueryClient) => client.invalidateQueries({ queryKey: templateKeys.all });

/** A questionnaire wording file (docs/WORDING.md), as the template editor sends it. */
export interface WordingFile {
  instrument: InstrumentCode;
  locale: string;
  title?: string;
  instructions?: string;
  items: Record<string, { text: string; options?: Record<string, string> }>;
}

/** Installs one wording file; the server checks it like `import-wording` and stores all or none. */
export async function installWording(file: WordingFile): Promise<{ stored: number }> {
  return api<{ stored: number }>('PUT', '/api/wording', { body: file });
}

/** Saves one wording text (an `instr-…` page text) through the server's wording check. */
export async function saveWordingText(text: { code: string; locale: string; content: string }): Promise<{ id: string }> {
  return api<{ id: string }>('PUT', '/api/wording/text', { body: text });
}

/** After wording is installed: the texts the editor and the forms show for it, and the template list (its page texts). */
export const refetchAfterWording = (client: QueryClient, code: InstrumentCode, locale: string) =>
  Promise.all([client.invalidateQueries({ queryKey: measurementKeys.wording(code, locale) }), client.invalidateQueries({ queryKey: templateKeys.all })]);
