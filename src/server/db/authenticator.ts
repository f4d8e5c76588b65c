/**
 * The request pool's login (issue 34, docs/decisions/authenticator-role.md). Requests log in as
 * sanad_authenticator (migration 0300): a NOINHERIT role that can become a request role and do
 * nothing else, so `reset role` inside a request reaches no table. The owner (DATABASE_URL)
 * keeps its own pool for migrations, the CLI and background work.
 *
 * With only DATABASE_URL configured, the authenticator's URL is the owner's with the user
 * replaced and a password derived one way from the owner's (HMAC), which the server sets at
 * start (syncAuthenticatorPassword): every process sharing the owner derives the same one, and
 * knowing it tells nothing about the owner's. When the owner has no password (trust or peer
 * authentication), the authenticator has none either. Managed databases whose owner may not
 * alter roles give AUTHENTICATOR_DATABASE_URL instead.
 */
import crypto from 'node:crypto';
import type pg from 'pg';

export const AUTHENTICATOR_ROLE = 'sanad_authenticator';

/** The password derived from the owner's, or null when the owner has none. */
export function derivedAuthenticatorPassword(ownerUrl: string): string | null {
  const ownerPassword = decodeURIComponent(new URL(ownerUrl).password);
  if (ownerPassword === '') return null;
  return crypto.createHmac('sha256', ownerPassword).update(AUTHENTICATOR_ROLE).digest('hex');
}

/** The owner's URL with the authenticator as its user (and the derived password, if any). */
export function derivedAuthenticatorUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = AUTHENTICATOR_ROLE;
  url.password = derivedAuthenticatorPassword(ownerUrl) ?? '';
  return url.toString();
}

/**
 * Sets the derived password on the authenticator (as the owner, after the migrations created the
 * role). Nothing to do when the owner has no password or the operator gave the URL. A parallel
 * start setting the same value may collide (tuple concurrently updated): the value is the same.
 */
export async function syncAuthenticatorPassword(ownerPool: pg.Pool, ownerUrl: string): Promise<void> {
  const password = derivedAuthenticatorPassword(ownerUrl);
  if (password === null) return;
  try {
    await ownerPool.query(`alter role ${AUTHENTICATOR_ROLE} password '${password}'`);
  } catch (error) {
    if ((error as { code?: string }).code === 'XX000') return;
    throw new Error(
      `The database owner could not set the password of ${AUTHENTICATOR_ROLE} (${(error as Error).message}). ` +
        'Give the owner the right to alter that role, or set AUTHENTICATOR_DATABASE_URL.',
      { cause: error },
    );
  }
}
