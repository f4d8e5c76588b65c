/**
 * Where the checkout's files are (migrations, workflows, information pages, the web build),
 * wherever this code runs from: src/server through tsx, or the compiled bundle in dist/server
 * (`npm run build`, `npm run start:prod`). A fixed "../../.." from each module would point
 * elsewhere once the modules are bundled into one file, so the root is the nearest folder
 * above that holds Sanad's package.json.
 */
import fs from 'node:fs';
import path from 'node:path';

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'sanad') return dir;
    if (path.dirname(dir) === dir) throw new Error(`Sanad's package.json was not found above ${from}`);
  }
}

export const REPO_ROOT = findRepoRoot(import.meta.dirname);

/** Defined as true by vite.server.config.ts in the compiled server; undeclared under tsx. */
declare const __SANAD_COMPILED__: boolean | undefined;
export const COMPILED = typeof __SANAD_COMPILED__ !== 'undefined' && __SANAD_COMPILED__;

/**
 * The built web app. Under tsx: dist/web of the checkout (`npm start` builds it there). The
 * compiled server takes the web build beside its own folder (dist/server → dist/web), so a
 * build is one folder that holds both, wherever `npm run build` wrote it.
 */
export const WEB_DIST = COMPILED ? path.resolve(import.meta.dirname, '../web') : path.join(REPO_ROOT, 'dist/web');

/** A path inside the checkout, e.g. repoPath('db/migrations'). */
export function repoPath(...parts: string[]): string {
  return path.join(REPO_ROOT, ...parts);
}
