/**
 * Serves the built web app (dist/web) with the single-page fallback: any GET outside /api
 * that is not a file gets index.html, and the router in the browser takes over. Hashed assets
 * are cached for a year; index.html never, so a deploy reaches everyone at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { REPO_ROOT, WEB_DIST } from '../paths';

export { REPO_ROOT, WEB_DIST };
const WEB_SOURCES = ['src/web', 'src/domain', 'vite.config.ts', 'package-lock.json'].map((p) => path.join(REPO_ROOT, p));

export function webBuildExists(dist = WEB_DIST): boolean {
  return fs.existsSync(path.join(dist, 'index.html'));
}

function newestMtime(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when the web sources changed after the last build (or there is none). */
export function webBuildIsStale(dist = WEB_DIST): boolean {
  if (!webBuildExists(dist)) return true;
  const built = fs.statSync(path.join(dist, 'index.html')).mtimeMs;
  return WEB_SOURCES.some((source) => newestMtime(source) > built);
}

/** Builds the web app with Vite, as `npm run build` does. */
export async function buildWeb(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: path.join(REPO_ROOT, 'vite.config.ts'), logLevel: 'warn' });
}

/** A GET of a page of the web app (not the API, not a file). */
export function wantsPage(request: FastifyRequest): boolean {
  const pathname = request.url.split('?')[0] ?? '';
  return request.method === 'GET' && !pathname.startsWith('/api/') && pathname !== '/api' && !/\.[a-z0-9]+$/i.test(pathname);
}

/** Registers static serving; returns the handler that answers unknown paths with the app. */
export async function registerWebApp(app: FastifyInstance, dist = WEB_DIST): Promise<((request: FastifyRequest, reply: FastifyReply) => boolean) | undefined> {
  if (!webBuildExists(dist)) return undefined;
  await app.register(fastifyStatic, {
    root: dist,
    index: false,
    wildcard: false,
    // The build writes .br and .gz beside each asset; send those to browsers that accept them.
    preCompressed: true,
    setHeaders(reply, filePath) {
      const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
      void reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (request, reply) => {
    if (!wantsPage(request)) return false;
    void reply.header('cache-control', 'no-cache').sendFile('index.html');
    return true;
  };
}
