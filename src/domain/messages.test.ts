import { describe, expect, it } from 'vitest';
import { addressableGroups, reachesMember, RECIPIENT_GROUPS, sortMessages, type Involvement } from './messages';

const none: Involvement = { actsAsTherapist: false, actsAsSupervisor: false, actsAsInterviewer: false, actsAsSupporter: false, actsAsCounselor: false, actsAsPatient: false };

describe('addressable groups', () => {
  it('lets a patient write to the care team but not to patients', () => {
    expect(addressableGroups({ ...none, actsAsPatient: true })).toEqual(['therapists', 'supervisors', 'supporters', 'counselors', 'interviewers']);
  });
  it('lets staff address every group', () => {
    expect(addressableGroups({ ...none, actsAsTherapist: true })).toEqual(RECIPIENT_GROUPS.map((g) => g.group));
  });
  it('gives a non-member nothing', () => {
    expect(addressableGroups(null)).toEqual([]);
  });
});

describe('reach', () => {
  const flags = { toInterviewers: false, toPatients: false, toSupervisors: false, toTherapists: true, toSupporters: false, toCounselors: false };
  it('reaches the sender and the addressed roles only', () => {
    expect(reachesMember({ ...flags, senderId: 'a' }, 'a', none)).toBe(true);
    expect(reachesMember({ ...flags, senderId: 'a' }, 'b', { ...none, actsAsTherapist: true })).toBe(true);
    expect(reachesMember({ ...flags, senderId: 'a' }, 'b', { ...none, actsAsSupervisor: true })).toBe(false);
  });
});

describe('ordering', () => {
  it('lists drafts newest created first and sent messages newest sent first', () => {
    const { drafts, sent } = sortMessages([
      { id: '1', createdAt: '2026-01-01T10:00:00Z', sentAt: null },
      { id: '2', createdAt: '2026-01-02T10:00:00Z', sentAt: null },
      { id: '3', createdAt: '2026-01-01T09:00:00Z', sentAt: '2026-01-03T10:00:00Z' },
      { id: '4', createdAt: '2026-01-01T08:00:00Z', sentAt: '2026-01-04T10:00:00Z' },
    ]);
    expect(drafts.map((m) => m.id)).toEqual(['2', '1']);
    expect(sent.map((m) => m.id)).toEqual(['4', '3']);
  });
});
