/**
 * Bearer tokens: HS256 JWTs whose id (jti) is a row in app_private.login_tokens, so a token
 * can be revoked (sign-out, password change) before it expires. The signature proves we made
 * it; the row proves it is still wanted.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type pg from 'pg';
import type { Config } from '../config';
import { unauthorized } from '../http/errors';
import type { Identity } from '../db/transaction';

const ISSUER = 'sanad';
const AUDIENCE = 'sanad';

/** The signing secret: JWT_SECRET, or one generated on first start and kept in DATA_DIR. */
export function loadSigningSecret(config: Pick<Config, 'jwtSecret' | 'dataDir'>): Uint8Array {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret);
  const file = path.join(config.dataDir, 'jwt-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    try {
      // 'wx': if two processes race here, the second one reads the first one's secret.
      fs.writeFileSync(file, crypto.randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return new TextEncoder().encode(fs.readFileSync(file, 'utf8').trim());
}

/**
 * Verified tokens, remembered for a few seconds so that a burst of requests (a page loading
 * its data) costs one signature check and one database lookup, not one per request. Kept by the
 * exact encoded token: a string that verified a moment ago verifies again (the signature cannot
 * change), and the entry ends before the token expires. Revocation in this process (sign-out,
 * password change) forgets at once; another process notices within the TTL.
 */
class VerifiedTokenCache {
  private readonly entries = new Map<string, { tokenId: string; userId: string; until: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  get(encoded: string): { tokenId: string; userId: string } | undefined {
    const entry = this.entries.get(encoded);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(encoded);
      return undefined;
    }
    return entry;
  }

  remember(encoded: string, tokenId: string, userId: string, expiresAt: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Map keeps insertion order: drop the oldest tenth.
      let drop = Math.ceil(this.maxEntries / 10);
      for (const key of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(key);
      }
    }
    this.entries.set(encoded, { tokenId, userId, until: Math.min(Date.now() + this.ttlMs, expiresAt) });
  }

  forget(tokenId: string): void {
    for (const [key, entry] of this.entries) if (entry.tokenId === tokenId) this.entries.delete(key);
  }

  forgetUser(userId: string, except?: string): void {
    for (const [key, entry] of this.entries) if (entry.userId === userId && entry.tokenId !== except) this.entries.delete(key);
  }
}

export interface TokenService {
  issue(sql: pg.ClientBase, userId: string): Promise<{ encoded: string; expiresAt: Date; tokenId: string }>;
  /** Verifies a bearer token; throws a 401 HttpError for a bad, expired or revoked one. */
  verify(pool: pg.Pool, token: string): Promise<Identity & { userId: string; tokenId: string }>;
  /** Reads the Authorization header: no header is the anonymous identity. */
  identify(pool: pg.Pool, authorization: string | undefined): Promise<Identity & { tokenId?: string }>;
  /** Call after revoking in the database, so this process stops accepting at once. */
  forget(tokenId: string): void;
  forgetUser(userId: string, except?: string): void;
}

const sessionExpired = () =>
  unauthorized('session_invalid', 'Your session has expired or was ended. Please sign in again.');

export function createTokenService(config: Pick<Config, 'jwtSecret' | 'dataDir' | 'tokenTtlSeconds' | 'tokenCacheSeconds'>): TokenService {
  const secret = loadSigningSecret(config);
  const cache = new VerifiedTokenCache(config.tokenCacheSeconds * 1000);

  const service: TokenService = {
    async issue(sql, userId) {
      const tokenId = crypto.randomUUID();
      const now = Math.floor(Date.now() / 1000);
      const expiresAt = new Date((now + config.tokenTtlSeconds) * 1000);
      const encoded = await new SignJWT({ role: 'sanad_user' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(userId)
        .setJti(tokenId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(expiresAt)
        .sign(secret);
      await sql.query(
        `insert into app_private.login_tokens (id, user_id, expires_at, not_before, payload)
         values ($1, $2, $3, to_timestamp($4), $5)`,
        [tokenId, userId, expiresAt, now, { iss: ISSUER, aud: AUDIENCE }],
      );
      return { encoded, expiresAt, tokenId };
    },

    async verify(pool, token) {
      const known = cache.get(token);
      if (known) return { userId: known.userId, tokenId: known.tokenId };
      let subject: string | undefined;
      let tokenId: string | undefined;
      let expiresAt: number;
      try {
        const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
        subject = payload.sub;
        tokenId = payload.jti;
        expiresAt = (payload.exp ?? 0) * 1000;
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) throw sessionExpired();
        throw error;
      }
      if (!subject || !tokenId || !isUuid(subject) || !isUuid(tokenId)) throw sessionExpired();
      const { rows } = await pool.query(
        `select 1 from app_private.login_tokens
          where id = $1 and user_id = $2 and revoked_at is null and expires_at > now()`,
        [tokenId, subject],
      );
      if (rows.length === 0) throw sessionExpired();
      cache.remember(token, tokenId, subject, expiresAt);
      return { userId: subject, tokenId };
    },

    forget: (tokenId) => cache.forget(tokenId),
    forgetUser: (userId, except) => cache.forgetUser(userId, except),

    async identify(pool, authorization) {
      if (!authorization) return { userId: null };
      const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
      if (!match?.[1]) {
        throw unauthorized('authorization_malformed', 'The Authorization header must be "Bearer <token>".');
      }
      return service.verify(pool, match[1]);
    },
  };
  return service;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
