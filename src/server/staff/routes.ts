/**
 * Staff accounts (issue 27, item 6), under /api/staff-accounts, for coordinators. Each route
 * validates, opens a transaction as the signed-in person and calls one SQL command of
 * db/migrations/0160-staff-accounts.sql, which decides who may and keeps the rules (staff
 * accounts only, the last active coordinator stays) and records the change.
 *
 *   GET   /api/staff-accounts                 the staff accounts with roles and state
 *   GET   /api/staff-accounts/changes         the latest changes: who, when, before and after
 *   POST  /api/staff-accounts                 invite {username, email, alias?, roles, locale?}: mails a link to choose a password
 *   POST  /api/staff-accounts/:id/invitation  a new invitation link (before a password was chosen)
 *   PATCH /api/staff-accounts/:id             {roles?: string[], disabled?: boolean}
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { emailProblems, usernameProblems } from '../../domain/accounts';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../domain/locales';
import { STAFF_ACCOUNT_ROLES, type StaffAccountRole } from '../../domain/staff-accounts';
import type { AuthContext } from '../auth/service';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, notFound, unauthorized } from '../http/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StaffAccount {
  id: string;
  username: string;
  email: string;
  alias: string | null;
  roles: StaffAccountRole[];
  disabled: boolean;
  invitationPending: boolean;
  lastLogin: string | null;
  createdAt: string;
}

function rolesOf(value: unknown, field: string): StaffAccountRole[] {
  if (!Array.isArray(value) || !value.every((r): r is StaffAccountRole => typeof r === 'string' && (STAFF_ACCOUNT_ROLES as readonly string[]).includes(r))) {
    throw badRequest('staff_roles_invalid', `Choose roles from: ${STAFF_ACCOUNT_ROLES.join(', ')}.`, {
      [field]: [{ code: 'staff_roles_invalid', message: `Choose roles from: ${STAFF_ACCOUNT_ROLES.join(', ')}.` }],
    });
  }
  return [...new Set(value)];
}

function objectBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('invalid_request', 'Send a JSON object.');
  return body as Record<string, unknown>;
}

function idParam(value: string): string {
  if (!UUID.test(value)) throw notFound('staff_account_not_found', 'There is no such staff account.');
  return value;
}

/** Parses the invitation: the same username and email rules as registration. */
export function parseInvitation(body: Record<string, unknown>): { username: string; email: string; alias: string | null; roles: StaffAccountRole[]; locale: Locale | null } {
  const known = new Set(['username', 'email', 'alias', 'roles', 'locale']);
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length > 0) throw badRequest('invalid_request', `Unknown fields: ${unknown.join(', ')}.`);
  const username = typeof body.username === 'string' ? body.username.trim() : '';
  const email = typeof body.email === 'string' ? body.email.trim() : '';
  const fields: Record<string, { code: string; message: string }[]> = {};
  const nameProblems = usernameProblems(username);
  if (nameProblems.length) fields.username = nameProblems;
  const mailProblems = emailProblems(email);
  if (mailProblems.length) fields.email = mailProblems;
  if (body.alias !== undefined && body.alias !== null && (typeof body.alias !== 'string' || body.alias.length > 80)) {
    fields.alias = [{ code: 'alias_invalid', message: 'The display name has at most 80 characters.' }];
  }
  if (Object.keys(fields).length > 0) throw badRequest('invalid_invitation', 'Some fields need your attention.', fields);
  const roles = rolesOf(body.roles, 'roles');
  if (roles.length === 0) throw badRequest('staff_roles_invalid', 'Choose at least one role.', { roles: [{ code: 'staff_roles_invalid', message: 'Choose at least one role.' }] });
  const locale = typeof body.locale === 'string' && isLocale(body.locale) ? body.locale : null;
  return { username, email, alias: typeof body.alias === 'string' && body.alias.trim() ? body.alias.trim() : null, roles, locale };
}

const newLinkToken = () => {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: crypto.createHash('sha256').update(token).digest('hex') };
};

export function registerStaffAccountRoutes(app: FastifyInstance, auth: AuthContext): void {
  const { pool, config, mailer, tokens } = auth;
  const run = <T>(request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> => {
    if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
    return withUser(pool, request.identity, fn);
  };
  const expiresAt = () => new Date(Date.now() + config.actionTokenTtlSeconds * 1000).toISOString();
  const sendInvitation = async (to: { email: string; username: string; locale: Locale }, token: string) =>
    mailer.send({
      to: to.email,
      kind: 'staff_invitation',
      locale: to.locale,
      params: { username: to.username, link: `${config.publicUrl}/confirm-reset?token=${token}` },
    });

  app.get('/api/staff-accounts', async (request) =>
    run(request, async (sql) => {
      const { rows } = await sql.query<StaffAccount>(
        `select id, username, email, alias, roles, disabled, invitation_pending as "invitationPending",
                last_login as "lastLogin", created_at as "createdAt" from app_hidden.staff_accounts()`,
      );
      return { accounts: rows };
    }),
  );

  app.get('/api/staff-accounts/changes', async (request) =>
    run(request, async (sql) => {
      const { rows } = await sql.query(
        `select id, user_id as "userId", username, changed_by_username as "changedBy", changed_at as "changedAt", action, before, after
           from app_hidden.staff_account_changes(100)`,
      );
      return { changes: rows };
    }),
  );

  app.post('/api/staff-accounts', async (request, reply) => {
    const invitation = parseInvitation(objectBody(request));
    const locale = invitation.locale ?? DEFAULT_LOCALE;
    const link = newLinkToken();
    const id = await run(request, async (sql) => {
      const { rows } = await sql.query<{ id: string }>('select app_hidden.invite_staff_account($1, $2, $3, $4, $5, $6, $7) as id', [
        invitation.username,
        invitation.email,
        invitation.alias,
        invitation.roles,
        locale,
        link.hash,
        expiresAt(),
      ]);
      return rows[0]!.id;
    });
    await sendInvitation({ email: invitation.email, username: invitation.username, locale }, link.token);
    return reply.status(201).send({ id });
  });

  app.post<{ Params: { id: string } }>('/api/staff-accounts/:id/invitation', async (request) => {
    const id = idParam(request.params.id);
    const link = newLinkToken();
    const account = await run(request, async (sql) => {
      await sql.query('select app_hidden.reinvite_staff_account($1, $2, $3)', [id, link.hash, expiresAt()]);
      const { rows } = await sql.query<{ email: string; username: string; locale: Locale }>(
        'select email::text, username::text, locale from app_public.users where id = $1',
        [id],
      );
      return rows[0]!;
    });
    await sendInvitation(account, link.token);
    return { status: 'sent' };
  });

  app.patch<{ Params: { id: string } }>('/api/staff-accounts/:id', async (request) => {
    const id = idParam(request.params.id);
    const body = objectBody(request);
    const unknown = Object.keys(body).filter((k) => k !== 'roles' && k !== 'disabled');
    if (unknown.length > 0) throw badRequest('invalid_request', `Unknown fields: ${unknown.join(', ')}.`);
    if (body.roles === undefined && body.disabled === undefined) throw badRequest('invalid_request', 'Send roles, disabled or both.');
    const roles = body.roles === undefined ? undefined : rolesOf(body.roles, 'roles');
    if (body.disabled !== undefined && typeof body.disabled !== 'boolean') {
      throw badRequest('invalid_request', 'disabled is true or false.', { disabled: [{ code: 'schema_type', message: 'This field must be true or false.' }] });
    }
    const state = await run(request, async (sql) => {
      let after: unknown;
      if (roles) after = (await sql.query('select app_hidden.set_staff_roles($1, $2) as state', [id, roles])).rows[0].state;
      if (typeof body.disabled === 'boolean') after = (await sql.query('select app_hidden.set_staff_disabled($1, $2) as state', [id, body.disabled])).rows[0].state;
      return after;
    });
    // Sessions end at once: the cached identities of the person go with the revoked tokens.
    if (body.disabled === true) tokens.forgetUser(id);
    return { id, state };
  });
}
