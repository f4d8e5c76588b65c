/**
 * The owner paths that remain (issue 34, docs/decisions/authenticator-role.md): code that acts as
 * the schema owner on the owner's connections. Requests log in as the powerless authenticator;
 * what still needs the owner is counted here so the number can only go down. Converting a path
 * (to a security-definer function that checks its own rule, or to background work) lowers a
 * ceiling below; adding one fails this test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVER = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const TRANSACTION = path.join(SERVER, 'db', 'transaction.ts');
const sources = sourceFiles(SERVER)
  .filter((file) => file !== TRANSACTION)
  .map((file) => ({ file: path.relative(SERVER, file), text: fs.readFileSync(file, 'utf8') }));

function count(pattern: RegExp, only?: string): number {
  return sources.filter((s) => only === undefined || s.file === only).reduce((n, s) => n + (s.text.match(pattern)?.length ?? 0), 0);
}

describe('remaining owner paths (may only go down)', () => {
  it('owner transactions: withOwner / withOwnerAs calls', () => {
    // 33 when the authenticator arrived, plus 7 written beside it in the same session before this
    // test existed (the signing tokens and MFA: signing/routes.ts 4, signing/service.ts 2,
    // auth/service.ts 1). Each is a candidate for a security definer function.
    expect(count(/\bwithOwner(As)?\(/g)).toBeLessThanOrEqual(40);
  });

  it('request transactions that leave the request role (`set local role none`)', () => {
    expect(count(/set local role none/g)).toBeLessThanOrEqual(7);
  });

  it('request transactions opened on the owner connection (withUserThenOwner)', () => {
    expect(count(/\bwithUserThenOwner\b/g)).toBeLessThanOrEqual(2);
  });

  it('route groups and services in app.ts still given the owner pool', () => {
    // Requests of GraphQL, the REST collections and the compiled lists use db.requestPool.
    // 22 when the authenticator arrived, plus three written beside it: /metrics and the
    // Idempotency-Key store (both read or write app_private state of no single person) and the
    // signing routes. The engagement, ODM and statistics-syntax routes moved to the request pool.
    expect(count(/register\w+\(app, db\.pool|\{ pool: db\.pool/g, 'app.ts')).toBeLessThanOrEqual(25);
    expect(count(/db\.requestPool/g, 'app.ts')).toBeGreaterThanOrEqual(6);
  });
});
