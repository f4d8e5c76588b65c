/**
 * CONSORT-EHEALTH usage and attrition per arm (issue 33): one row per randomized participant
 * from app_public.trial_usage() (0295), and a table per arm that sums exactly those rows and
 * takes randomized, followed-up and analysed counts from the CONSORT flow (consort.ts), so every
 * number of the pack reconciles with the files it comes from.
 */
import type { Cell } from './instruments/export';
import type { ArmFlow } from './consort';

export interface UsageRow {
  caseId: string;
  treatment: string;
  randomizedAt: string;
  signIns: number;
  worksheetsFilled: number;
  lettersSent: number;
  lettersRead: number;
  messagesFromParticipant: number;
  messagesToParticipant: number;
  messagesFromTherapists: number;
  /** Last sign-in, worksheet, letter read or message of the participant; null without any. */
  lastActivityAt: string | null;
}

export const USAGE_COLUMNS = ['case_id', 'treatment', 'randomized_at', 'sign_ins', 'worksheets_filled', 'letters_sent', 'letters_read', 'messages_from_participant', 'messages_to_participant', 'messages_from_therapists', 'last_activity_at', 'days_in_treatment'] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole days from randomization to the last activity; empty when the participant did nothing. */
export function daysInTreatment(row: UsageRow): number | null {
  if (!row.lastActivityAt) return null;
  return Math.max(0, Math.floor((Date.parse(row.lastActivityAt) - Date.parse(row.randomizedAt)) / DAY_MS));
}

export function usageCells(row: UsageRow): Cell[] {
  return [row.caseId, row.treatment, row.randomizedAt, row.signIns, row.worksheetsFilled, row.lettersSent, row.lettersRead, row.messagesFromParticipant, row.messagesToParticipant, row.messagesFromTherapists, row.lastActivityAt, daysInTreatment(row)];
}

type CountKey = 'signIns' | 'worksheetsFilled' | 'lettersSent' | 'lettersRead' | 'messagesFromParticipant' | 'messagesToParticipant' | 'messagesFromTherapists';

export const ARM_USAGE_COLUMNS = [
  'arm', 'randomized', 'received_intervention', 'completed_post', 'completed_fu1', 'completed_fu2', 'dropped_out_by_post', 'excluded_from_analysis', 'analysed', 'withdrew_consent',
  'active_participants', 'sign_ins', 'worksheets_filled', 'letters_sent', 'letters_read', 'messages_from_participants', 'messages_to_participants', 'messages_from_therapists', 'median_days_in_treatment',
] as const;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One line per arm of the CONSORT flow (and any arm only the usage rows name). */
export function armUsageRows(arms: readonly ArmFlow[], usage: readonly UsageRow[]): Cell[][] {
  const names = [...arms.map((a) => a.arm), ...new Set(usage.map((u) => u.treatment).filter((t) => !arms.some((a) => a.arm === t)))];
  return names.map((name) => {
    const flow = arms.find((a) => a.arm === name);
    const rows = usage.filter((u) => u.treatment === name);
    const sum = (key: CountKey) => rows.reduce((total, row) => total + row[key], 0);
    const days = rows.map(daysInTreatment).filter((d): d is number => d !== null);
    return [
      name,
      flow?.randomized ?? rows.length,
      flow?.receivedIntervention ?? null,
      flow?.completed.post ?? null,
      flow?.completed.fu1 ?? null,
      flow?.completed.fu2 ?? null,
      flow?.lost.post.dropout ?? null,
      flow?.excludedFromAnalysis ?? null,
      flow?.analysed ?? null,
      flow?.withdrewConsent ?? null,
      rows.filter((row) => row.lastActivityAt !== null).length,
      sum('signIns'),
      sum('worksheetsFilled'),
      sum('lettersSent'),
      sum('lettersRead'),
      sum('messagesFromParticipant'),
      sum('messagesToParticipant'),
      sum('messagesFromTherapists'),
      median(days),
    ];
  });
}

export const EXPOSURE_COLUMNS = ['case_id', 'treatment', 'kind', 'template_id', 'template_version', 'sent_at', 'read_at'] as const;
