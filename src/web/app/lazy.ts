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

/** Spec §8: an unknown module raises a module-not-found error (a section without the screen asked for). */
export class ModuleNotFoundError extends Error {
  readonly code = 'module_not_found';
  constructor(readonly request: string) {
    super(`Cannot find module '${request}'`);
    this.name = 'ModuleNotFoundError';
  }
}

/** The screen `pick` chooses from a loaded section, or the module-not-found error. */
export function pickScreen<M>(module: M, section: string, pick: (module: M) => ComponentType | undefined): { default: ComponentType } {
  const screen = pick(module);
  if (!screen) throw new ModuleNotFoundError(section);
  return { default: screen };
}

/** A lazily loaded screen: `section` names the chunk, `pick` chooses the export. */
export function lazyScreen<M>(section: string, load: () => Promise<M>, pick: (module: M) => ComponentType | undefined): ComponentType {
  return lazy(() => withChunkTimeout(load, section).then((module) => pickScreen(module, section, pick)));
}
