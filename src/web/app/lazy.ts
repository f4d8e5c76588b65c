/**
 * On-demand sections (spec §2) with the chunk-load rule of spec §8: a section that has not
 * arrived within 120 seconds, or whose script fails, raises a ChunkLoadError carrying the
 * failure type and the requested section, which the route's error screen offers to retry.
 */
import { lazy, type ComponentType } from 'react';

export const CHUNK_TIMEOUT_MS = 120_000;

export class ChunkLoadError extends Error {
  readonly code = 'chunk_load_failed';
  constructor(
    readonly type: 'timeout' | 'error',
    readonly request: string,
  ) {
    super(`Loading the section "${request}" failed (${type})`);
    this.name = 'ChunkLoadError';
  }
}

export function withChunkTimeout<T>(load: () => Promise<T>, request: string, timeoutMs = CHUNK_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError('timeout', request)), timeoutMs);
    load().then(
      (module) => {
        clearTimeout(timer);
        resolve(module);
      },
      () => {
        clearTimeout(timer);
        reject(new ChunkLoadError('error', request));
      },
    );
  });
}

/** A lazily loaded screen: `section` names the chunk, `pick` chooses the export. */
export function lazyScreen<M>(section: string, load: () => Promise<M>, pick: (module: M) => ComponentType): ComponentType {
  return lazy(() => withChunkTimeout(load, section).then((module) => ({ default: pick(module) })));
}
