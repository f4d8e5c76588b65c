/**
 * The treatment's worksheets (spec §3 "Exercises"): one collection each, their fields, and the
 * field a worksheet must have before it can be sent (the database checks the same rule in each
 * table's `sent_is_filled` constraint). Shared by the REST registry and the patient's forms.
 */

export const WORKSHEET_CODES = ['cbt_thoughts', 'cbt_reframings', 'cbt_activities', 'ipt_conflicts', 'ipt_relationships', 'ipt_situations'] as const;
export type WorksheetCode = (typeof WORKSHEET_CODES)[number];

/** Thinking traps offered on the thought record (the `cognitive_biases` check of cbt_thoughts). */
export const COGNITIVE_BIASES = [
  'all_or_nothing', 'overgeneralization', 'mental_filter', 'discounting_positive', 'mind_reading', 'fortune_telling',
  'catastrophizing', 'emotional_reasoning', 'should_statements', 'labeling', 'personalization',
] as const;

export type WorksheetField =
  | { name: string; kind: 'text'; maxLength: number }
  | { name: string; kind: 'scale'; min: number; max: number }
  | { name: string; kind: 'choices'; options: readonly string[] };

export interface WorksheetDefinition {
  code: WorksheetCode;
  /** 'cbt' or 'ipt': which treatment the worksheet belongs to. */
  treatment: 'cbt' | 'ipt';
  fields: readonly WorksheetField[];
  /** Must be filled before sending. */
  required: string;
}

const text = (name: string, maxLength = 10000): WorksheetField => ({ name, kind: 'text', maxLength });

export const WORKSHEETS: Record<WorksheetCode, WorksheetDefinition> = {
  cbt_thoughts: {
    code: 'cbt_thoughts', treatment: 'cbt', required: 'automatic_thought',
    fields: [text('situation'), text('automatic_thought'), { name: 'cognitive_biases', kind: 'choices', options: COGNITIVE_BIASES }, text('alternative_thought')],
  },
  cbt_reframings: { code: 'cbt_reframings', treatment: 'cbt', required: 'negative_thought', fields: [text('negative_thought'), text('healthy_thought')] },
  cbt_activities: { code: 'cbt_activities', treatment: 'cbt', required: 'activities', fields: [text('activities')] },
  ipt_conflicts: {
    code: 'ipt_conflicts', treatment: 'ipt', required: 'conflict',
    fields: [text('conflict'), text('need_or_aim'), { name: 'importance', kind: 'scale', min: 0, max: 10 }],
  },
  ipt_relationships: { code: 'ipt_relationships', treatment: 'ipt', required: 'need_or_expectation', fields: [text('person', 300), text('need_or_expectation'), text('barrier')] },
  ipt_situations: { code: 'ipt_situations', treatment: 'ipt', required: 'situation', fields: [text('situation'), text('barrier'), text('alternative_strategy'), text('result')] },
};

export function isWorksheetCode(value: unknown): value is WorksheetCode {
  return typeof value === 'string' && (WORKSHEET_CODES as readonly string[]).includes(value);
}

/** Is the draft filled enough to be sent? Mirrors the database's `sent_is_filled`. */
export function isReadyToSend(definition: WorksheetDefinition, values: Record<string, unknown>): boolean {
  const value = values[definition.required];
  return typeof value === 'string' && value.trim().length > 0;
}

export type WorksheetState = 'todo' | 'draft' | 'sent' | 'feedback';

/** The state /all-exercises shows for a worksheet from its entries and the feedback on them. */
export function worksheetState(entries: readonly { published_at: string | null; has_feedback?: boolean }[]): WorksheetState {
  if (entries.some((e) => e.published_at !== null && e.has_feedback)) return 'feedback';
  if (entries.some((e) => e.published_at !== null)) return 'sent';
  if (entries.length > 0) return 'draft';
  return 'todo';
}

/**
 * A worksheet as the care team sees it in a case: they read sent entries only (a draft is the
 * patient's own, RLS), so "not sent yet" says nothing about drafts; otherwise whether a sent
 * entry still waits for feedback, or every sent entry has it.
 */
export type StaffWorksheetState = 'notSent' | 'awaitingFeedback' | 'feedbackGiven';

export function staffWorksheetState(entries: readonly { published_at: string | null; has_feedback?: boolean }[]): StaffWorksheetState {
  const sent = entries.filter((e) => e.published_at !== null);
  if (sent.length === 0) return 'notSent';
  return sent.some((e) => !e.has_feedback) ? 'awaitingFeedback' : 'feedbackGiven';
}

/** Where a worksheet the treatment assigned stands: due, overdue, done (sent), or ended unsent. */
export type AssignmentStatus = 'due' | 'overdue' | 'done' | 'ended';

export function assignmentStatus(task: { due: string | null; endTime: string | null; deleteReason: string | null }, now: Date): AssignmentStatus {
  if (task.endTime) return task.deleteReason === 'completed' ? 'done' : 'ended';
  return task.due && new Date(task.due).getTime() < now.getTime() ? 'overdue' : 'due';
}
