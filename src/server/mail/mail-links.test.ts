/**
 * Every link a mail carries leads to a screen that exists (issue 26: the "new worksheet" mail
 * once linked to /cases/<id>, which no route serves). Two walks: the notification mails through
 * mailFor for every queued kind and both kinds of recipient, and every other mail sender in
 * src/server, read from its source: each app path written after the public URL must match a
 * route of the web app (src/domain/routes.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../domain/routes';
import { mailFor, NOTIFICATION_KINDS } from '../notifications/worker';

const CASE_ID = '3f2c1a9e-0b1d-4c5e-9f00-1234567890ab';

function serverSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return serverSources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The app paths written after `publicUrl}` on one line: a literal, or the literals of a choice. */
function linkedPaths(source: string): string[] {
  return source.split('\n').flatMap((line) => {
    const at = line.indexOf('publicUrl}');
    if (at < 0) return [];
    const rest = line.slice(at + 'publicUrl}'.length);
    const direct = /^(\/[^`$?'"\s]*)/.exec(rest);
    if (direct) return [direct[1]!];
    if (!rest.startsWith('${')) return [];
    return [...rest.matchAll(/'(\/[^'?]*)'/g)].map((m) => m[1]!);
  });
}

describe('mail links', () => {
  for (const kind of NOTIFICATION_KINDS) {
    for (const staff of [true, false]) {
      it(`${kind} to ${staff ? 'staff' : 'a patient or counselor'} links to an existing route`, () => {
        const { path: link } = mailFor(kind, CASE_ID, staff);
        const url = new URL(link, 'http://sanad.test');
        expect(matchRoute(url.pathname), link).toBeDefined();
      });
    }
  }

  it('every other mail sender links to an existing route', () => {
    const root = path.resolve(__dirname, '..');
    const found = serverSources(root).flatMap((file) => linkedPaths(fs.readFileSync(file, 'utf8')).map((p) => ({ file: path.relative(root, file), path: p })));
    // The walk reads real senders (auth, interviews, reports, workflow reminders, notifications).
    expect(found.length).toBeGreaterThanOrEqual(8);
    const broken = found.filter((f) => !matchRoute(f.path));
    expect(broken).toEqual([]);
  });
});
