/** Account flags and the role definitions of spec §6. */
export interface AccountFlags {
  isCoordinatorAccount: boolean;
  isInterviewerAccount: boolean;
  isTherapistAccount: boolean;
  isSupervisorAccount: boolean;
  isSupporterAccount: boolean;
  isPatientAccount: boolean;
}

/** Staff: any of the five staff account flags. */
export function isStaff(user: AccountFlags): boolean {
  return (
    user.isCoordinatorAccount ||
    user.isInterviewerAccount ||
    user.isTherapistAccount ||
    user.isSupervisorAccount ||
    user.isSupporterAccount
  );
}

/** Interviewer-level: an interviewer account or a coordinator. */
export function isInterviewerLevel(user: AccountFlags): boolean {
  return user.isInterviewerAccount || user.isCoordinatorAccount;
}

/** The per-case roles (acts-as flags) and the message recipient groups they map to. */
export const CASE_ROLES = ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'patient'] as const;
export type CaseRole = (typeof CASE_ROLES)[number];
