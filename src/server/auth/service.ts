/**
 * Account operations behind /api/auth. Each is one named function that tests, the CLI and the
 * routes share. Sign-in and registration act before anyone is signed in, so they run as the
 * schema owner and check their own rules; reading and editing one's profile runs under RLS.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import {
  addFieldErrors,
  emailProblems,
  isTimeZone,
  passwordProblems,
  phoneProblems,
  usernameProblems,
  type FieldErrors,
  type Gender,
} from '../../domain/accounts';
import type { Config, Locale } from '../config';
import { preparedStatementName, queryOnceAsUser, readAsUser, withOwner, withOwnerAs, withUser, type Identity, type Sql } from '../db/transaction';
import { badRequest, conflict, HttpError, notFound, unauthorized } from '../http/errors';
import type { Mailer } from '../mail/mailer';
import { checkSecondFactor, mfaState } from '../signing/mfa';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords';
import type { TokenService } from './tokens';
import { appendAccountEvent, recordAccountEvent } from '../integrity/account-log';
import type { SignInThrottling } from './throttle';

/**
 * The name a mail greets a person by (issue 25: the confirmation greeted the patient by username):
 * the chosen name, else the username. The one display-name rule of the mails; the selects that
 * feed a mail's `username` parameter read it through this expression.
 */
const GREETING_NAME = `coalesce(nullif(btrim(alias), ''), username::text)`;

export interface AuthContext {
  pool: pg.Pool;
  config: Config;
  tokens: TokenService;
  mailer: Mailer;
  log: Logger;
  /** Key of the hashed-email validity records, derived from the signing secret. */
  emailHashKey: Buffer;
  /** Growing delays after failed sign-ins (issue 16); without it (CLI) sign-in is not throttled. */
  throttle?: SignInThrottling | undefined;
  /** Work that runs after the answer has gone out (mails of reset, resend, email change). */
  background?: BackgroundWork | undefined;
}

/**
 * Work that must not delay an answer: an answer that waits for a mail server tells the caller
 * whether a mail was sent, that is whether an account exists (issue 16). The app awaits what
 * is still running when it closes.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();
  constructor(private readonly log: Logger) {}

  /** Starts `task` on the next turn of the event loop, after the current answer is written. */
  run(what: string, task: () => Promise<void>): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .catch((error: unknown) => this.log.error({ err: error }, `${what} failed`))
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/** Runs mail work after the answer when the app provides background work, else at once (CLI, unit use). */
async function afterAnswer(ctx: AuthContext, what: string, task: () => Promise<void>): Promise<void> {
  if (ctx.background) ctx.background.run(what, task);
  else await task();
}

// ---------------------------------------------------------------------------------------------
// Profile

/** The profile columns a person sees about themselves (GET /api/auth/users/me). */
export const PROFILE_COLUMNS = `id, username::text, email::text, alias, gender, system_role,
  is_patient_account, is_therapist_account, is_supervisor_account, is_interviewer_account,
  is_supporter_account, is_counselor_account, is_coordinator_account, is_tester_account, is_assessor_account,
  is_counseling_only, registered_for_counseling, phone, last_login, nr_of_logins,
  anti_suicide_contract_at, access_path_kind, access_path_detail,
  agreed_to_terms, agreed_to_privacy_policy, agreed_to_research_use, agreed_to_be_contacted,
  confirmed_adult, email_confirmed_at, excluded, excluded_for_bdi_gte45, excluded_for_lack_of_email,
  excluded_for_lack_of_internet_access, excluded_during_interview, excluded_for_missing_interview,
  excluded_for_minor_age, excluded_for_no_trauma_or_low_bdi, excluded_for_upcoming_treatment,
  locale, time_zone, created_at, updated_at`;

export type Profile = Record<string, unknown> & { id: string; username: string; email: string; locale: Locale };

export async function getProfile(ctx: AuthContext, identity: Identity): Promise<Profile> {
  const rows = await readAsUser<Profile>(ctx.pool, identity, `select ${PROFILE_COLUMNS} from app_public.users where id = app_public.current_user_id()`);
  if (!rows[0]) throw notFound('user_not_found', 'Your account no longer exists.');
  return rows[0];
}

/** The profile's timestamp columns: JSON carries them as Date#toJSON writes them. */
const PROFILE_TIMESTAMPS = new Set(['last_login', 'anti_suicide_contract_at', 'email_confirmed_at', 'created_at', 'updated_at']);

/** A profile column as JSON text would carry it after node-postgres and JSON.stringify. */
function profileJsonColumn(column: string): string {
  const name = column.split('::')[0]!;
  // node-postgres makes a Date (milliseconds, the rest cut off) and JSON.stringify writes it in
  // UTC with a Z; to_char's MS cuts the microseconds off the same way.
  if (PROFILE_TIMESTAMPS.has(name)) return `to_char(${name} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${name}`;
  return column;
}

/**
 * The profile as the JSON text the GET answer sends, built by PostgreSQL: the same bytes as
 * JSON.stringify(getProfile(…)) (row_to_json writes compact JSON in column order), without
 * node-postgres typing 42 columns and Fastify serialising them again on every page load.
 */
export const PROFILE_JSON = `select row_to_json(profile)::text as json from (select ${PROFILE_COLUMNS.split(',')
  .map((column) => profileJsonColumn(column.trim()))
  .join(', ')} from app_public.users where id = app_public.current_user_id()) profile`;

/** Prepared once per connection: every screen loads the profile first, so its plan is kept. */
const PROFILE_JSON_STATEMENT = { text: PROFILE_JSON, values: [], name: preparedStatementName(PROFILE_JSON) };

/** The profile's JSON text as the person reads it, or undefined when the account is gone: one message, one round trip. */
export async function readProfileJson(pool: pg.Pool, identity: Identity): Promise<string | undefined> {
  const [result] = await queryOnceAsUser(pool, identity, [PROFILE_JSON_STATEMENT]);
  return (result?.rows[0] as { json?: string } | undefined)?.json;
}

/** getProfile's answer as JSON text (GET /api/auth/users/me). */
export async function getProfileJson(ctx: AuthContext, identity: Identity): Promise<string> {
  const json = await readProfileJson(ctx.pool, identity);
  if (json === undefined) throw notFound('user_not_found', 'Your account no longer exists.');
  return json;
}

export interface ProfilePatch {
  alias?: string | null;
  phone?: string | null;
  locale?: string;
  timeZone?: string;
  gender?: Gender | null;
}

export async function updateProfile(ctx: AuthContext, identity: Identity, patch: ProfilePatch): Promise<Profile> {
  const errors: FieldErrors = {};
  if (patch.phone) addFieldErrors(errors, 'phone', phoneProblems(patch.phone));
  if (patch.locale !== undefined) addFieldErrors(errors, 'locale', localeProblems(ctx.config, patch.locale));
  if (patch.timeZone !== undefined && !isTimeZone(patch.timeZone)) {
    addFieldErrors(errors, 'timeZone', [{ code: 'time_zone_unknown', message: 'Choose a time zone from the list, such as Asia/Baghdad.' }]);
  }
  if (Object.keys(errors).length > 0) throw badRequest('invalid_profile', 'Some fields need your attention.', errors);

  const columns: Record<string, unknown> = {};
  if (patch.alias !== undefined) columns.alias = patch.alias === '' ? null : patch.alias;
  if (patch.phone !== undefined) columns.phone = patch.phone === '' ? null : patch.phone;
  if (patch.locale !== undefined) columns.locale = patch.locale;
  if (patch.timeZone !== undefined) columns.time_zone = patch.timeZone;
  if (patch.gender !== undefined) columns.gender = patch.gender;
  const names = Object.keys(columns);
  if (names.length > 0) {
    await withUser(ctx.pool, identity, (sql) =>
      sql.query(
        `update app_public.users set ${names.map((n, i) => `${n} = $${i + 1}`).join(', ')} where id = app_public.current_user_id()`,
        Object.values(columns),
      ),
    );
  }
  return getProfile(ctx, identity);
}

function localeProblems(config: Config, locale: string) {
  return (config.locales as string[]).includes(locale)
    ? []
    : [{ code: 'locale_unsupported', message: `The locale is unsupported. Choose one of: ${config.locales.join(', ')}.` }];
}

// ---------------------------------------------------------------------------------------------
// Registration

export interface RegistrationInput {
  username: string;
  email: string;
  password: string;
  alias?: string | undefined;
  gender?: Gender | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
  timeZone?: string | undefined;
  agreedToTerms: boolean;
  agreedToPrivacyPolicy: boolean;
  agreedToResearchUse?: boolean | undefined;
  agreedToBeContacted?: boolean | undefined;
  confirmedAdult: boolean;
  accessPathKind?: string | undefined;
  accessPathDetail?: string | undefined;
  /** The counseling variant (/register-counseling) sets the counseling flags. */
  counseling?: boolean | undefined;
  /** The consent version shown and agreed to, and its language (issue 31 item 1). */
  consentVersionId?: string | undefined;
  consentLanguage?: string | undefined;
}

export const REGISTRATION_ACCEPTED = {
  status: 'confirmation_sent',
  message: 'Thank you. We sent a link to your email address: open it to confirm your registration.',
} as const;

function registrationProblems(ctx: AuthContext, input: RegistrationInput): FieldErrors {
  const errors: FieldErrors = {};
  addFieldErrors(errors, 'username', usernameProblems(input.username));
  addFieldErrors(errors, 'email', emailProblems(input.email));
  addFieldErrors(errors, 'password', passwordProblems(input.password, input));
  if (input.phone) addFieldErrors(errors, 'phone', phoneProblems(input.phone));
  if (input.locale !== undefined) addFieldErrors(errors, 'locale', localeProblems(ctx.config, input.locale));
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone)) {
    addFieldErrors(errors, 'timeZone', [{ code: 'time_zone_unknown', message: 'Choose a time zone from the list, such as Asia/Baghdad.' }]);
  }
  const required: [keyof RegistrationInput, string, string][] = [
    ['agreedToTerms', 'terms_required', 'Please accept the conditions of participation.'],
    ['agreedToPrivacyPolicy', 'privacy_required', 'Please accept the privacy policy.'],
    ['confirmedAdult', 'adult_required', 'Taking part requires being at least 18 years old.'],
  ];
  for (const [field, code, message] of required) {
    if (input[field] !== true) addFieldErrors(errors, field, [{ code, message }]);
  }
  return errors;
}

/**
 * Registers a patient: the account, its secrets, the patient's case (stage "registration") and
 * the patient's membership, in one transaction; then mails the confirmation link. An email
 * address that already has an account gets a notice instead, and the caller the same answer,
 * so registration does not reveal who has an account.
 */
export async function registerPatient(ctx: AuthContext, input: RegistrationInput): Promise<typeof REGISTRATION_ACCEPTED> {
  const errors = registrationProblems(ctx, input);
  if (Object.keys(errors).length > 0) throw badRequest('invalid_registration', 'Some fields need your attention.', errors);

  const locale = (input.locale ?? ctx.config.locales[0] ?? 'ar') as Locale;
  const passwordHash = await hashPassword(input.password);
  const outcome = await withOwner(ctx.pool, async (sql) => {
    const taken = await sql.query<{ username_taken: boolean; email_owner: string | null; email_owner_locale: Locale | null; email_owner_name: string | null }>(
      `select exists (select 1 from app_public.users where username = $1) as username_taken,
              (select email::text from app_public.users where email = $2) as email_owner,
              (select locale from app_public.users where email = $2) as email_owner_locale,
              (select ${GREETING_NAME} from app_public.users where email = $2) as email_owner_name`,
      [input.username, input.email],
    );
    const row = taken.rows[0]!;
    if (row.username_taken) {
      throw badRequest('invalid_registration', 'Some fields need your attention.', {
        username: [{ code: 'username_taken', message: 'This username is taken. Please choose another one.' }],
      });
    }
    if (row.email_owner) {
      return { kind: 'existing' as const, email: row.email_owner, locale: row.email_owner_locale ?? locale, username: row.email_owner_name ?? '' };
    }
    const user = await sql.query<{ id: string }>(
      `insert into app_public.users (username, email, alias, gender, phone, locale, time_zone, is_patient_account,
          is_counseling_only, registered_for_counseling, agreed_to_terms, agreed_to_privacy_policy,
          agreed_to_research_use, agreed_to_be_contacted, confirmed_adult, access_path_kind, access_path_detail)
       values ($1, $2, $3, $4, $5, $6, $7, true, $8, $8, $9, $10, $11, $12, $13, $14, $15)
       returning id`,
      [
        input.username,
        input.email,
        input.alias || null,
        input.gender ?? null,
        input.phone || null,
        locale,
        input.timeZone ?? 'UTC',
        input.counseling === true,
        input.agreedToTerms,
        input.agreedToPrivacyPolicy,
        input.agreedToResearchUse === true,
        input.agreedToBeContacted === true,
        input.confirmedAdult,
        input.accessPathKind ?? null,
        input.accessPathDetail ?? null,
      ],
    );
    const userId = user.rows[0]!.id;
    await sql.query('insert into app_private.user_secrets (user_id, password_hash) values ($1, $2)', [userId, passwordHash]);
    const caseId = await createPatientCase(sql, userId);
    await recordRegistrationConsent(sql, caseId, userId, input, locale);
    // The trial process starts with the registration (workflows/trial.bpmn; run by the workflow scheduler).
    await sql.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
    const token = await createActionToken(sql, ctx.config, userId, 'confirm_registration');
    return { kind: 'created' as const, token, locale };
  }).catch((error: unknown) => {
    // Two registrations racing for the same username: the unique index decides.
    if (isUniqueViolation(error, 'users_username_key')) {
      throw badRequest('invalid_registration', 'Some fields need your attention.', {
        username: [{ code: 'username_taken', message: 'This username is taken. Please choose another one.' }],
      });
    }
    if (isUniqueViolation(error, 'users_email_key')) return { kind: 'raced' as const };
    throw error;
  });

  if (outcome.kind === 'created') {
    await ctx.mailer.send({
      to: input.email,
      kind: 'confirm_registration',
      locale: outcome.locale,
      params: { username: input.alias?.trim() || input.username, link: `${ctx.config.publicUrl}/confirm-registration?token=${outcome.token}` },
    });
  } else if (outcome.kind === 'existing') {
    await ctx.mailer.send({
      to: outcome.email,
      kind: 'account_exists',
      locale: outcome.locale,
      params: { username: outcome.username, link: `${ctx.config.publicUrl}/reset-password` },
    });
  }
  return REGISTRATION_ACCEPTED;
}

/**
 * The consent agreed to at registration (issue 31 item 1): when a consent version is published,
 * registration must name it (the one shown) and its language; app_hidden.record_consent refuses
 * an unknown, draft or outdated version, so the whole registration is refused with nothing
 * written. The identity is confirmed when the mailed link is opened (confirmRegistration).
 */
async function recordRegistrationConsent(sql: Sql, caseId: string, userId: string, input: RegistrationInput, locale: string): Promise<void> {
  const current = await sql.query<{ id: string | null }>('select (app_hidden.current_consent_version()).id');
  if (!current.rows[0]?.id && !input.consentVersionId) return;
  if (!input.consentVersionId) {
    throw badRequest('invalid_registration', 'Some fields need your attention.', {
      consentVersionId: [{ code: 'consent_required', message: 'Please read and agree to the consent document.' }],
    });
  }
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.consentVersionId)) {
    throw badRequest('invalid_registration', 'Some fields need your attention.', {
      consentVersionId: [{ code: 'consent_version_unknown', message: 'There is no such consent version.' }],
    });
  }
  try {
    await sql.query('savepoint consent');
    await sql.query(`select id from app_hidden.record_consent($1, $2, $3, $4, 'email_link', false)`, [
      caseId,
      userId,
      input.consentVersionId,
      input.consentLanguage ?? locale,
    ]);
    await sql.query('release savepoint consent');
  } catch (error) {
    const hint = (error as { hint?: string }).hint;
    if (!hint?.startsWith('consent_')) throw error;
    throw badRequest('invalid_registration', 'Some fields need your attention.', {
      consentVersionId: [{ code: hint, message: (error as Error).message }],
    });
  }
}

/** The patient's case with the patient as its only member; also used by the CLI. */
export async function createPatientCase(sql: Sql, patientId: string): Promise<string> {
  const created = await sql.query<{ id: string }>(`insert into app_public.cases (stage) values ('registration') returning id`);
  const caseId = created.rows[0]!.id;
  await sql.query('insert into app_public.case_members (case_id, user_id, acts_as_patient) values ($1, $2, true)', [caseId, patientId]);
  return caseId;
}

// ---------------------------------------------------------------------------------------------
// Mailed single-use links

type ActionKind = 'confirm_registration' | 'reset_password' | 'change_email';

function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

async function createActionToken(sql: Sql, config: Config, userId: string, kind: ActionKind, newEmail?: string): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await sql.query(
    `insert into app_private.action_tokens (token_hash, kind, user_id, new_email, token_generation, expires_at)
     values ($1, $2, $3, $4, (select token_generation from app_private.user_secrets where user_id = $3),
             now() + make_interval(secs => $5))`,
    [hashToken(token), kind, userId, newEmail ?? null, config.actionTokenTtlSeconds],
  );
  return token;
}

interface ActionTokenRow {
  user_id: string;
  new_email: string | null;
  token_generation: number;
  current_generation: number;
  expired: boolean;
  used: boolean;
}

/** Claims a mailed token (locking it): a clear 400 for an unknown, used or expired one. */
async function claimActionToken(sql: Sql, token: string, kind: ActionKind): Promise<ActionTokenRow> {
  const { rows } = await sql.query<ActionTokenRow>(
    `select t.user_id, t.new_email::text, t.token_generation, s.token_generation as current_generation,
            t.expires_at <= now() as expired, t.used_at is not null as used
       from app_private.action_tokens t
       join app_private.user_secrets s on s.user_id = t.user_id
      where t.token_hash = $1 and t.kind = $2
        for update of t`,
    [hashToken(token), kind],
  );
  const row = rows[0];
  if (!row) throw badRequest('token_invalid', 'This link is not valid. Please use the newest link we mailed you, or ask for a new one.');
  if (row.used) throw badRequest('token_used', 'This link was already used. If you still need to, ask for a new one.');
  if (row.expired) throw badRequest('token_expired', 'This link has expired. Please ask for a new one.');
  if (kind === 'reset_password' && row.token_generation !== row.current_generation) {
    throw badRequest('token_used', 'This link is no longer valid because the password was changed since. Ask for a new one if needed.');
  }
  await sql.query('update app_private.action_tokens set used_at = now() where token_hash = $1', [hashToken(token)]);
  return row;
}

/** Keyed hash of an address, so a validity record never holds the address itself. */
function emailHash(ctx: AuthContext, email: string): string {
  return crypto.createHmac('sha256', ctx.emailHashKey).update(email.trim().toLowerCase()).digest('hex');
}

async function recordValidEmail(sql: Sql, ctx: AuthContext, userId: string, email: string): Promise<void> {
  await sql.query(
    `insert into app_private.hashed_email_validity (email_hash, user_id, confirmed_at)
     values ($1, $2, now())
     on conflict (email_hash) do update set user_id = excluded.user_id, confirmed_at = excluded.confirmed_at`,
    [emailHash(ctx, email), userId],
  );
}

export async function confirmRegistration(ctx: AuthContext, token: string): Promise<{ status: 'confirmed' }> {
  await withOwner(ctx.pool, async (sql) => {
    const row = await claimActionToken(sql, token, 'confirm_registration');
    const user = await sql.query<{ email: string }>(
      `update app_public.users set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = $1 returning email::text`,
      [row.user_id],
    );
    await recordValidEmail(sql, ctx, row.user_id, user.rows[0]!.email);
    // The mailed link confirms who agreed at registration (issue 31 item 1).
    await sql.query(
      `update app_public.case_consents set identity_confirmed_at = now() where user_id = $1 and identity_method = 'email_link' and identity_confirmed_at is null`,
      [row.user_id],
    );
  });
  return { status: 'confirmed' };
}

export const GENERIC_MAIL_ANSWER = {
  status: 'accepted',
  message: 'If an account with this address exists, we have sent it an email. Please check your inbox.',
} as const;

export async function resendConfirmation(ctx: AuthContext, email: string): Promise<typeof GENERIC_MAIL_ANSWER> {
  // The lookup and the mail happen after the answer: known and unknown addresses answer alike.
  await afterAnswer(ctx, 'resend confirmation', async () => {
    const pending = await withOwner(ctx.pool, async (sql) => {
      const { rows } = await sql.query<{ id: string; username: string; email: string; locale: Locale }>(
        `select id, ${GREETING_NAME} as username, email::text, locale from app_public.users where email = $1 and email_confirmed_at is null`,
        [email],
      );
      const user = rows[0];
      if (!user) return undefined;
      return { user, token: await createActionToken(sql, ctx.config, user.id, 'confirm_registration') };
    });
    if (pending) {
      await ctx.mailer.send({
        to: pending.user.email,
        kind: 'confirm_registration',
        locale: pending.user.locale,
        params: { username: pending.user.username, link: `${ctx.config.publicUrl}/confirm-registration?token=${pending.token}` },
      });
    }
  });
  return GENERIC_MAIL_ANSWER;
}

// ---------------------------------------------------------------------------------------------
// Sign-in and sign-out

const invalidCredentials = () => unauthorized('invalid_credentials', 'The username or password is wrong.');
/** The same answer for a known or unknown name: it says to wait, never that an account is locked. */
const tooManyAttempts = (seconds: number) =>
  new HttpError(429, 'too_many_attempts', `Too many failed sign-ins. Please wait ${seconds} seconds and try again.`, undefined, {
    retryAfterSeconds: seconds,
  });

interface SignInRow {
  id: string;
  password_hash: string;
  email_confirmed_at: Date | null;
  disabled_at: Date | null;
}

/**
 * The second step of sign-in for a person with a second factor: 401 mfa_code_required without a
 * code (the app then asks for it and sends password and code again), 401 mfa_code_invalid for
 * a wrong or replayed one, which counts as a failed sign-in. A role that requires a factor but
 * has none set up signs in with the password and is sent to set it up (it cannot sign acts).
 */
async function requireSecondFactorAtSignIn(ctx: AuthContext, userId: string, code: unknown, login: string, address: string): Promise<void> {
  const check = await withOwner(ctx.pool, async (sql) => {
    const state = await mfaState(sql, userId, ctx.config.mfaRequiredRoles);
    if (!state.enrolled) return 'none' as const;
    return checkSecondFactor(sql, userId, code, Date.now(), 'sign_in', address);
  });
  if (check === 'missing') throw unauthorized('mfa_code_required', 'Enter the 6-digit code of your authenticator app (or a recovery code).');
  if (check === 'wrong') {
    await ctx.throttle?.recordFailure(login, address);
    await recordAccountEvent(ctx.pool, { event: 'mfa_failed', userId, detail: { purpose: 'sign_in' }, address });
    throw unauthorized('mfa_code_invalid', 'The code is not right. Enter the current 6-digit code of your authenticator app.');
  }
}

/**
 * Signs a person in. `address` is the client address the throttle counts failures by; a
 * failed sign-in answers 401 whether or not the name exists, and 429 with the wait while the
 * name at this address (or the address) is slowed down (src/server/auth/throttle.ts).
 */
export async function signIn(ctx: AuthContext, login: string, password: string, address = 'local', code?: unknown): Promise<{ encoded: string; expiresAt: string }> {
  const wait = (await ctx.throttle?.waitSeconds(login, address)) ?? 0;
  if (wait > 0) throw tooManyAttempts(wait);
  const found = await withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<SignInRow>(
      `select u.id, s.password_hash, u.email_confirmed_at, s.disabled_at
         from app_public.users u join app_private.user_secrets s on s.user_id = u.id
        where (u.username = $1 or u.email = $1) and u.system_role = 'USER'`,
      [login],
    );
    return rows[0];
  });
  // An unknown name costs the same hashing as a wrong password, so timing tells nothing either.
  const valid = found ? await verifyPassword(found.password_hash, password) : (await verifyAgainstDummy(password), false);
  if (!found || !valid) {
    await ctx.throttle?.recordFailure(login, address);
    // Issue 30: every failed sign-in is logged; an unknown name is logged without it.
    await recordAccountEvent(ctx.pool, { event: 'sign_in_failed', userId: found?.id ?? null, detail: { reason: found ? 'password' : 'unknown_name' }, address });
    throw invalidCredentials();
  }
  await ctx.throttle?.recordSuccess(login, address);
  // Issue 27: a coordinator disabled the account (0160); said only to whoever knows the password.
  if (found.disabled_at) throw new HttpError(403, 'account_disabled', 'This account is disabled. Please contact the coordinator of the trial.');
  if (!found.email_confirmed_at) {
    await recordAccountEvent(ctx.pool, { event: 'sign_in_failed', userId: found.id, detail: { reason: 'email_unconfirmed' }, address });
    throw new HttpError(403, 'email_unconfirmed', 'Please confirm your email address first: open the link we mailed you, or ask for a new one.');
  }
  // Issue 30: a person with a second factor signs in with its code too (src/server/signing/mfa.ts).
  await requireSecondFactorAtSignIn(ctx, found.id, code, login, address);
  return withOwnerAs(ctx.pool, found.id, async (sql) => {
    await sql.query(`update app_public.users set last_login = now(), nr_of_logins = nr_of_logins + 1 where id = $1`, [found.id]);
    await appendAccountEvent(sql, { event: 'sign_in', userId: found.id, address });
    const token = await ctx.tokens.issue(sql, found.id);
    return { encoded: token.encoded, expiresAt: token.expiresAt.toISOString() };
  });
}

export async function signOut(ctx: AuthContext, tokenId: string): Promise<void> {
  await withOwner(ctx.pool, async (sql) => {
    const revoked = await sql.query<{ user_id: string }>(
      'update app_private.login_tokens set revoked_at = now() where id = $1 and revoked_at is null returning user_id',
      [tokenId],
    );
    if (revoked.rows[0]) await appendAccountEvent(sql, { event: 'signed_out', userId: revoked.rows[0].user_id });
  });
  ctx.tokens.forget(tokenId);
}

// ---------------------------------------------------------------------------------------------
// Passwords

async function loadSecrets(sql: Sql, userId: string) {
  const { rows } = await sql.query<{ password_hash: string; username: string; email: string; locale: Locale }>(
    `select s.password_hash, coalesce(nullif(btrim(u.alias), ''), u.username::text) as username, u.email::text, u.locale
       from app_private.user_secrets s join app_public.users u on u.id = s.user_id
      where s.user_id = $1 for update of s`,
    [userId],
  );
  if (!rows[0]) throw notFound('user_not_found', 'Your account no longer exists.');
  return rows[0];
}

/** Changes the password of a signed-in person and ends their other sessions. */
export async function changePassword(
  ctx: AuthContext,
  identity: { userId: string; tokenId: string },
  currentPassword: string,
  newPassword: string,
): Promise<{ status: 'changed' }> {
  const account = await withOwner(ctx.pool, (sql) => loadSecrets(sql, identity.userId));
  if (!(await verifyPassword(account.password_hash, currentPassword))) {
    throw badRequest('invalid_password', 'The current password is wrong.', {
      currentPassword: [{ code: 'password_wrong', message: 'The current password is wrong.' }],
    });
  }
  const problems = passwordProblems(newPassword, account);
  if (problems.length > 0) throw badRequest('invalid_password', 'The new password does not meet the rules.', { newPassword: problems });
  const newHash = await hashPassword(newPassword);
  await withOwnerAs(ctx.pool, identity.userId, async (sql) => {
    await sql.query(
      `update app_private.user_secrets set password_hash = $2, token_generation = token_generation + 1 where user_id = $1`,
      [identity.userId, newHash],
    );
    await sql.query(
      `update app_private.login_tokens set revoked_at = now() where user_id = $1 and id <> $2 and revoked_at is null`,
      [identity.userId, identity.tokenId],
    );
    await appendAccountEvent(sql, { event: 'password_changed', userId: identity.userId });
  });
  ctx.tokens.forgetUser(identity.userId, identity.tokenId);
  await ctx.mailer.send({ to: account.email, kind: 'password_changed', locale: account.locale, params: { username: account.username } });
  return { status: 'changed' };
}

export async function requestPasswordReset(ctx: AuthContext, email: string): Promise<typeof GENERIC_MAIL_ANSWER> {
  // The lookup and the mail happen after the answer: known and unknown addresses answer alike.
  await afterAnswer(ctx, 'password reset', async () => {
    const pending = await withOwner(ctx.pool, async (sql) => {
      const { rows } = await sql.query<{ id: string; username: string; email: string; locale: Locale }>(
        `select id, ${GREETING_NAME} as username, email::text, locale from app_public.users where email = $1 and system_role = 'USER'`,
        [email],
      );
      const user = rows[0];
      if (!user) return undefined;
      return { user, token: await createActionToken(sql, ctx.config, user.id, 'reset_password') };
    });
    if (pending) {
      await ctx.mailer.send({
        to: pending.user.email,
        kind: 'reset_password',
        locale: pending.user.locale,
        params: { username: pending.user.username, link: `${ctx.config.publicUrl}/confirm-reset?token=${pending.token}` },
      });
    }
  });
  return GENERIC_MAIL_ANSWER;
}

/** Sets a new password from a mailed link; ends every session and lifts a lockout. */
export async function confirmPasswordReset(ctx: AuthContext, token: string, newPassword: string): Promise<{ status: 'changed' }> {
  // The password rule needs the account's names, so check the link first without using it.
  const owner = await withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<{ username: string; email: string }>(
      `select u.username::text, u.email::text from app_private.action_tokens t join app_public.users u on u.id = t.user_id
        where t.token_hash = $1 and t.kind = 'reset_password'`,
      [hashToken(token)],
    );
    return rows[0];
  });
  const problems = passwordProblems(newPassword, owner ?? {});
  if (problems.length > 0) throw badRequest('invalid_password', 'The new password does not meet the rules.', { password: problems });
  const newHash = await hashPassword(newPassword);
  const account = await withOwner(ctx.pool, async (sql) => {
    const row = await claimActionToken(sql, token, 'reset_password');
    await sql.query(
      `update app_private.user_secrets
          set password_hash = $2, token_generation = token_generation + 1,
              failed_attempts = 0, first_failed_at = null, locked_until = null
        where user_id = $1`,
      [row.user_id, newHash],
    );
    await sql.query(`update app_private.login_tokens set revoked_at = now() where user_id = $1 and revoked_at is null`, [row.user_id]);
    await appendAccountEvent(sql, { event: 'password_reset', userId: row.user_id });
    // Receiving the link proves the address works, so an unconfirmed one counts as confirmed.
    const user = await sql.query<{ id: string; email: string; username: string; locale: Locale }>(
      `update app_public.users set email_confirmed_at = coalesce(email_confirmed_at, now()) where id = $1
       returning id, email::text, ${GREETING_NAME} as username, locale`,
      [row.user_id],
    );
    return user.rows[0]!;
  });
  // After the commit, so no request in between can cache a token that is about to die.
  ctx.tokens.forgetUser(account.id);
  await ctx.mailer.send({ to: account.email, kind: 'password_changed', locale: account.locale, params: { username: account.username } });
  return { status: 'changed' };
}

// ---------------------------------------------------------------------------------------------
// Email change

export async function requestEmailChange(
  ctx: AuthContext,
  identity: { userId: string },
  newEmail: string,
  password: string,
): Promise<{ status: 'confirmation_sent'; message: string }> {
  const problems = emailProblems(newEmail);
  if (problems.length > 0) throw badRequest('invalid_email', 'Enter a valid email address.', { newEmail: problems });
  const account = await withOwner(ctx.pool, (sql) => loadSecrets(sql, identity.userId));
  if (!(await verifyPassword(account.password_hash, password))) {
    throw badRequest('invalid_password', 'The password is wrong.', { password: [{ code: 'password_wrong', message: 'The password is wrong.' }] });
  }
  // Whether the address is taken is decided after the answer, and the answer is the same either
  // way: the owner of a taken address is told by mail instead of the person asking (issue 16).
  await afterAnswer(ctx, 'email change', async () => {
    const outcome = await withOwner(ctx.pool, async (sql) => {
      const { rows } = await sql.query<{ username: string; email: string; locale: Locale }>(
        'select username::text, email::text, locale from app_public.users where email = $1',
        [newEmail],
      );
      if (rows[0]) return { taken: rows[0], token: undefined };
      return { taken: undefined, token: await createActionToken(sql, ctx.config, identity.userId, 'change_email', newEmail) };
    });
    if (outcome.taken) {
      await ctx.mailer.send({ to: outcome.taken.email, kind: 'email_change_taken', locale: outcome.taken.locale, params: { username: outcome.taken.username } });
    } else {
      await ctx.mailer.send({
        to: newEmail,
        kind: 'change_email',
        locale: account.locale,
        params: { username: account.username, newEmail, link: `${ctx.config.publicUrl}/confirm-emailchange?token=${outcome.token}` },
      });
    }
    await ctx.mailer.send({ to: account.email, kind: 'email_change_notice', locale: account.locale, params: { username: account.username } });
  });
  return { status: 'confirmation_sent', message: 'We sent a link to the new address: open it to complete the change.' };
}

export async function confirmEmailChange(ctx: AuthContext, token: string): Promise<{ status: 'changed'; email: string }> {
  return withOwner(ctx.pool, async (sql) => {
    const row = await claimActionToken(sql, token, 'change_email');
    await sql.query(`select set_config('jwt.claims.user_id', $1, true)`, [row.user_id]);
    const email = row.new_email!;
    try {
      await sql.query(`update app_public.users set email = $2, email_confirmed_at = now() where id = $1`, [row.user_id, email]);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) {
        throw conflict('email_taken', 'This email address now belongs to another account, so it cannot be used.');
      }
      throw error;
    }
    await recordValidEmail(sql, ctx, row.user_id, email);
    return { status: 'changed' as const, email };
  });
}

// ---------------------------------------------------------------------------------------------

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | undefined;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
