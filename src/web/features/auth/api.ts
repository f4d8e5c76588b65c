/**
 * The server calls of the account screens (registration, mailed-link confirmations, password
 * reset, profile, e-mail and password change): REST calls of the auth routes (docs/API.md)
 * that the screens run through `useMutation` (see useSubmit). Signing in is the session's.
 */
import { api } from '../../api/client';
import type { Profile } from '../../session/profile';

/** What the registration form sends; the server checks all of it again. */
export interface Registration {
  /** The consent version shown and agreed to, and its language (issue 31). */
  consentVersionId?: string;
  consentLanguage?: string;
  username: string;
  email: string;
  password: string;
  alias?: string;
  gender?: string;
  phone?: string;
  locale: string;
  timeZone: string;
  agreedToTerms: boolean;
  agreedToPrivacyPolicy: boolean;
  confirmedAdult: boolean;
  agreedToResearchUse: boolean;
  agreedToBeContacted: boolean;
  counseling: boolean;
}

export const register = (user: Registration) => api<{ status: string }>('POST', '/api/auth/users/register', { anonymous: true, body: { user } });

/** The mailed links that carry a token: confirming the account or a new e-mail address. */
export type TokenPath = '/api/auth/users/confirm' | '/api/auth/email-change/confirm';
export const confirmToken = (path: TokenPath, token: string) => api('POST', path, { anonymous: true, body: { token } });

export const confirmPasswordReset = (token: string, password: string) => api('POST', '/api/auth/password-reset/confirm', { anonymous: true, body: { token, password } });

/** "Resend confirmation" and "forgot password": one address, one neutral answer. */
export type EmailRequestPath = '/api/auth/users/resend-confirmation' | '/api/auth/password-reset';
export const requestByEmail = (path: EmailRequestPath, email: string) => api('POST', path, { anonymous: true, body: { email } });

export interface ProfileChanges {
  alias: string | null;
  phone: string | null;
  gender: string | null;
  locale: string;
  timeZone: string;
}
export const updateProfile = (changes: ProfileChanges) => api<Profile>('PATCH', '/api/auth/users/me', { body: changes });

export const requestEmailChange = (newEmail: string, password: string) => api('POST', '/api/auth/email-change', { body: { newEmail, password } });

export const changePassword = (currentPassword: string, newPassword: string) => api('PUT', '/api/auth/password', { body: { currentPassword, newPassword } });
