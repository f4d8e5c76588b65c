/**
 * Message rules shared by the web app and the tests; the database enforces the same rules in
 * its policies (db/migrations/0006-messages.sql).
 */
import { CASE_ROLES, type CaseRole } from './roles';

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

/** The acts-as flag of each per-case role. */
export const ACTS_AS: Record<CaseRole, keyof Involvement> = {
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
  const staff = isCareTeam(involvement);
  return RECIPIENT_GROUPS.filter((g) => staff || g.group !== 'patients').map((g) => g.group);
}

/** A member with a staff role in the case (they may, for example, insert message templates). */
export function isCareTeam(involvement: Involvement | null): boolean {
  if (!involvement) return false;
  return involvement.actsAsTherapist || involvement.actsAsSupervisor || involvement.actsAsInterviewer || involvement.actsAsSupporter || involvement.actsAsCounselor;
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

/** The recipient groups a member belongs to through their acts-as roles (used to answer them). */
export function groupsOf(involvement: Involvement): RecipientGroup[] {
  return RECIPIENT_GROUPS.filter((g) => involvement[ACTS_AS[g.role]]).map((g) => g.group);
}

/** The groups to preselect when answering a sender: theirs, as far as the writer may address them. */
export function replyGroups(sender: Involvement | null, writer: Involvement | null): RecipientGroup[] {
  if (!sender) return [];
  const allowed = new Set(addressableGroups(writer));
  return groupsOf(sender).filter((g) => allowed.has(g));
}

/**
 * The last-read mark after reading a message sent at `sentAt`: never earlier than the current
 * mark (the server stores what it is given, so going back would make read messages new again).
 * Timestamps are passed on as the server wrote them: PostgreSQL keeps microseconds, and a mark
 * rounded to milliseconds would leave the message itself unread.
 */
export function readMarkAfter(current: string | null, sentAt: string): string {
  if (!current) return sentAt;
  const currentTime = Date.parse(current);
  if (Number.isNaN(currentTime)) return sentAt; // '-infinity': nothing was read yet
  return currentTime > Date.parse(sentAt) ? current : sentAt;
}

/** The recipient flags that address exactly the given groups. */
export function flagsFor(groups: readonly RecipientGroup[]): RecipientFlags {
  const chosen = new Set(groups);
  return Object.fromEntries(RECIPIENT_GROUPS.map((g) => [g.flag, chosen.has(g.group)])) as RecipientFlags;
}

/** The groups a message addresses, in display order. */
export function addressedGroups(flags: RecipientFlags): RecipientGroup[] {
  return RECIPIENT_GROUPS.filter((g) => flags[g.flag]).map((g) => g.group);
}

/** The roles a member acts in, in the order of CASE_ROLES. */
export function rolesOf(involvement: Involvement): CaseRole[] {
  return CASE_ROLES.filter((role) => involvement[ACTS_AS[role]]);
}

/** An involvement with exactly the given roles. */
export function involvementFor(roles: readonly CaseRole[]): Involvement {
  return Object.fromEntries(CASE_ROLES.map((role) => [ACTS_AS[role], roles.includes(role)])) as unknown as Involvement;
}

/** A case in the staff case picker: my unread count and its newest message. */
export interface PickerCase {
  id: string;
  newMessages: string | number | null;
  latestMessage: { sentAt: string | null } | null;
}

/**
 * The case /conversation shows. The case it was sent to (its `?case=` link) always wins, then the
 * case already chosen in this session; only when neither exists does it open the case whose
 * newest message is unread and newest of all (then the first case). Jumping to an unread case
 * over the one a person asked for once showed a therapist another patient's conversation.
 */
export function conversationCase(requested: string | null, current: string | null, cases: readonly PickerCase[]): string | null {
  if (requested) return requested;
  if (current) return current;
  let best: PickerCase | null = null;
  for (const c of cases) {
    if (!Number(c.newMessages)) continue;
    const at = c.latestMessage?.sentAt ?? '';
    if (!best || at > (best.latestMessage?.sentAt ?? '')) best = c;
  }
  return best?.id ?? cases[0]?.id ?? null;
}

/** The link to one case's conversation: every "open messages" of a case goes through it. */
export function conversationPath(caseId: string): string {
  return `/conversation?case=${encodeURIComponent(caseId)}`;
}

/**
 * The line a message is listed under: its subject, else the opening of its text (issue 25:
 * automatic messages were listed as "(no subject)", which tells a patient nothing). Cut at a
 * word within `max` characters; undefined only for a message without subject and text.
 */
export function messageHeadline(subject: string | null | undefined, body: string | null | undefined, max = 60): string | undefined {
  const own = subject?.trim();
  if (own) return own;
  const firstLine = (body ?? '').split('\n').map((line) => line.trim()).find((line) => line !== '');
  if (!firstLine) return undefined;
  if (firstLine.length <= max) return firstLine;
  const cut = firstLine.slice(0, max);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

/**
 * The recipient groups as a patient reads them: the patients' group is "you" (a case has one
 * patient; issue 25: patients were told a message went to "the patients").
 */
export function groupsForReader(groups: readonly RecipientGroup[], readerIsPatient: boolean): (RecipientGroup | 'you')[] {
  if (!readerIsPatient) return [...groups];
  const others = groups.filter((g) => g !== 'patients');
  return groups.includes('patients') ? ['you', ...others] : others;
}
