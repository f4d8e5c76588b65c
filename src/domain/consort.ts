/**
 * The CONSORT flow of the trial (issue 15): counts from the participant rows of
 * app_public.trial_participants(), the same rows the participants export writes, so the diagram,
 * its table and the export always agree. Also the export's CSV columns.
 */

export interface Participant {
  caseId: string;
  registeredAt: string;
  stage: string;
  screened: boolean;
  excluded: boolean;
  exclusionReasons: string[];
  interviewed: boolean;
  interviewOutcome: string | null;
  rejectionReason: string | null;
  treatment: string | null;
  randomizedAt: string | null;
  receivedIntervention: boolean;
  preCompleted: boolean;
  postCompleted: boolean;
  fu1Completed: boolean;
  fu2Completed: boolean;
  trialActive: boolean;
  isDropout: boolean;
  dropoutReason: string | null;
  excludeFromAnalysis: boolean;
  reasonForExclusion: string | null;
  /** The highest level of a withdrawal of consent (issue 31): stop_contact, stop_data, erasure. */
  withdrawal?: string | null;
}

export const FOLLOW_UPS = ['post', 'fu1', 'fu2'] as const;
export type FollowUp = (typeof FOLLOW_UPS)[number];

/** Why a randomized participant has no record at a time: dropout, excluded, not yet due, missing. */
export type LossReason = 'dropout' | 'excluded' | 'pending' | 'missing';

export interface ArmFlow {
  arm: string;
  randomized: number;
  receivedIntervention: number;
  didNotReceive: number;
  completed: Record<FollowUp, number>;
  lost: Record<FollowUp, Record<LossReason, number>>;
  excludedFromAnalysis: number;
  analysed: number;
  /** Randomized participants of the arm who withdrew consent (any level). */
  withdrewConsent: number;
}

export interface ConsortFlow {
  registered: number;
  screened: number;
  notScreened: number;
  excluded: number;
  exclusionReasons: Record<string, number>;
  interviewed: number;
  accepted: number;
  rejected: number;
  rejectionReasons: Record<string, number>;
  referred: number;
  later: number;
  awaitingRandomization: number;
  randomized: number;
  /** Participants who withdrew consent (any level), randomized or not. */
  withdrewConsent: number;
  arms: ArmFlow[];
}

const STAGE_ORDER = ['treatment', 'post', 'fu1', 'fu2', 'finished'];

function completedAt(p: Participant, time: FollowUp): boolean {
  return time === 'post' ? p.postCompleted : time === 'fu1' ? p.fu1Completed : p.fu2Completed;
}

/** Why a randomized participant has no record of a time (dropout before exclusion before time). */
export function lossReason(p: Participant, time: FollowUp): LossReason {
  if (p.isDropout) return 'dropout';
  if (p.excluded) return 'excluded';
  // The process still runs and has not reached the time's stage: not yet due.
  if (p.trialActive && STAGE_ORDER.indexOf(p.stage) < STAGE_ORDER.indexOf(time) + 1) return 'pending';
  return 'missing';
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Counts every box of the diagram; arms in the given order, then any other drawn arm. */
export function consortFlow(participants: readonly Participant[], armOrder: readonly string[] = []): ConsortFlow {
  const exclusionReasons: Record<string, number> = {};
  const rejectionReasons: Record<string, number> = {};
  const arms = new Map<string, ArmFlow>();
  const armFlow = (arm: string): ArmFlow => {
    let flow = arms.get(arm);
    if (!flow) {
      const zero = () => ({ dropout: 0, excluded: 0, pending: 0, missing: 0 });
      flow = {
        arm, randomized: 0, receivedIntervention: 0, didNotReceive: 0,
        completed: { post: 0, fu1: 0, fu2: 0 }, lost: { post: zero(), fu1: zero(), fu2: zero() },
        excludedFromAnalysis: 0, analysed: 0, withdrewConsent: 0,
      };
      arms.set(arm, flow);
    }
    return flow;
  };
  for (const arm of armOrder) armFlow(arm);
  const flow: ConsortFlow = {
    registered: 0, screened: 0, notScreened: 0, excluded: 0, exclusionReasons, interviewed: 0, accepted: 0,
    rejected: 0, rejectionReasons, referred: 0, later: 0, awaitingRandomization: 0, randomized: 0, withdrewConsent: 0, arms: [],
  };
  for (const p of participants) {
    flow.registered += 1;
    if (p.withdrawal) flow.withdrewConsent += 1;
    if (p.screened) flow.screened += 1;
    else flow.notScreened += 1;
    if (p.excluded) {
      flow.excluded += 1;
      for (const reason of p.exclusionReasons) bump(exclusionReasons, reason);
    }
    if (p.interviewed) {
      flow.interviewed += 1;
      const outcome = p.interviewOutcome;
      if (outcome === 'ptsd' || outcome === 'depression') flow.accepted += 1;
      else if (outcome === 'rejected') {
        flow.rejected += 1;
        bump(rejectionReasons, p.rejectionReason ?? 'unspecified');
      } else if (outcome === 'counseling') flow.referred += 1;
      else flow.later += 1;
      if ((outcome === 'ptsd' || outcome === 'depression') && !p.treatment) flow.awaitingRandomization += 1;
    }
    if (p.treatment) {
      flow.randomized += 1;
      const arm = armFlow(p.treatment);
      arm.randomized += 1;
      if (p.withdrawal) arm.withdrewConsent += 1;
      if (p.receivedIntervention) arm.receivedIntervention += 1;
      else arm.didNotReceive += 1;
      for (const time of FOLLOW_UPS) {
        if (completedAt(p, time)) arm.completed[time] += 1;
        else arm.lost[time][lossReason(p, time)] += 1;
      }
      if (p.excludeFromAnalysis) arm.excludedFromAnalysis += 1;
      else arm.analysed += 1;
    }
  }
  flow.arms = [...arms.values()];
  return flow;
}

/** The participants export's columns, in order (CSV header). */
export const PARTICIPANT_COLUMNS = [
  'case_id', 'registered_at', 'stage', 'screened', 'excluded', 'exclusion_reasons', 'interviewed', 'interview_outcome',
  'rejection_reason', 'treatment', 'randomized_at', 'received_intervention', 'pre_completed', 'post_completed',
  'fu1_completed', 'fu2_completed', 'trial_active', 'is_dropout', 'dropout_reason', 'exclude_from_analysis', 'reason_for_exclusion',
  'withdrawal',
] as const;

/** One participant as CSV cells (Booleans as 1/0, lists joined by "|"). */
export function participantCells(p: Participant): (string | number | null)[] {
  const b = (value: boolean) => (value ? 1 : 0);
  return [
    p.caseId, p.registeredAt, p.stage, b(p.screened), b(p.excluded), p.exclusionReasons.join('|'), b(p.interviewed),
    p.interviewOutcome, p.rejectionReason, p.treatment, p.randomizedAt, b(p.receivedIntervention), b(p.preCompleted),
    b(p.postCompleted), b(p.fu1Completed), b(p.fu2Completed), b(p.trialActive), b(p.isDropout), p.dropoutReason,
    b(p.excludeFromAnalysis), p.reasonForExclusion, p.withdrawal ?? null,
  ];
}
