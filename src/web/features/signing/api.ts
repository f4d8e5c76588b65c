/**
 * Server calls of e-signatures and the staff second factor (issue 30 items 3 and 4;
 * src/server/signing/routes.ts).
 */
import { api } from '../../api/client';

export interface MfaState {
  enrolled: boolean;
  pending: boolean;
  required: boolean;
  recoveryCodesLeft: number;
}

/** The react-query key of the person's second-factor state. */
export const MFA_STATE_KEY = ['mfa-state'] as const;

export const loadMfaState = () => api<MfaState>('GET', '/api/auth/mfa');

export const issueSigningToken = (body: { act: string; recordId: string; password: string; code?: string }) =>
  api<{ token: string; expiresAt: string }>('POST', '/api/signing/tokens', { body });

export const beginEnrolment = () => api<{ secret: string; otpauthUri: string }>('POST', '/api/auth/mfa/enrolment', { body: {} });

export const confirmEnrolment = (code: string) => api<{ recoveryCodes: string[] }>('POST', '/api/auth/mfa/enrolment/confirm', { body: { code } });

export const resetSecondFactor = (userId: string, reason: string) => api('POST', '/api/auth/mfa/reset', { body: { userId, reason } });

export interface StaffPerson {
  id: string;
  username: string;
  alias: string | null;
  disabled: boolean;
}

export const loadStaffAccounts = () => api<{ accounts: StaffPerson[] }>('GET', '/api/staff-accounts');

/** A signature manifest (printed name, UTC time, meaning, hash of the signed content). */
export interface Manifest {
  id: string;
  at: string;
  printedName: string;
  act: string;
  meaning: string;
  caseId: string;
  recordKind: string;
  recordId: string;
  contentHash: string;
}

export const loadSignatures = (by: { recordId: string } | { caseId: string }) =>
  api<{ signatures: Manifest[] }>('GET', `/api/signatures?${'recordId' in by ? `recordId=${encodeURIComponent(by.recordId)}` : `caseId=${encodeURIComponent(by.caseId)}`}`);
