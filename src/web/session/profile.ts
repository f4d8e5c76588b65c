import type { AccountFlags } from '../../domain/roles';
import type { Locale } from '../../domain/locales';

/** The signed-in person as GET /api/auth/users/me returns them. */
export interface Profile {
  id: string;
  username: string;
  email: string;
  alias: string | null;
  gender: 'FEMALE' | 'MALE' | 'DIVERSE' | null;
  phone: string | null;
  locale: Locale;
  time_zone: string;
  is_patient_account: boolean;
  is_therapist_account: boolean;
  is_supervisor_account: boolean;
  is_interviewer_account: boolean;
  is_supporter_account: boolean;
  is_coordinator_account: boolean;
  is_counselor_account: boolean;
  is_tester_account: boolean;
  /** Issue 30: a blinded outcome assessor (migration 0241). */
  is_assessor_account?: boolean;
  is_counseling_only: boolean;
  registered_for_counseling: boolean;
  excluded: boolean;
  last_login: string | null;
  nr_of_logins: number;
}

/** The flags the access rules read (spec §2, §6). */
export function accountFlags(profile: Profile | null): AccountFlags | null {
  if (!profile) return null;
  return {
    isCoordinatorAccount: profile.is_coordinator_account,
    isInterviewerAccount: profile.is_interviewer_account,
    isTherapistAccount: profile.is_therapist_account,
    isSupervisorAccount: profile.is_supervisor_account,
    isSupporterAccount: profile.is_supporter_account,
    isPatientAccount: profile.is_patient_account,
  };
}
