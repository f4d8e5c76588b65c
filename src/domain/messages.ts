/**
 * Message rules shared by the web app and the tests; the database enforces the same rules in
 * its policies (db/migrations/0006-messages.sql).
 */
import type { CaseRole } from './roles';

/** Recipient groups of spec §3, in display order, with the acts-as flag each one reaches. */
export const RECIPIENT_GROUPS = [
  { group: 'therapists', flag: 'toTherapists', role: 'therapist' },
  { group: 'supervisors', flag: 'toSupervisors', role: 'supervisor' },
  { group: 'supporters', flag: 'toSupporters', role: 'supporter' },
  { group: 'counselors', flag: 'toCounselors', role: 'counselor' },
  { group: 'interviewers', flag: 'toInterviewers', role: 'interviewer' },
  { group: 'patients', flag: 'toPatients', role: 'patient' },
] as const satisfies readonly { group: string; flag: string; role: CaseRole }[];

export type RecipientGroup = (typeof RECIPIENT_GROUPS)[number]['group'];
export type RecipientFlag = (typeof RECIPIENT_GROUPS)[number]['flag'];

export interface Involvement {
  actsAsTherapist: boolean;
  actsAsSupervisor: boolean;
  actsAsInterviewer: boolean;
  actsAsSupporter: boolean;
  actsAsCounselor: boolean;
  actsAsPatient: boolean;
}

const ACTS_AS: Record<CaseRole, keyof Involvement> = {
  therapist: 'actsAsTherapist',
  supervisor: 'actsAsSupervisor',
  interviewer: 'actsAsInterviewer',
  supporter: 'actsAsSupporter',
  counselor: 'actsAsCounselor',
  patient: 'actsAsPatient',
};

/** A member who is only the patient writes to the care team; staff may address every group. */
export function addressableGroups(involvement: Involvement | null): RecipientGroup[] {
  if (!involvement) return [];
  const staff = involvement.actsAsTherapist || involvement.actsAsSupervisor || involvement.actsAsInterviewer || involvement.actsAsSupporter || involvement.actsAsCounselor;
  return RECIPIENT_GROUPS.filter((g) => staff || g.group !== 'patients').map((g) => g.group);
}

export type RecipientFlags = Record<RecipientFlag, boolean>;

/** Whether a member sees a sent message: they sent it, or one of their roles is addressed. */
export function reachesMember(message: RecipientFlags & { senderId: string | null }, memberId: string, involvement: Involvement): boolean {
  if (message.senderId === memberId) return true;
  return RECIPIENT_GROUPS.some((g) => message[g.flag] && involvement[ACTS_AS[g.role]]);
}

export interface SortableMessage {
  id: string;
  createdAt: string;
  sentAt: string | null;
}

/** Drafts newest created first, then sent messages newest sent first (spec §4). */
export function sortMessages<T extends SortableMessage>(messages: readonly T[]): { drafts: T[]; sent: T[] } {
  const drafts = messages.filter((m) => !m.sentAt).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  const sent = messages.filter((m) => m.sentAt).sort((a, b) => b.sentAt!.localeCompare(a.sentAt!) || a.id.localeCompare(b.id));
  return { drafts, sent };
}
