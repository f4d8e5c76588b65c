/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), with node:crypto only: no
 * package is needed for a few lines of HMAC, and the algorithm is the one every authenticator
 * app implements (SHA-1, 6 digits, 30-second steps, the `otpauth://` URI of Google's key format).
 */
import crypto from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** Steps before and after the current one a code is accepted for (clock drift, RFC 6238 §5.2). */
export const TOTP_WINDOW = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=-]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.randomBytes(20));
}

/** HOTP (RFC 4226 §5.3) of a counter, with the hash RFC 6238 allows (sha1 for the apps). */
export function hotp(key: Buffer, counter: bigint, digits = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(counter);
  const mac = crypto.createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of a moment (RFC 6238 §4.2: T = floor((now - T0) / X)). */
export function totpStep(atMs: number, period = TOTP_PERIOD_SECONDS): bigint {
  return BigInt(Math.floor(atMs / 1000 / period));
}

export function totpCode(secret: string, atMs: number): string {
  return hotp(base32Decode(secret), totpStep(atMs));
}

/**
 * The step a code belongs to within the window around `atMs`, or null. The caller refuses a
 * step not after the last one accepted, so an observed code cannot be replayed.
 */
export function matchTotp(secret: string, code: string, atMs: number, window = TOTP_WINDOW): bigint | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(secret);
  const now = totpStep(atMs);
  for (let delta = -window; delta <= window; delta += 1) {
    const step = now + BigInt(delta);
    if (step < 0n) continue;
    const expected = hotp(key, step);
    if (crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(code))) return step;
  }
  return null;
}

/** The key URI an authenticator app reads (from a QR code or typed in). */
export function otpauthUri(secret: string, account: string, issuer = 'Sanad'): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD_SECONDS) });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** Ten recovery codes, each 10 base32 characters shown as two groups of five. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const text = base32Encode(crypto.randomBytes(7)).slice(0, 10);
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** Recovery codes are stored as sha-256 of their normalised text (they are random, so no salt is needed). */
export function hashRecoveryCode(code: string): string {
  return crypto.createHash('sha256').update(code.replace(/[\s-]/g, '').toUpperCase(), 'utf8').digest('hex');
}

export function looksLikeRecoveryCode(code: string): boolean {
  return /^[A-Z2-7]{5}-?[A-Z2-7]{5}$/i.test(code.trim());
}
