/** Password hashing with argon2id (OWASP's first choice), using the OWASP minimum parameters. */
import { hash, verify } from '@node-rs/argon2';

// 2 is Algorithm.Argon2id; the enum is a `const enum`, which isolated modules cannot import.
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFC'), OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password.normalize('NFC'));
  } catch {
    return false;
  }
}

// Verifying against this when the user does not exist makes "unknown user" cost as much time
// as "wrong password", so response times do not reveal which accounts exist.
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('not-a-real-password-but-equally-expensive');
  await verifyPassword(await dummyHash, password);
  return false;
}
