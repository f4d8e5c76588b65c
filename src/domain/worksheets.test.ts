import { describe, expect, it } from 'vitest';
import { assignmentStatus, staffWorksheetState, worksheetState } from './worksheets';

const draft = { published_at: null };
const sent = { published_at: '2026-11-02T10:00:00Z' };
const answered = { ...sent, has_feedback: true };

describe('worksheet states', () => {
  it("the patient's state: to do, draft, sent, feedback received", () => {
    expect(worksheetState([])).toBe('todo');
    expect(worksheetState([draft])).toBe('draft');
    expect(worksheetState([draft, sent])).toBe('sent');
    expect(worksheetState([sent, answered])).toBe('feedback');
  });

  it("the care team's state ignores drafts and says whether a sent entry still waits for feedback", () => {
    expect(staffWorksheetState([])).toBe('notSent');
    expect(staffWorksheetState([draft])).toBe('notSent');
    expect(staffWorksheetState([sent])).toBe('awaitingFeedback');
    expect(staffWorksheetState([answered, sent])).toBe('awaitingFeedback');
    expect(staffWorksheetState([answered, draft])).toBe('feedbackGiven');
  });

  it('an assigned worksheet is due, overdue, done when sent, or ended unsent', () => {
    const now = new Date('2026-11-10T00:00:00Z');
    expect(assignmentStatus({ due: '2026-11-12T00:00:00Z', endTime: null, deleteReason: null }, now)).toBe('due');
    expect(assignmentStatus({ due: null, endTime: null, deleteReason: null }, now)).toBe('due');
    expect(assignmentStatus({ due: '2026-11-09T00:00:00Z', endTime: null, deleteReason: null }, now)).toBe('overdue');
    expect(assignmentStatus({ due: '2026-11-09T00:00:00Z', endTime: '2026-11-08T00:00:00Z', deleteReason: 'completed' }, now)).toBe('done');
    expect(assignmentStatus({ due: '2026-11-09T00:00:00Z', endTime: '2026-11-11T00:00:00Z', deleteReason: 'deleted' }, now)).toBe('ended');
  });
});
