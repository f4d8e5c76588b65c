/**
 * Electronic signatures (issue 30 item 3; 21 CFR Part 11 §11.50, §11.200): the acts that need
 * a signature, what each signature means, and the canonical text of a signed record whose
 * SHA-256 the manifest keeps. Shared by the server (which signs) and the web app (which asks
 * for the signature and shows the manifest).
 */

/** The signed acts, each at its one door (docs/decisions/e-signatures-and-mfa.md). */
export const SIGNED_ACTS = ['report_sign', 'report_amend', 'randomize', 'exclude', 'safety_close', 'withdraw', 'legal_hold'] as const;
export type SignedAct = (typeof SIGNED_ACTS)[number];

/** Manifest acts: the signed acts and a rule override recorded beside the report's signature. */
export type ManifestAct = SignedAct | 'rule_override';

export const SIGNATURE_MEANINGS = [
  'eligibility_decision',
  'report_correction',
  'rule_override',
  'allocation',
  'exclusion_decision',
  'safety_review',
  'withdrawal',
  'legal_hold',
] as const;
export type SignatureMeaning = (typeof SIGNATURE_MEANINGS)[number];

export const MEANING_OF_ACT: Record<ManifestAct, SignatureMeaning> = {
  report_sign: 'eligibility_decision',
  report_amend: 'report_correction',
  rule_override: 'rule_override',
  randomize: 'allocation',
  exclude: 'exclusion_decision',
  safety_close: 'safety_review',
  withdraw: 'withdrawal',
  legal_hold: 'legal_hold',
};

/** What the signing token of an act is bound to: the report, the case, or the task. */
export const RECORD_OF_ACT: Record<SignedAct, 'interview_report' | 'case' | 'workflow_task'> = {
  report_sign: 'interview_report',
  report_amend: 'interview_report',
  randomize: 'case',
  exclude: 'case',
  safety_close: 'workflow_task',
  withdraw: 'case',
  legal_hold: 'case',
};

/** The workflow tasks whose completion is a signed act (their one door is the task command). */
export const SIGNED_TASKS: Record<string, SignedAct> = {
  randomizeTask: 'randomize',
  safetySignalTask: 'safety_close',
  reviewSuicideCall: 'safety_close',
  suicideCallFollowUp: 'safety_close',
};

export function isSignedAct(value: unknown): value is SignedAct {
  return typeof value === 'string' && (SIGNED_ACTS as readonly string[]).includes(value);
}

/**
 * Canonical JSON (keys sorted at every depth, no spaces; RFC 8785's idea for the values Sanad
 * signs: strings, numbers, booleans, null, arrays and objects). Equal content, equal text,
 * whatever order the fields were read in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The header that carries a signing token to an act's door. */
export const SIGNATURE_HEADER = 'sanad-signature';

/** Account roles that can be required to use a second factor (setting MFA_REQUIRED_ROLES). */
export const MFA_ROLES = ['coordinator', 'interviewer', 'therapist', 'supervisor', 'supporter', 'counselor'] as const;
export type MfaRole = (typeof MFA_ROLES)[number];
