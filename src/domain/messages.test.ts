import { describe, expect, it } from 'vitest';
import { addressableGroups, addressedGroups, flagsFor, conversationCase, conversationPath, groupsOf, involvementFor, reachesMember, readMarkAfter, RECIPIENT_GROUPS, replyGroups, rolesOf, sortMessages, type Involvement } from './messages';

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

describe('answering and reading', () => {
  it('preselects the sender’s groups that the writer may address', () => {
    expect(replyGroups({ ...none, actsAsPatient: true }, { ...none, actsAsTherapist: true })).toEqual(['patients']);
    expect(replyGroups({ ...none, actsAsTherapist: true, actsAsSupervisor: true }, { ...none, actsAsPatient: true })).toEqual(['therapists', 'supervisors']);
    expect(replyGroups({ ...none, actsAsPatient: true }, { ...none, actsAsPatient: true })).toEqual([]);
    expect(replyGroups(null, { ...none, actsAsTherapist: true })).toEqual([]);
  });

  it('moves the read mark forward only, keeping the server’s timestamp text', () => {
    expect(readMarkAfter('-infinity', '2026-01-01T10:00:00.123456+00:00')).toBe('2026-01-01T10:00:00.123456+00:00');
    expect(readMarkAfter(null, '2026-01-01T10:00:00Z')).toBe('2026-01-01T10:00:00Z');
    expect(readMarkAfter('2026-01-02T10:00:00Z', '2026-01-01T10:00:00Z')).toBe('2026-01-02T10:00:00Z');
    expect(readMarkAfter('2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z')).toBe('2026-01-01T10:00:00Z');
  });

  it('names the groups a member belongs to', () => {
    expect(groupsOf({ ...none, actsAsCounselor: true, actsAsInterviewer: true })).toEqual(['counselors', 'interviewers']);
  });
});

describe('recipient flags', () => {
  it('turns groups into flags and back', () => {
    const flags = flagsFor(['patients', 'therapists']);
    expect(flags).toEqual({ toTherapists: true, toSupervisors: false, toSupporters: false, toCounselors: false, toInterviewers: false, toPatients: true });
    expect(addressedGroups(flags)).toEqual(['therapists', 'patients']);
  });
});

describe('roles of a member', () => {
  it('lists the acts-as roles and builds an involvement from roles', () => {
    expect(rolesOf({ ...none, actsAsSupervisor: true, actsAsTherapist: true })).toEqual(['therapist', 'supervisor']);
    expect(involvementFor(['patient'])).toEqual({ ...none, actsAsPatient: true });
  });
});

describe('conversationCase', () => {
  const c = (id: string, newMessages: number | null, sentAt: string | null) => ({ id, newMessages, latestMessage: sentAt ? { sentAt } : null });
  const cases = [c('a', 2, '2026-11-01T10:00:00Z'), c('b', 1, '2026-11-03T09:00:00Z'), c('c', 0, '2026-11-05T09:00:00Z')];
  it('opens the case it was sent to, even when another case has newer unread messages', () => {
    expect(conversationCase('c', 'a', cases)).toBe('c');
  });
  it('keeps the case chosen in this session when no case was asked for', () => {
    expect(conversationCase(null, 'c', cases)).toBe('c');
  });
  it('without any choice opens the case whose newest message is unread and newest of all', () => {
    expect(conversationCase(null, null, cases)).toBe('b');
  });
  it('without unread messages opens the first case, and none without cases', () => {
    expect(conversationCase(null, null, [c('a', 0, '2026-11-01T10:00:00Z'), c('b', null, null)])).toBe('a');
    expect(conversationCase(null, null, [])).toBeNull();
  });
  it('links to one case by its id', () => {
    expect(conversationPath('0b6c/x')).toBe('/conversation?case=0b6c%2Fx');
  });
});
