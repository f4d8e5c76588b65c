import { describe, expect, it } from 'vitest';
import { sectionProgress } from './ReportForm';
import { groupOf } from './ReportsPage';
import type { ReportBooking } from './api';

const NOW = Date.parse('2026-11-24T12:00:00Z');
function booking(extra: Partial<ReportBooking> = {}): ReportBooking {
  return {
    id: 'b1',
    caseId: 'c1',
    interviewerId: 'i1',
    canceled: false,
    interviewee: { username: 'p' },
    offer: { startsAt: '2026-11-24T11:00:00Z', endsAt: '2026-11-24T12:00:00Z' },
    caseByCaseId: null,
    interviewReportByBookingId: null,
    feedbackInterviewReportByBookingId: null,
    missedInterviewByBookingId: null,
    ...extra,
  };
}

describe('the report list', () => {
  it('groups bookings: due, drafts, finalized, follow-ups, upcoming; missed ones leave the list', () => {
    const none = new Set<string>();
    expect(groupOf(booking(), none, NOW)).toBe('due');
    expect(groupOf(booking({ offer: { startsAt: '2026-11-25T11:00:00Z', endsAt: '2026-11-25T12:00:00Z' } }), none, NOW)).toBe('upcoming');
    expect(groupOf(booking({ interviewReportByBookingId: { id: 'r', state: 'draft', updatedAt: '', trialOutcome: null } }), none, NOW)).toBe('drafts');
    expect(groupOf(booking({ interviewReportByBookingId: { id: 'r', state: 'final', updatedAt: '', trialOutcome: 'ptsd' } }), none, NOW)).toBe('finalized');
    expect(groupOf(booking(), new Set(['c1']), NOW)).toBe('followUps');
    expect(groupOf(booking({ missedInterviewByBookingId: { recordedAt: '' } }), none, NOW)).toBeNull();
  });
});

describe('section progress', () => {
  it('counts the filled fields the interviewer is expected to fill', () => {
    const empty = sectionProgress({}, 'suicidality');
    expect(empty.done).toBe(0);
    expect(empty.total).toBeGreaterThan(6);
    expect(sectionProgress({ suicidality_c1: false, suicidality_c2: true, suicidality_notes: '' }, 'suicidality').done).toBe(2);
    expect(sectionProgress({ rejected_reasons: ['minor'], primary_problem: 'other' }, 'result').done).toBe(1);
  });
});
