/**
 * Every setting the server reads, in one place. The README's settings table mirrors this file;
 * when you add a setting here, add its row there too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { scheduleFromSettings, type MeasurementSchedule } from '../domain/measurements';
import { MFA_ROLES, type MfaRole } from '../domain/signatures';
import { parseTreatmentModules, type TreatmentModules } from '../domain/treatment-modules';
import { repoPath } from './paths';

export const SUPPORTED_LOCALES = ['ar', 'de', 'en'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

export interface Config {
  /** production, development or test; GraphiQL and pretty logs only outside production. */
  env: 'production' | 'development' | 'test';
  host: string;
  port: number;
  /** Base URL used in mailed links (confirmation, reset, notifications). */
  publicUrl: string;
  /** Folder for the embedded database, the generated signing secret and the mail outbox. */
  dataDir: string;
  /** When set, a PostgreSQL server is used instead of the embedded PGlite database. */
  databaseUrl: string | undefined;
  /**
   * AUTHENTICATOR_DATABASE_URL: the request pool's login as sanad_authenticator, for managed
   * databases whose owner may not set that role's password; unset: derived from DATABASE_URL.
   */
  authenticatorUrl: string | undefined;
  /** Largest number of pooled connections to a PostgreSQL server. */
  databasePoolSize: number;
  /** How long a new PostgreSQL connection may take before the request gets a 503 (issue 28). */
  databaseConnectTimeoutMs: number;
  /** HS256 secret for bearer tokens; generated once and kept in DATA_DIR when unset. */
  jwtSecret: string | undefined;
  tokenTtlSeconds: number;
  /** How long a verified token is trusted without asking the database again (0: always ask). */
  tokenCacheSeconds: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  maintenance: boolean;
  /** Issue 28: after SIGTERM, how long the server keeps serving while /readyz says not ready (ms). */
  shutdownDelayMs: number;
  /** Issue 28: how long running requests and worker runs may take to finish at shutdown (ms). */
  shutdownGraceMs: number;
  /** Issue 28: how long an Idempotency-Key and its first answer are kept (s), and when an unanswered claim is taken over (s). */
  idempotency: { ttlSeconds: number; staleSeconds: number };
  /**
   * Issue 28: who may read /metrics. `off` (the default without METRICS_TOKEN), `token` (a bearer
   * token equal to METRICS_TOKEN; the default with one) or `local` (only a direct connection from
   * this machine's loopback address, no proxy in between).
   */
  metrics: { access: 'off' | 'local' | 'token'; token: string | undefined };
  /**
   * Sign-in throttle (src/server/auth/throttle.ts): free failures per name and address, per
   * address across names, the window that forgets them, and the longest delay (lockSeconds).
   */
  lockout: { maxAttempts: number; maxAttemptsPerAddress: number; windowSeconds: number; lockSeconds: number };
  /** Requests per minute and IP on the account routes. */
  authRateLimitPerMinute: number;
  /**
   * Which proxies may name the client address in X-Forwarded-For (Fastify's trustProxy):
   * false (default: trust none, the socket address is the client), true (any: only behind a
   * proxy that overwrites the header), a hop count, or a list of addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  /** Requests per minute on GraphQL, REST and workflow routes, per signed-in person and per address (0: no limit). */
  rateLimit: { perPersonPerMinute: number; perAddressPerMinute: number };
  /**
   * Where rate limits and sign-in failures are counted (issue 28): `database` (PostgreSQL,
   * shared by every process; the default with DATABASE_URL) or `memory` (this process; the
   * default with the embedded database, which admits one process).
   */
  limitStore: 'memory' | 'database';
  /**
   * Account roles that must use a second factor (TOTP) to sign in and to sign (issue 30;
   * MFA_REQUIRED_ROLES, comma-separated; default coordinator; empty: none is required).
   */
  mfaRequiredRoles: MfaRole[];
  /** Bounds on one GraphQL operation (src/server/graphql/limits.ts). */
  graphqlLimits: { maxCost: number; maxDepth: number; maxAliases: number; maxRootFields: number; defaultPageSize: number; maxTokens: number };
  /** Longest statement of a request role, in ms (0: no limit). */
  statementTimeoutMs: number;
  /** Longest time to receive a request and, for GraphQL, to plan and run it, in ms (0: no limit). */
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  /** DOWNLOAD_MAX_BYTES: the largest document a coordinator may upload to /downloads. */
  downloadMaxBytes: number;
  locales: Locale[];
  logLevel: string;
  /** Lifetime of mailed single-use links. */
  actionTokenTtlSeconds: number;
  /** At most one new-message mail per recipient and case within this many seconds. */
  notificationQuietSeconds: number;
  /** How often the server looks for notifications to send (0: never, e.g. in tests). */
  notificationIntervalMs: number;
  /** How often the workflow scheduler fires due timers and consumes the outbox (0: never, e.g. in tests). */
  workflowIntervalMs: number;
  /** How often the retention job checks whether today's run is done (0: never, e.g. in tests; issue 31). */
  retentionCheckIntervalMs: number;
  /** How often the engagement sweep records state changes and opens outreach tasks (0: never, e.g. in tests; issue 32). */
  engagementSweepIntervalMs: number;
  /** Attempts of a failing service-task handler before its job is marked failed. */
  workflowMaxAttempts: number;
  /** First retry delay of a failing handler or outbox message; it doubles per attempt. */
  workflowRetrySeconds: number;
  /** Folder of the BPMN files deployed at start. */
  workflowsDir: string;
  /** Memory for kept answers of polled GraphQL reads, in MiB (0: no read cache). */
  readCacheMb: number;
  /** Answer the web's case lists from one SQL statement each (GRAPHQL_COMPILED_LISTS, default on). */
  compiledLists: boolean;
  /** Questionnaires due at each time of measurement (MEASUREMENTS_SCREENING, …_PRE, …). */
  measurementSchedule: MeasurementSchedule;
  /** Booked interviews a patient may miss before being excluded "for missing interview". */
  missedInterviewLimit: number;
  /**
   * Clinical safety: how soon a risk signal's task and a call's coordinator review are due; how
   * long a risk task may wait for someone to take it on before the coordinators are told
   * (ackDue), and after that before the on-call address is told (onCallAfter): ISO-8601
   * durations. onCallEmail null: the chain ends with the coordinators.
   */
  safety: { taskDue: string; reviewDue: string; ackDue: string; onCallAfter: string; onCallEmail: string | null; onCallLocale: Locale };
  /** Treatment modules: the worksheets each arm assigns as patient tasks (TREATMENT_MODULES). */
  treatmentModules: TreatmentModules;
}

type Env = Record<string, string | undefined>;

/** An ISO-8601 duration such as PT24H or P1D (the workflow's timers read it). */
/**
 * TREATMENT_MODULES: the JSON itself, or the path of a JSON file; unset, the file
 * treatment-modules.json of the workflows folder when it exists, otherwise no modules.
 */
function treatmentModulesSetting(env: Env, workflowsDir: string): TreatmentModules {
  const value = env.TREATMENT_MODULES?.trim();
  const file = value && !value.startsWith('{') ? path.resolve(value) : path.join(workflowsDir, 'treatment-modules.json');
  let text = value && value.startsWith('{') ? value : undefined;
  if (text === undefined) {
    if (!fs.existsSync(file)) {
      if (value) throw new Error(`Setting TREATMENT_MODULES names the file "${file}", which does not exist`);
      return {};
    }
    text = fs.readFileSync(file, 'utf8');
  }
  const source = text === value ? 'Setting TREATMENT_MODULES' : `Treatment modules file ${file}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseTreatmentModules(raw, source);
}

function durationSetting(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  if (!value) return fallback;
  if (!/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/.test(value)) {
    throw new Error(`Setting ${name} must be an ISO-8601 duration such as PT24H or P1D, not "${value}"`);
  }
  return value;
}

function intSetting(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`Setting ${name} must be a whole number of at least ${min}, got "${raw}"`);
  }
  return value;
}

function flagSetting(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  return raw === '1' || raw === 'true' || raw === 'yes' || raw === 'on';
}

/** TRUST_PROXY: empty or false (trust none), true, a hop count, or a comma list of addresses/CIDRs. */
function trustProxySetting(env: Env): boolean | number | string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of list) {
    if (!/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry)) {
      throw new Error(`Setting TRUST_PROXY lists "${entry}"; give addresses, CIDR ranges, loopback, linklocal or uniquelocal`);
    }
  }
  return list;
}

/** An e-mail address, or null when unset. */
function emailSetting(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw)) throw new Error(`Setting ${name} must be an e-mail address, e.g. oncall@clinic.example`);
  return raw;
}

/** LIMIT_STORE: memory or database; unset: database with DATABASE_URL, otherwise memory. */
/** METRICS=off|local|token; by default `token` when METRICS_TOKEN is set, `off` otherwise. */
function metricsSetting(env: Env): Config['metrics'] {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new Error('Setting METRICS_TOKEN must be at least 16 characters long');
  const wanted = (env.METRICS || (token ? 'token' : 'off')).toLowerCase();
  if (wanted !== 'off' && wanted !== 'local' && wanted !== 'token') throw new Error('Setting METRICS must be off, local or token');
  if (wanted === 'token' && !token) throw new Error('Setting METRICS=token needs METRICS_TOKEN');
  return { access: wanted, token };
}

function limitStoreSetting(env: Env): 'memory' | 'database' {
  const raw = (env.LIMIT_STORE ?? '').trim().toLowerCase();
  if (raw === '') return env.DATABASE_URL ? 'database' : 'memory';
  if (raw === 'memory' || raw === 'database') return raw;
  throw new Error(`Setting LIMIT_STORE must be "memory" or "database", not "${env.LIMIT_STORE}"`);
}

function mfaRolesSetting(env: Env): MfaRole[] {
  const raw = env.MFA_REQUIRED_ROLES;
  if (raw === undefined) return ['coordinator'];
  const wanted = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const role of wanted) {
    if (!(MFA_ROLES as readonly string[]).includes(role)) throw new Error(`Setting MFA_REQUIRED_ROLES lists "${role}"; known are ${MFA_ROLES.join(', ')}`);
  }
  return wanted as MfaRole[];
}

function localeSetting(env: Env): Locale[] {
  const raw = env.LOCALES;
  if (!raw) return [...SUPPORTED_LOCALES];
  const wanted = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const locale of wanted) {
    if (!(SUPPORTED_LOCALES as readonly string[]).includes(locale)) {
      throw new Error(`Setting LOCALES lists "${locale}"; supported are ${SUPPORTED_LOCALES.join(', ')}`);
    }
  }
  if (wanted.length === 0) throw new Error('Setting LOCALES must name at least one locale');
  return wanted as Locale[];
}

/** Reads the configuration from environment variables (process.env by default). */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const port = intSetting(env, 'PORT', 8080, 0);
  const config: Config = {
    env: nodeEnv,
    host: env.HOST || '0.0.0.0',
    port,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    authenticatorUrl: env.AUTHENTICATOR_DATABASE_URL || undefined,
    databasePoolSize: intSetting(env, 'DATABASE_POOL_SIZE', 20, 1),
    databaseConnectTimeoutMs: intSetting(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100),
    jwtSecret: env.JWT_SECRET || undefined,
    tokenTtlSeconds: intSetting(env, 'TOKEN_TTL_SECONDS', 12 * 3600, 60),
    tokenCacheSeconds: intSetting(env, 'TOKEN_CACHE_SECONDS', 5, 0),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Sanad <no-reply@sanad.invalid>',
    maintenance: flagSetting(env, 'MAINTENANCE'),
    shutdownDelayMs: intSetting(env, 'SHUTDOWN_DELAY_MS', 2000, 0),
    shutdownGraceMs: intSetting(env, 'SHUTDOWN_GRACE_MS', 20_000, 0),
    idempotency: {
      ttlSeconds: intSetting(env, 'IDEMPOTENCY_KEY_TTL_SECONDS', 24 * 3600, 60),
      staleSeconds: intSetting(env, 'IDEMPOTENCY_STALE_SECONDS', 120, 1),
    },
    metrics: metricsSetting(env),
    lockout: {
      maxAttempts: intSetting(env, 'LOCKOUT_MAX_ATTEMPTS', 5, 1),
      maxAttemptsPerAddress: intSetting(env, 'LOCKOUT_MAX_ATTEMPTS_PER_ADDRESS', 20, 1),
      windowSeconds: intSetting(env, 'LOCKOUT_WINDOW_SECONDS', 15 * 60, 1),
      lockSeconds: intSetting(env, 'LOCKOUT_SECONDS', 15 * 60, 1),
    },
    authRateLimitPerMinute: intSetting(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 30, 1),
    trustProxy: trustProxySetting(env),
    rateLimit: {
      perPersonPerMinute: intSetting(env, 'RATE_LIMIT_PER_PERSON_PER_MINUTE', 600, 0),
      perAddressPerMinute: intSetting(env, 'RATE_LIMIT_PER_ADDRESS_PER_MINUTE', 1200, 0),
    },
    limitStore: limitStoreSetting(env),
    mfaRequiredRoles: mfaRolesSetting(env),
    graphqlLimits: {
      maxCost: intSetting(env, 'GRAPHQL_MAX_COST', 100_000, 1),
      maxDepth: intSetting(env, 'GRAPHQL_MAX_DEPTH', 12, 1),
      maxAliases: intSetting(env, 'GRAPHQL_MAX_ALIASES', 64, 0),
      maxRootFields: intSetting(env, 'GRAPHQL_MAX_ROOT_FIELDS', 64, 1),
      defaultPageSize: intSetting(env, 'GRAPHQL_DEFAULT_PAGE_SIZE', 50, 1),
      maxTokens: intSetting(env, 'GRAPHQL_MAX_TOKENS', 5000, 100),
    },
    statementTimeoutMs: intSetting(env, 'STATEMENT_TIMEOUT_MS', 15_000, 0),
    requestTimeoutMs: intSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, 0),
    bodyLimitBytes: intSetting(env, 'BODY_LIMIT_BYTES', 256 * 1024, 1024),
    // The upload route of /downloads has its own, larger limit (the JSON routes keep theirs).
    downloadMaxBytes: intSetting(env, 'DOWNLOAD_MAX_BYTES', 5 * 1024 * 1024, 1024),
    locales: localeSetting(env),
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    actionTokenTtlSeconds: intSetting(env, 'ACTION_TOKEN_TTL_SECONDS', 48 * 3600, 60),
    notificationQuietSeconds: intSetting(env, 'NOTIFICATION_QUIET_SECONDS', 30 * 60, 0),
    readCacheMb: intSetting(env, 'READ_CACHE_MB', 64, 0),
    compiledLists: (env.GRAPHQL_COMPILED_LISTS ?? '') === '' || flagSetting(env, 'GRAPHQL_COMPILED_LISTS'),
    notificationIntervalMs: intSetting(env, 'NOTIFICATION_INTERVAL_MS', nodeEnv === 'test' ? 0 : 5000, 0),
    workflowIntervalMs: intSetting(env, 'WORKFLOW_INTERVAL_MS', nodeEnv === 'test' ? 0 : 1000, 0),
    retentionCheckIntervalMs: intSetting(env, 'RETENTION_CHECK_INTERVAL_MS', nodeEnv === 'test' ? 0 : 3_600_000, 0),
    engagementSweepIntervalMs: intSetting(env, 'ENGAGEMENT_SWEEP_INTERVAL_MS', nodeEnv === 'test' ? 0 : 900_000, 0),
    workflowMaxAttempts: intSetting(env, 'WORKFLOW_MAX_ATTEMPTS', 5, 1),
    workflowRetrySeconds: intSetting(env, 'WORKFLOW_RETRY_SECONDS', 30, 0),
    workflowsDir: path.resolve(env.WORKFLOWS_DIR || repoPath('workflows')),
    measurementSchedule: scheduleFromSettings(env),
    missedInterviewLimit: intSetting(env, 'MISSED_INTERVIEW_LIMIT', 2, 1),
    safety: {
      taskDue: durationSetting(env, 'SAFETY_TASK_DUE', 'PT24H'),
      reviewDue: durationSetting(env, 'SAFETY_REVIEW_DUE', 'PT24H'),
      ackDue: durationSetting(env, 'SAFETY_ACK_DUE', 'PT2H'),
      onCallAfter: durationSetting(env, 'SAFETY_ON_CALL_AFTER', 'PT2H'),
      onCallEmail: emailSetting(env, 'SAFETY_ON_CALL_EMAIL'),
      onCallLocale: localeSetting(env)[0]!,
    },
    treatmentModules: treatmentModulesSetting(env, path.resolve(env.WORKFLOWS_DIR || repoPath('workflows'))),
  };
  if (config.jwtSecret !== undefined && config.jwtSecret.length < 32) {
    throw new Error('Setting JWT_SECRET must be at least 32 characters long');
  }
  return { ...config, ...overrides };
}
