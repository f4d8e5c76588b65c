/**
 * Account rules shared by the server (which enforces them) and the web app (which explains
 * them before a request is sent). The database repeats the format checks as constraints.
 */

/** Password rule: 10 to 128 characters, not the username or the email address. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$/;
export const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const EMAIL_MAX_LENGTH = 254;
export const PHONE_PATTERN = /^\+?[0-9 ()./-]{3,32}$/;
export const GENDERS = ['FEMALE', 'MALE', 'DIVERSE'] as const;
export type Gender = (typeof GENDERS)[number];

/** A field error: a stable code the web app translates, and an English message for API users. */
export interface FieldError {
  code: string;
  message: string;
}
export type FieldErrors = Record<string, FieldError[]>;

export function passwordProblems(password: string, context: { username?: string; email?: string } = {}): FieldError[] {
  const problems: FieldError[] = [];
  // Count characters, not UTF-16 units, so Arabic and emoji passwords are measured fairly.
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    problems.push({ code: 'password_too_short', message: `The password must have at least ${PASSWORD_MIN_LENGTH} characters.` });
  }
  if (length > PASSWORD_MAX_LENGTH) {
    problems.push({ code: 'password_too_long', message: `The password may have at most ${PASSWORD_MAX_LENGTH} characters.` });
  }
  const lowered = password.toLowerCase();
  if (
    (context.username && lowered === context.username.toLowerCase()) ||
    (context.email && lowered === context.email.toLowerCase())
  ) {
    problems.push({ code: 'password_is_identity', message: 'The password must not be your username or email address.' });
  }
  return problems;
}

export function usernameProblems(username: string): FieldError[] {
  return USERNAME_PATTERN.test(username)
    ? []
    : [
        {
          code: 'username_format',
          message: 'The username needs 3 to 40 characters: Latin letters, digits, dot, dash or underscore, starting with a letter or digit.',
        },
      ];
}

export function emailProblems(email: string): FieldError[] {
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email)
    ? []
    : [{ code: 'email_format', message: 'Enter a valid email address, such as name@example.org.' }];
}

export function phoneProblems(phone: string): FieldError[] {
  return PHONE_PATTERN.test(phone)
    ? []
    : [{ code: 'phone_format', message: 'Enter a phone number with digits, spaces and an optional leading +.' }];
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Adds a problem list under a field name, leaving the record untouched when there is none. */
export function addFieldErrors(errors: FieldErrors, field: string, problems: FieldError[]): void {
  // Own properties only, so a field named like an Object method (`constructor`) stays a field.
  if (problems.length > 0) errors[field] = [...(Object.hasOwn(errors, field) ? errors[field]! : []), ...problems];
}
