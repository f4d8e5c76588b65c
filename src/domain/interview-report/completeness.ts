/**
 * How complete a report is, section by section: the screen shows the progress, and signing a
 * report with a whole section left empty needs a written reason (the server checks the same).
 * Only fields the interviewer fills count (derived results and optional result details do not).
 */
import { INPUT_FIELDS, REPORT_SECTIONS, type ReportSection } from './definition';
import type { ReportValue, ReportValues } from './validation';

type ReportValuesLike = ReportValues;

/** An answer counts when it holds something: not null, not empty text, not an empty list. */
export function isAnswered(value: ReportValue | undefined): boolean {
  return value !== null && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/** Answered and counted fields of one section. */
export function sectionProgress(values: ReportValuesLike, section: ReportSection): { done: number; total: number } {
  const fields = INPUT_FIELDS.filter((f) => f.section === section && f.counted);
  return { done: fields.filter((f) => isAnswered(values[f.id])).length, total: fields.length };
}

/** The sections in which not one counted field is answered, in the report's order. */
export function emptySections(values: ReportValuesLike): ReportSection[] {
  return REPORT_SECTIONS.filter((section) => {
    const { done, total } = sectionProgress(values, section);
    return total > 0 && done === 0;
  });
}
