import { describe, expect, it } from 'vitest';
import { CaseReads, caseIdsIn, recordKindOf } from './access-log';

const A = '0b6b6c3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const B = '1b6b6c3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f';

describe('recordKindOf', () => {
  it.each([
    ['interview_reports', 'interviewReports'],
    ['InterviewReportVersion', 'interviewReports'],
    ['FeedbackInterviewReport', 'interviewReports'],
    ['CaseMember', 'members'],
    ['Case', 'case'],
    ['MyMessage', 'messages'],
    ['CaseSuicideCall', 'safety'],
    ['CbtThought', 'worksheets'],
    ['my_task_log', 'tasks'],
    ['TreatmentAssignment', 'trial'],
    ['AuditLog', 'auditLog'],
    ['something_else', 'records'],
  ])('%s is %s', (name, kind) => {
    expect(recordKindOf(name)).toBe(kind);
  });
});

describe('CaseReads', () => {
  it('keeps one list per kind, without repeats, and drops what is no UUID', () => {
    const reads = new CaseReads();
    reads.add('graphql', 'case', [A, B, A.toUpperCase()]);
    reads.add('graphql', 'members', []);
    reads.add('graphql', 'case', ["x'); drop table users; --"]);
    expect(reads.toParameters()).toEqual({ kinds: ['case', 'members'], caseLists: [[A, B].sort(), []] });
    expect(reads.api).toBe('graphql');
  });
});

describe('caseIdsIn', () => {
  it('finds caseId and case_id at any depth', () => {
    expect([...caseIdsIn([{ caseId: A, nested: { rows: [{ case_id: B }] } }, null, 3])].sort()).toEqual([A, B].sort());
  });
});
