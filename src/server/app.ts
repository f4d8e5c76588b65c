/**
 * Builds the Fastify application: security headers, body limits, maintenance mode, identity,
 * the account routes, GraphQL and the health probes. main.ts starts it; tests build it with
 * their own database and mail transport.
 */
import crypto from 'node:crypto';
import Fastify, { type FastifyServerOptions, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { grafserv } from 'postgraphile/grafserv/fastify/v5';
import type { PostGraphileInstance } from 'postgraphile';
import type { Logger } from 'pino';
import './http/types';
import type { Config } from './config';
import type { Database } from './db/database';
import { migrationsUpToDate } from './db/migrate';
import { ANONYMOUS } from './db/transaction';
import { HttpError, databaseRefusal } from './http/errors';
import { DatabaseAvailability } from './db/availability';
import { DATABASE_RETRY_SECONDS, sendDatabaseUnavailable } from './http/unavailable';
import { registerSecurityHeaders } from './http/security-headers';
import { OneLinePerRequest } from './http/request-log';
import { registerRequestId, requestIdFor, requestLogger } from './http/request-id';
import { registerIdempotency, sweepIdempotencyKeys } from './http/idempotency';
import { RequestMetrics, registerMetrics } from './ops/metrics';
import { startPeriodic } from './periodic';
import { createTokenService, loadSigningSecret, type TokenService } from './auth/tokens';
import { SharedSignInThrottle, SignInThrottle } from './auth/throttle';
import { createRequestLimiter, createSharedRequestLimiter } from './http/rate-limits';
import { registerGraphqlLimits } from './graphql/guard';
import { setRequestStatementTimeout } from './db/transaction';
import { registerAuthRoutes } from './auth/routes';
import { BackgroundWork, type AuthContext } from './auth/service';
import { createMailer, type Mailer } from './mail/mailer';
import { createGraphql, GRAPHIQL_PATH, GRAPHQL_PATH } from './graphql/preset';
import { ReadCache } from './graphql/read-cache';
import { CompiledLists } from './graphql/compiled-lists';
import { createLogger } from './logger';
import { registerPageRoutes } from './content/pages';
import { registerMeasurementRoutes } from './measurements';
import { registerWordingRoutes } from './content/wording';
import { registerMessageTemplateRoutes } from './letters/message-templates';
import { registerExportRoutes } from './questionnaires/export';
import { registerSyntaxRoutes } from './questionnaires/syntax';
import { registerOdmRoutes } from './questionnaires/odm';
import { registerTrialRoutes } from './trial/routes';
import { registerCounselingRoutes } from './counseling/routes';
import { registerStaffAccountRoutes } from './staff/routes';
import { registerDownloadRoutes } from './downloads/routes';
import { registerOwnDataRoutes } from './own-data/routes';
import { registerConsentRoutes } from './consent/routes';
import { registerWithdrawalRoutes } from './withdrawal/routes';
import { registerEngagementRoutes } from './engagement/routes';
import { startEngagementSweep } from './engagement/service';
import { registerRetentionRoutes } from './retention/routes';
import { startRetentionJob } from './retention/service';
import { registerWebApp, wantsPage } from './web/static';
import { needsPlainHttpPage, plainHttpPage, upgradeOptions } from './http/plain-http';
import { registerAccessLog } from './integrity/access-log';
import { registerIntegrityRoutes } from './integrity/routes';
import { registerGraphqlAccessLog } from './integrity/graphql-reads';
import { startNotificationWorker } from './notifications/worker';
import { startInterviewMailWorker } from './interviews/mail-worker';
import { registerRestCollections, type CollectionRegistry } from './rest';
import { appCollections } from './collections';
import type { FieldErrors } from '../domain/accounts';
// Workflow engine (issue 6)
import { WorkflowHost } from './workflow/host';
import { safetyHandlers } from './safety/handlers';
import { treatmentModuleHandlers, syncArmWorksheets } from './therapy/modules';
import { registerWorkflowRoutes } from './workflow/rest';
import { startWorkflowScheduler, tick as workflowTick, type TickCounts } from './workflow/scheduler';
import type { Clock } from './workflow/engine';
import type { HandlerRegistry } from './workflow/handlers';
import { registerReportRoutes } from './reports/routes';
import { registerSigningRoutes } from './signing/routes';
import { registerReportExportRoutes } from './reports/export';
import { startReportMailWorker } from './reports/mail-worker';

export interface AppDeps {
  config: Config;
  db: Database;
  mailer?: Mailer;
  logger?: Logger;
  /** Serve dist/web when it exists (default); API-only tests may turn it off. */
  serveWebApp?: boolean;
  /** The REST collections; the app's own by default (tests of the layer bring theirs). */
  collections?: CollectionRegistry;
  /** Workflow: a controllable clock and extra service-task handlers (tests). */
  workflowClock?: Clock;
  workflowHandlers?: HandlerRegistry;
}

export interface SanadApp {
  app: FastifyInstance;
  auth: AuthContext;
  tokens: TokenService;
  graphql: PostGraphileInstance;
  mailer: Mailer;
  /** The workflow host, and one scheduler pass (tests run it instead of the interval). */
  workflow: { host: WorkflowHost; tick(): Promise<TickCounts> };
  /**
   * Shutdown, first step (issue 28): /readyz answers 503 so a load balancer stops sending new
   * requests, and every answer says `Connection: close` so clients open their next connection
   * elsewhere; requests are still served as usual.
   */
  drain(): void;
  /**
   * Stops accepting connections, finishes running requests (idle keep-alive connections are
   * closed), stops the workers after their current run, then releases GraphQL and mail.
   */
  close(): Promise<void>;
}

export const MAINTENANCE_BODY = {
  error: 'maintenance',
  maintenance: true,
  message: 'Sanad is closed for a few hours for maintenance. Your data is safe. Please come back later.',
} as const;

/** Content Security Policy: only our own origin; inline styles for the component library. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

export async function buildApp(deps: AppDeps): Promise<SanadApp> {
  const { config, db } = deps;
  const logger = deps.logger ?? createLogger(config);
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // Issue 16: X-Forwarded-For counts only from the configured proxies (default: none).
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    // Time to receive a whole request; slow senders do not hold a connection for long.
    requestTimeout: config.requestTimeoutMs,
    // Issue 28: a sane X-Request-Id from a proxy is kept, otherwise a new UUID (http/request-id.ts).
    genReqId: requestIdFor,
    requestIdHeader: false,
    childLoggerFactory: requestLogger as never,
    // Issue 28: a request that arrives on an open connection while the server closes is still
    // answered (not refused with 503); idle keep-alive connections are closed at once.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    logController: new OneLinePerRequest(),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
  });

  // Issue 28: request ids on every answer and log line, first of all hooks so the others run in its context.
  registerRequestId(app);
  const requestMetrics = new RequestMetrics();
  const mailer = requestMetrics.countMails(deps.mailer ?? createMailer(config, logger));
  const tokens = createTokenService(config);
  const emailHashKey = crypto.createHmac('sha256', loadSigningSecret(config)).update('sanad:email-hash').digest();
  const throttleSettings = {
    freeFailures: config.lockout.maxAttempts,
    windowSeconds: config.lockout.windowSeconds,
    maxDelaySeconds: config.lockout.lockSeconds,
    freeFailuresPerAddress: config.lockout.maxAttemptsPerAddress,
  };
  // Issue 28: with several processes on one PostgreSQL the counts live in the database.
  const throttle = config.limitStore === 'database' ? new SharedSignInThrottle(db.pool, throttleSettings) : new SignInThrottle(throttleSettings);
  const background = new BackgroundWork(logger);
  const auth: AuthContext = { pool: db.pool, config, tokens, mailer, log: logger, emailHashKey, throttle, background };
  setRequestStatementTimeout(config.statementTimeoutMs);
  // Issue 28: a database that goes away makes the API answer 503 and the workers pause.
  const availability = new DatabaseAvailability(db.pool, logger);
  app.decorate('databaseAvailability', availability);
  // Issue 28: /metrics for operators (off unless configured) and the request counts behind it.
  registerMetrics(app, { pool: db.pool, availability, settings: config.metrics, metrics: requestMetrics });

  registerSecurityHeaders(app, {
    // The HTTPS upgrade and HSTS only when PUBLIC_URL is https (issue 28, http/plain-http.ts).
    ...upgradeOptions(config.publicUrl, CSP_DIRECTIVES),
    crossOriginEmbedderPolicy: false,
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: 'rate_limited',
      message: `Too many requests from your address. Please wait ${Math.ceil(context.ttl / 1000)} seconds and try again.`,
      retryAfterSeconds: Math.ceil(context.ttl / 1000),
    }),
  });

  app.setErrorHandler(errorHandler);
  // Issue 30: every answer carrying case records is logged before it leaves.
  registerAccessLog(app, db.pool);
  const serveApp = deps.serveWebApp === false ? undefined : await registerWebApp(app);
  app.setNotFoundHandler((request, reply) => {
    if (wantsPage(request) && needsPlainHttpPage(request, config.publicUrl)) {
      void reply.status(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(plainHttpPage(config.publicUrl, request.host));
      return;
    }
    if (serveApp?.(request, reply)) return;
    void reply.status(404).send({ error: 'not_found', message: `There is nothing at ${request.method} ${request.url.split('?')[0]}.` });
  });

  app.decorateRequest('identity', null as unknown as typeof ANONYMOUS);
  const requestLimiter = config.limitStore === 'database' ? createSharedRequestLimiter(db.pool, config.rateLimit) : createRequestLimiter(config.rateLimit);
  let draining = false;
  app.addHook('onRequest', async (request, reply) => {
    request.identity = ANONYMOUS;
    if (draining) void reply.header('connection', 'close');
    const path = request.url.split('?')[0] ?? '';
    if (config.maintenance && path.startsWith('/api/')) {
      return reply.status(503).header('retry-after', '3600').send(MAINTENANCE_BODY);
    }
    if (path.startsWith('/api/') && path !== '/api/status' && !availability.available) return sendDatabaseUnavailable(reply, path);
    if (path.startsWith('/api/')) {
      // A bad or revoked token is an error, never a silent downgrade to anonymous.
      request.identity = await tokens.identify(db.pool, request.headers.authorization);
      // Issue 16: per-person and per-address limits on every data route (GraphQL, REST,
      // workflow, …); the account routes have their own per-address limit and sign-in throttle.
      if (!path.startsWith('/api/auth/') && path !== '/api/status') {
        const limited = await requestLimiter.check(request.identity, request.ip);
        if (limited) return sendRateLimited(reply, path, limited.retryAfterSeconds, limited.limited);
      }
    }
    return undefined;
  });
  // Issue 28: a retried write with the same Idempotency-Key gets the first answer, not a second effect.
  registerIdempotency(app, db.pool, config.idempotency);

  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    if (draining) return reply.status(503).send({ status: 'stopping', message: 'This server is shutting down.' });
    if (!availability.available) return reply.status(503).send({ status: 'unavailable', message: 'The database cannot be reached.' });
    try {
      const ready = await migrationsUpToDate(db.pool);
      if (!ready) return reply.status(503).send({ status: 'migrating', message: 'Database migrations are not yet applied.' });
      return { status: 'ready', database: db.kind };
    } catch (error) {
      availability.report(error);
      return reply.status(503).send({ status: 'unavailable', message: 'The database cannot be reached.' });
    }
  });
  app.get('/api/status', async () => ({ maintenance: false, locales: config.locales }));

  registerAuthRoutes(app, auth);
  registerPageRoutes(app, db.pool, config);
  registerMeasurementRoutes(app, db.pool, config);
  registerWordingRoutes(app, db.pool, config);
  registerMessageTemplateRoutes(app, db.pool);
  registerExportRoutes(app, db.pool, config);
  registerReportExportRoutes(app, db.pool, config);
  registerSyntaxRoutes(app, db.requestPool, config);
  registerOdmRoutes(app, db.requestPool);
  registerIntegrityRoutes(app, db.pool);
  registerStaffAccountRoutes(app, auth);
  registerDownloadRoutes(app, db.pool, config);
  registerOwnDataRoutes(app, db.pool);
  registerConsentRoutes(app, db.pool);
  registerWithdrawalRoutes(app, db.pool);
  registerEngagementRoutes(app, db.requestPool);
  registerRetentionRoutes(app, db.pool);
  await registerRestCollections(app, db.requestPool, deps.collections ?? appCollections(config.measurementSchedule));

  const graphql = createGraphql({
    pool: db.requestPool,
    graphiql: config.env !== 'production',
    maxRequestLength: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    onDatabaseUnavailable: (error) => availability.report(error),
  });
  await registerGraphqlRoutes(app, config, db, graphql);

  // Workflow engine: deploy workflows/*.bpmn, the Camunda REST subset, the scheduler.
  const workflowHost = new WorkflowHost({
    pool: db.pool,
    log: logger,
    workflowsDir: config.workflowsDir,
    ...(deps.workflowClock ? { clock: deps.workflowClock } : {}),
    handlers: { ...safetyHandlers(config.safety), ...treatmentModuleHandlers(config.treatmentModules), ...deps.workflowHandlers },
    maxAttempts: config.workflowMaxAttempts,
    retryBaseMs: config.workflowRetrySeconds * 1000,
  });
  await workflowHost.deployAll();
  // Issue 27: each arm's worksheets, as configured, for the database's arm rule.
  await syncArmWorksheets(db.pool, config.treatmentModules);
  // Issue 30: the access and account logs' monthly partitions, a year ahead.
  await db.pool.query('select app_hidden.ensure_log_partitions(12)');
  await registerWorkflowRoutes(app, db.pool, workflowHost);
  registerTrialRoutes(app, db.pool, workflowHost);
  registerCounselingRoutes(app, db.pool);
  registerReportRoutes(app, { pool: db.pool, host: workflowHost, missedInterviewLimit: config.missedInterviewLimit });
  // Issue 30: e-signatures (re-authentication, manifests) and the staff second factor.
  registerSigningRoutes(app, { pool: db.pool, mfaRequiredRoles: config.mfaRequiredRoles, throttle });
  const schedulerContext = { host: workflowHost, pool: db.pool, mailer, config, log: logger };
  const workflowScheduler = config.workflowIntervalMs > 0 ? startWorkflowScheduler(schedulerContext, config.workflowIntervalMs, availability) : undefined;

  const notifications =
    config.notificationIntervalMs > 0
      ? startNotificationWorker({ pool: db.pool, config, mailer, log: logger }, config.notificationIntervalMs, availability)
      : undefined;
  // Interview invitations share the notification interval: both are queued mail.
  const interviewMails =
    config.notificationIntervalMs > 0
      ? startInterviewMailWorker({ pool: db.pool, config, mailer, log: logger }, config.notificationIntervalMs, availability)
      : undefined;

  // Interview report mails (outcome note, re-registration invitation) share the interval too.
  const reportMails =
    config.notificationIntervalMs > 0 ? startReportMailWorker({ pool: db.pool, config, mailer, log: logger }, config.notificationIntervalMs, availability) : undefined;
  const engagementSweep = config.engagementSweepIntervalMs > 0 ? startEngagementSweep(db.pool, logger, config.engagementSweepIntervalMs, availability) : undefined;
  const retentionJob = config.retentionCheckIntervalMs > 0 ? startRetentionJob(db.pool, logger, config.retentionCheckIntervalMs, availability) : undefined;
  // Expired Idempotency-Keys are forgotten every 10 minutes (beside the scheduler: not in tests).
  const idempotencySweep = config.workflowIntervalMs > 0 ? startPeriodic('idempotency key sweep', 600_000, logger, () => sweepIdempotencyKeys(db.pool), availability) : undefined;

  return {
    app,
    auth,
    tokens,
    graphql,
    mailer,
    workflow: { host: workflowHost, tick: () => workflowTick(schedulerContext) },
    drain() {
      draining = true;
    },
    async close() {
      draining = true;
      // Requests and the workers' current runs finish side by side; nothing new starts.
      await Promise.all([app.close(), workflowScheduler?.stop(), notifications?.stop(), interviewMails?.stop(), reportMails?.stop(), retentionJob?.stop(), idempotencySweep?.stop(), engagementSweep?.stop()]);
      await background.idle();
      await availability.stop();
      await graphql.release();
      mailer.close();
    },
  };
}

/**
 * PostGraphile's routes with their own hooks, in a Fastify scope of their own: the guard, the
 * read cache and the compiled lists see GraphQL requests only, so every other route (REST, the
 * account routes, …) runs no preHandler, onSend or onResponse hook of theirs at all. The
 * app-wide onRequest hooks (security headers, maintenance, identity, rate limits) and the error
 * handler reach these routes as before, since a scope inherits its parent's.
 */
async function registerGraphqlRoutes(app: FastifyInstance, config: Config, db: Database, graphql: PostGraphileInstance): Promise<void> {
  await app.register(async (scope) => {
    // Issue 16: cost, depth, alias and root-field limits, refused before the read cache or
    // PostGraphile spend anything on the request.
    registerGraphqlLimits(scope, { limits: config.graphqlLimits, introspectionForAnonymous: config.env !== 'production', schema: () => graphql.getSchema() });
    // Polled interview reads are answered from kept answers while their data is unchanged.
    if (config.readCacheMb > 0) new ReadCache({ pool: db.pool, maxBytes: config.readCacheMb * 1024 * 1024 }).register(scope);
    // The web's case lists, by their exact text, from one SQL statement each (compiled-lists.ts).
    if (config.compiledLists) new CompiledLists({ pool: db.requestPool }).register(scope);
    await graphql.createServ(grafserv).addTo(scope);
    // Issue 30: the case records a query's answer carries, logged before it leaves.
    registerGraphqlAccessLog(scope, db.pool, () => graphql.getSchema(), GRAPHQL_PATH);
    // Issue 28: GraphQL answers its errors with 200; the database being gone is a 503 to say so
    // to clients and balancers (maskError gave such errors the code DATABASE_UNAVAILABLE).
    scope.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200 && (typeof payload === 'string' || Buffer.isBuffer(payload)) && payload.includes('"DATABASE_UNAVAILABLE"')) {
        void reply.status(503).header('retry-after', String(DATABASE_RETRY_SECONDS));
      }
      return payload;
    });
    if (config.env !== 'production') {
      // GraphiQL runs inline scripts; it exists only outside production, so relax CSP for it alone.
      scope.addHook('onSend', async (request, reply, payload) => {
        if (request.url.startsWith(GRAPHIQL_PATH)) reply.removeHeader('content-security-policy');
        return payload;
      });
    }
  });
}

/** 429 with Retry-After, shaped like the other errors of the route's area. */
function sendRateLimited(reply: FastifyReply, path: string, seconds: number, limited: 'person' | 'address') {
  const message = `Too many requests ${limited === 'person' ? 'from your account' : 'from your address'}. Please wait ${seconds} seconds and try again.`;
  void reply.status(429).header('retry-after', String(seconds));
  if (path.startsWith('/api/graphql')) return reply.send({ errors: [{ message, extensions: { code: 'RATE_LIMITED', retryAfterSeconds: seconds } }] });
  if (path.startsWith('/api/workflow/')) return reply.send({ type: 'RateLimitedException', message });
  return reply.send({ error: 'rate_limited', code: 'rate_limited', message, retryAfterSeconds: seconds });
}

/** Fastify's own messages for common client mistakes, rewritten so a person can act on them. */
const CLIENT_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; send a JSON object.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Send the request body as application/json.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
};

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns schema errors into per-field messages ("user.email: must be string"). */
export function validationFields(errors: AjvError[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const error of errors) {
    const segments = error.instancePath.split('/').filter(Boolean);
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
    if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
    if (error.keyword === 'anyOf') continue;
    const field = segments.filter((s) => s !== 'user').join('.') || 'body';
    const message =
      error.keyword === 'required'
        ? 'This field is required.'
        : error.keyword === 'additionalProperties'
          ? 'This field is not known; remove it.'
          : `This field ${error.message ?? 'is not valid'}.`;
    // Own properties only: a body key named `constructor` or `toString` is a field like any other.
    const list = Object.hasOwn(fields, field) ? fields[field]! : (fields[field] = []);
    list.push({ code: `schema_${error.keyword}`, message });
  }
  return fields;
}

function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (request.server.databaseAvailability?.report(error)) return sendDatabaseUnavailable(reply, request.url);
  if (error instanceof HttpError) {
    const wait = error.extra?.retryAfterSeconds;
    if (error.statusCode === 429 && typeof wait === 'number') void reply.header('retry-after', String(wait));
    return reply.status(error.statusCode).send({
      error: error.code,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
      ...error.extra,
    });
  }
  if (error.validation) {
    const fields = validationFields(error.validation as unknown as AjvError[]);
    const summary = Object.entries(fields)
      .map(([field, problems]) => `${field}: ${problems.map((p) => p.message).join(' ')}`)
      .join(' ');
    return reply.status(400).send({ error: 'invalid_request', message: `The request is not valid. ${summary}`, fields });
  }
  // A database error the input caused (a bad value, a broken constraint, a denied row) is the
  // client's to fix: 4xx, never a 500 (issue 16), with the refusal's code and sentence and
  // never PostgreSQL's own text (issue 27).
  const refusal = databaseRefusal(error, Boolean(request.identity?.userId));
  if (refusal) return reply.status(refusal.status).send({ error: refusal.code, message: refusal.message });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = (error as { error?: string }).error === 'rate_limited' ? 'rate_limited' : (error.code ?? 'bad_request');
    const message = CLIENT_ERROR_MESSAGES[error.code] ?? error.message;
    const wait = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    return reply.status(status).send({ error: code, message, ...(typeof wait === 'number' ? { retryAfterSeconds: wait } : {}) });
  }
  request.log.error({ err: error }, 'request failed');
  // The request id lets a person quote this failure and the operator find its log lines.
  return reply.status(500).send({ error: 'internal', message: `Something went wrong on our side. Please try again later. If it keeps happening, tell the clinic this reference: ${request.id}.`, requestId: request.id });
}
