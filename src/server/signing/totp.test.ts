import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hashRecoveryCode, hotp, matchTotp, newRecoveryCodes, newTotpSecret, otpauthUri, totpCode, totpStep } from './totp';

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890", 8 digits.
const SEED = Buffer.from('12345678901234567890', 'ascii');
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at %i s gives the RFC test vector %s', (seconds, code) => {
    expect(hotp(SEED, totpStep(seconds * 1000), 8)).toBe(code);
  });

  it('RFC 4226 appendix D: HOTP of counters 0 and 9', () => {
    expect(hotp(SEED, 0n)).toBe('755224');
    expect(hotp(SEED, 9n)).toBe('520489');
  });

  it('base32 round-trips and the secret has 160 bits', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Encode(base32Decode(secret))).toBe(secret);
    expect(base32Encode(SEED)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });

  it('accepts a code of the step before, now and after, and no other', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    expect(matchTotp(secret, totpCode(secret, now), now)).toBe(totpStep(now));
    expect(matchTotp(secret, totpCode(secret, now - 30_000), now)).toBe(totpStep(now) - 1n);
    expect(matchTotp(secret, totpCode(secret, now + 30_000), now)).toBe(totpStep(now) + 1n);
    expect(matchTotp(secret, totpCode(secret, now - 90_000), now)).toBeNull();
    expect(matchTotp(secret, '12345', now)).toBeNull();
  });

  it('writes the key URI authenticator apps read', () => {
    expect(otpauthUri('ABC', 'coord@example.org')).toBe('otpauth://totp/Sanad:coord%40example.org?secret=ABC&issuer=Sanad&algorithm=SHA1&digits=6&period=30');
  });

  it('recovery codes are distinct and hashed whatever their spelling', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    expect(codes[0]).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    expect(hashRecoveryCode(codes[0]!.toLowerCase().replace('-', ' '))).toBe(hashRecoveryCode(codes[0]!));
  });
});
