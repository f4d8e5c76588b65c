/**
 * A kept-answer cache for GraphQL reads that screens poll (docs/decisions/0029-interview-reads-and-read-cache.md).
 *
 * Why: a polled interview read is hundreds of nested rows; executing it costs GraphQL 10–25 ms
 * of CPU while the database needs a fraction of that, and between two polls it almost never
 * changes. So the server keeps the answer and serves it again while it is provably current:
 *
 * - Only operations listed here by their exact text are kept. Anything else, including any other
 *   selection of the same fields, runs as usual.
 * - An answer is kept per person (the request's database settings, so role and user id) and
 *   variables; an operation whose answer is the same for every signed-in person may say so.
 * - Each operation names a topic of app_private.read_versions (migration 0015). Every transaction
 *   that changes a table the topic's reads are built from raises its version at commit. A kept
 *   answer is served only while the version read *before* it was built is still the current one,
 *   so a change committed while it was being built makes it stale at once, never hidden.
 * - Reads that compare with the clock (free slots start in the future) keep their answer for a
 *   bounded time only (`maxAgeMs`); the screens also hide what has started meanwhile.
 * - Concurrent requests for an answer being built wait for it instead of building it again.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { AVAILABLE_DATES_QUERY, CALENDAR_QUERY, OFFERS_QUERY } from '../../domain/interview-operations';
import { pgSettingsFor } from '../db/transaction';
import { GRAPHQL_PATH } from './preset';

export interface CachedOperation {
  /** The app_private.read_versions topic whose tables the answer is built from. */
  topic: string;
  /** Whether the answer depends on who asks ('person') or only on being signed in ('signedIn'). */
  scope: 'person' | 'signedIn';
  /** How long an answer may be kept when nothing changed, for reads that compare with now(). */
  maxAgeMs: number;
}

/** The polled interview reads (src/domain/interview-operations.ts), by their exact text. */
export const CACHED_OPERATIONS: ReadonlyMap<string, CachedOperation> = new Map([
  [OFFERS_QUERY, { topic: 'interviews', scope: 'person', maxAgeMs: 60_000 }],
  [CALENDAR_QUERY, { topic: 'interviews', scope: 'person', maxAgeMs: 60_000 }],
  // Free slots show time and the interviewer's gender only, the same to every signed-in person.
  [AVAILABLE_DATES_QUERY, { topic: 'interviews', scope: 'signedIn', maxAgeMs: 60_000 }],
]);

export interface ReadCacheOptions {
  pool: pg.Pool;
  operations?: ReadonlyMap<string, CachedOperation>;
  /** Upper bound of kept answers; the least recently served go first. */
  maxEntries?: number;
  /** Upper bound of the kept answers' total size in bytes. */
  maxBytes?: number;
  now?: () => number;
}

interface Entry {
  version: string;
  builtAt: number;
  contentType: string;
  /** The answer's bytes: sent as they are, without encoding the text again on every hit. */
  payload: Buffer;
}

interface Pending {
  version: string;
  promise: Promise<Entry | undefined>;
  settle(entry: Entry | undefined): void;
}

/** What a request that may be kept carries from preHandler to onSend. */
interface Miss {
  key: string;
  version: string;
  pending: Pending;
}

declare module 'fastify' {
  interface FastifyRequest {
    readCacheMiss?: Miss;
  }
}

export interface ReadCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

interface GraphqlBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

const VERSION_STATEMENT = { name: 'sanad-read-version', text: 'select version::text from app_private.read_versions where topic = $1' };

/**
 * Shared version reads of one topic. A request must get a version read that started after it
 * arrived: one already on its way may have started before a change the request's sender just
 * committed. So a request that finds a read running waits for the next one, which starts when
 * the running one ends and serves everyone who arrived meanwhile: at 32 concurrent polls that
 * is a few reads instead of 32, and never an older answer than reading alone would give.
 */
export class VersionReads {
  private running: Promise<string> | undefined;
  private queued: Promise<string> | undefined;

  constructor(private readonly read: () => Promise<string>) {}

  next(): Promise<string> {
    if (!this.running) return this.start();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<string> {
    const reading: Promise<string> = this.read().finally(() => {
      if (this.running === reading) this.running = undefined;
    });
    this.running = reading;
    return reading;
  }
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Pending>();
  private readonly versions = new Map<string, VersionReads>();
  private readonly operations: ReadonlyMap<string, CachedOperation>;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private bytes = 0;
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly options: ReadCacheOptions) {
    this.operations = options.operations ?? CACHED_OPERATIONS;
    this.maxEntries = options.maxEntries ?? 2000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** Adds the hooks to the GraphQL route of `app`. */
  register(app: FastifyInstance): void {
    app.addHook('preHandler', (request, reply) => this.beforeGraphql(request, reply));
    app.addHook('onSend', async (request, reply, payload) => {
      this.afterGraphql(request, reply, payload);
      return payload;
    });
    // A request that ends without an answer (aborted, failed) must not leave others waiting.
    app.addHook('onResponse', async (request) => this.release(request));
    app.addHook('onRequestAbort', async (request) => this.release(request));
  }

  summary(): ReadCacheStats {
    return { ...this.stats, entries: this.entries.size, bytes: this.bytes };
  }

  private async beforeGraphql(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.method !== 'POST' || request.routeOptions.url !== GRAPHQL_PATH) return;
    const userId = request.identity?.userId;
    if (!userId) return;
    const body = request.body as GraphqlBody | undefined;
    if (!body || typeof body.query !== 'string') return;
    const operation = this.operations.get(body.query);
    if (!operation) return;

    const key = cacheKey(operation, body, userId, request.headers.accept);
    const version = await this.currentVersion(operation.topic);
    const kept = this.entries.get(key);
    if (kept && kept.version === version && this.now() - kept.builtAt < operation.maxAgeMs) {
      return this.serve(reply, key, kept);
    }
    const building = this.pending.get(key);
    if (building && building.version === version) {
      const built = await building.promise;
      if (built) return this.serve(reply, key, built);
      // The request that built it failed or was not keepable: build our own answer.
    }
    this.stats.misses++;
    const pending = newPending(version);
    this.pending.set(key, pending);
    request.readCacheMiss = { key, version, pending };
  }

  private serve(reply: FastifyReply, key: string, entry: Entry): FastifyReply {
    this.stats.hits++;
    // Most recently served last: Map keeps insertion order, so eviction takes the oldest first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return reply.header('content-type', entry.contentType).header('x-sanad-read-cache', 'hit').send(entry.payload);
  }

  private afterGraphql(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const miss = request.readCacheMiss;
    if (!miss) return;
    request.readCacheMiss = undefined;
    const contentType = String(reply.getHeader('content-type') ?? 'application/json');
    // Only a complete answer is kept: errors (a refused or failed read) are asked again.
    const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.isBuffer(payload) ? payload : undefined;
    const keepable = reply.statusCode === 200 && bytes !== undefined && !bytes.includes('"errors"');
    const entry = keepable ? { version: miss.version, builtAt: this.now(), contentType, payload: bytes } : undefined;
    if (entry) this.store(miss.key, entry);
    this.settle(miss, entry);
  }

  private release(request: FastifyRequest): void {
    const miss = request.readCacheMiss;
    if (!miss) return;
    request.readCacheMiss = undefined;
    this.settle(miss, undefined);
  }

  private settle(miss: Miss, entry: Entry | undefined): void {
    if (this.pending.get(miss.key) === miss.pending) this.pending.delete(miss.key);
    miss.pending.settle(entry);
  }

  private store(key: string, entry: Entry): void {
    const size = entry.payload.length;
    if (size > this.maxBytes / 4) return;
    const previous = this.entries.get(key);
    // A slow build of an older version must not replace the answer of a newer one.
    if (previous && BigInt(previous.version) > BigInt(entry.version)) return;
    if (previous) {
      this.bytes -= previous.payload.length;
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.payload.length;
    }
  }

  private currentVersion(topic: string): Promise<string> {
    let reads = this.versions.get(topic);
    if (!reads) {
      reads = new VersionReads(() => this.readVersion(topic));
      this.versions.set(topic, reads);
    }
    return reads.next();
  }

  private async readVersion(topic: string): Promise<string> {
    const result = await this.options.pool.query<{ version: string }>({ ...VERSION_STATEMENT, values: [topic] });
    const version = result.rows[0]?.version;
    if (version === undefined) throw new Error(`The read cache topic ${topic} has no version row (app_private.read_versions).`);
    return version;
  }
}

/** Who asks (their database settings, or only "signed in"), what and with which variables. */
function cacheKey(operation: CachedOperation, body: GraphqlBody, userId: string, accept: string | undefined): string {
  const who = operation.scope === 'signedIn' ? 'signed-in' : JSON.stringify(pgSettingsFor({ userId }));
  // The answer's media type follows the Accept header, so it is part of the question.
  return JSON.stringify([who, accept ?? null, body.query, body.operationName ?? null, body.variables ?? null]);
}

function newPending(version: string): Pending {
  let settle!: (entry: Entry | undefined) => void;
  const promise = new Promise<Entry | undefined>((resolve) => {
    settle = resolve;
  });
  return { version, promise, settle };
}
