/**
 * /api/auth routes: each validates its body with a JSON schema, then calls one function of
 * service.ts. Rate-limited per IP, because these are the routes that guess passwords.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GENDERS } from '../../domain/accounts';
import { unauthorized } from '../http/errors';
import {
  changePassword,
  confirmEmailChange,
  confirmPasswordReset,
  confirmRegistration,
  getProfileJson,
  registerPatient,
  requestEmailChange,
  requestPasswordReset,
  resendConfirmation,
  signIn,
  signOut,
  updateProfile,
  type AuthContext,
  type ProfilePatch,
  type RegistrationInput,
} from './service';

const text = (maxLength: number, minLength = 0) => ({ type: 'string', minLength, maxLength }) as const;
const token = text(200, 1);
const password = text(1024, 1);
const email = text(254, 1);

const registrationSchema = {
  type: 'object',
  required: ['user'],
  additionalProperties: false,
  properties: {
    user: {
      type: 'object',
      required: ['username', 'email', 'password'],
      additionalProperties: false,
      properties: {
        username: text(40, 1),
        email,
        password,
        alias: text(80),
        gender: { type: 'string', enum: [...GENDERS] },
        phone: text(32),
        locale: text(10, 1),
        timeZone: text(64, 1),
        agreedToTerms: { type: 'boolean' },
        agreedToPrivacyPolicy: { type: 'boolean' },
        agreedToResearchUse: { type: 'boolean' },
        agreedToBeContacted: { type: 'boolean' },
        confirmedAdult: { type: 'boolean' },
        accessPathKind: text(80),
        accessPathDetail: text(500),
        counseling: { type: 'boolean' },
        consentVersionId: text(36, 1),
        consentLanguage: text(10, 1),
      },
    },
  },
} as const;

/** Signed-in routes: the identify hook has verified the token; here we insist there was one. */
function requireUser(request: FastifyRequest): { userId: string; tokenId: string } {
  const { userId, tokenId } = request.identity;
  if (!userId || !tokenId) throw unauthorized('sign_in_required', 'Please sign in first.');
  return { userId, tokenId };
}

export function registerAuthRoutes(app: FastifyInstance, ctx: AuthContext): void {
  const limited = { rateLimit: { max: ctx.config.authRateLimitPerMinute, timeWindow: '1 minute' } };

  app.post<{ Body: { user: RegistrationInput } }>(
    '/api/auth/users/register',
    { schema: { body: registrationSchema }, config: limited },
    async (request, reply) => {
      const result = await registerPatient(ctx, request.body.user);
      return reply.status(202).send(result);
    },
  );

  app.post<{ Body: { token: string } }>(
    '/api/auth/users/confirm',
    { schema: { body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token } } }, config: limited },
    async (request) => confirmRegistration(ctx, request.body.token),
  );

  app.post<{ Body: { email: string } }>(
    '/api/auth/users/resend-confirmation',
    { schema: { body: { type: 'object', required: ['email'], additionalProperties: false, properties: { email } } }, config: limited },
    async (request, reply) => reply.status(202).send(await resendConfirmation(ctx, request.body.email)),
  );

  // Sign-in: `username` takes a username or an email address; `email` is accepted as well.
  app.post<{ Body: { username?: string; email?: string; password: string; code?: string } }>(
    '/api/auth/tokens',
    {
      schema: {
        body: {
          type: 'object',
          required: ['password'],
          additionalProperties: false,
          anyOf: [{ required: ['username'] }, { required: ['email'] }],
          // code: the second factor's code or a recovery code (issue 30), when the person has one
          properties: { username: text(254, 1), email, password, code: text(20, 1) },
        },
      },
      config: limited,
    },
    async (request, reply) => {
      const login = request.body.username ?? request.body.email ?? '';
      // request.ip honours only the configured trusted proxies (TRUST_PROXY), never any client.
      return reply.status(201).send(await signIn(ctx, login, request.body.password, request.ip, request.body.code));
    },
  );

  app.delete('/api/auth/tokens/current', async (request, reply) => {
    const user = requireUser(request);
    await signOut(ctx, user.tokenId);
    return reply.status(204).send();
  });

  app.get('/api/auth/users/me', async (request, reply) => {
    requireUser(request);
    return reply.type('application/json; charset=utf-8').send(await getProfileJson(ctx, request.identity));
  });

  app.patch<{ Body: ProfilePatch }>(
    '/api/auth/users/me',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            alias: { type: ['string', 'null'], maxLength: 80 },
            phone: { type: ['string', 'null'], maxLength: 32 },
            locale: text(10, 1),
            timeZone: text(64, 1),
            gender: { type: ['string', 'null'], enum: [...GENDERS, null] },
          },
        },
      },
    },
    async (request) => {
      requireUser(request);
      return updateProfile(ctx, request.identity, request.body);
    },
  );

  app.put<{ Body: { currentPassword: string; newPassword: string } }>(
    '/api/auth/password',
    {
      schema: {
        body: {
          type: 'object',
          required: ['currentPassword', 'newPassword'],
          additionalProperties: false,
          properties: { currentPassword: password, newPassword: password },
        },
      },
      config: limited,
    },
    async (request) => changePassword(ctx, requireUser(request), request.body.currentPassword, request.body.newPassword),
  );

  app.post<{ Body: { email: string } }>(
    '/api/auth/password-reset',
    { schema: { body: { type: 'object', required: ['email'], additionalProperties: false, properties: { email } } }, config: limited },
    async (request, reply) => reply.status(202).send(await requestPasswordReset(ctx, request.body.email)),
  );

  app.post<{ Body: { token: string; password: string } }>(
    '/api/auth/password-reset/confirm',
    {
      schema: { body: { type: 'object', required: ['token', 'password'], additionalProperties: false, properties: { token, password } } },
      config: limited,
    },
    async (request) => confirmPasswordReset(ctx, request.body.token, request.body.password),
  );

  app.post<{ Body: { newEmail: string; password: string } }>(
    '/api/auth/email-change',
    {
      schema: {
        body: { type: 'object', required: ['newEmail', 'password'], additionalProperties: false, properties: { newEmail: email, password } },
      },
      config: limited,
    },
    async (request, reply) => reply.status(202).send(await requestEmailChange(ctx, requireUser(request), request.body.newEmail, request.body.password)),
  );

  app.post<{ Body: { token: string } }>(
    '/api/auth/email-change/confirm',
    { schema: { body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token } } }, config: limited },
    async (request) => confirmEmailChange(ctx, request.body.token),
  );
}
