/**
 * The one way the web app talks to the server: JSON over fetch with the bearer token from
 * session (or local) storage under `authToken` (spec §7). Errors become ApiError with the
 * server's stable code, so screens can say something a person can act on.
 */
import type { FieldErrors } from '../../domain/accounts';
import { IDEMPOTENCY_HEADER, newIdempotencyKey, needsIdempotencyKey, RETRY_DELAYS_MS } from './idempotency';
import { SIGNATURE_HEADER } from '../../domain/signatures';

export const TOKEN_KEY = 'authToken';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** A stable code such as invalid_credentials; spec §8 "coded errors". */
    readonly code: string,
    message: string,
    readonly fields: FieldErrors = {},
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Errors that carry a string code are recognised as coded errors (spec §8). */
export function isCodedError(error: unknown): error is { code: string; message: string } {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

export function readToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
  }
}

type Listener = () => void;
const maintenanceListeners = new Set<Listener>();
const sessionEndedListeners = new Set<Listener>();

/** Called when any response says the server is in maintenance (the app shows spec §1's screen). */
export function onMaintenance(listener: Listener): () => void {
  maintenanceListeners.add(listener);
  return () => maintenanceListeners.delete(listener);
}

/** Called when the server refuses the stored token (expired, revoked): the session is over. */
export function onSessionEnded(listener: Listener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Send without the stored token (sign-in, registration). */
  anonymous?: boolean;
  /** Further request headers, e.g. `Prefer` for the REST collections. */
  headers?: Record<string, string>;
  /** A file sent as raw bytes instead of a JSON body (the /downloads upload). */
  file?: Blob;
  /** Issue 28: the Idempotency-Key of a write; a new one by default (see idempotency.ts). */
  idempotencyKey?: string;
}

/** The act and record a refusal asks the person to sign (issue 30: e-signatures). */
export interface SignatureAsk {
  act: string;
  recordId: string;
}

/** Asks the person to sign (the signing dialog): a signing token, or null when they cancel. */
export type Signer = (ask: SignatureAsk) => Promise<string | null>;
let signer: Signer | null = null;

const signedListeners = new Set<Listener>();

/** Called after a signed act went through (the screens refetch the signature manifests). */
export function onSigned(listener: Listener): () => void {
  signedListeners.add(listener);
  return () => signedListeners.delete(listener);
}

/** The signing dialog registers itself here; every signed act's request then goes through it. */
export function setSigner(next: Signer | null): void {
  signer = next;
}

/**
 * The act and record of a "signature needed" refusal: the app's routes answer
 * {error, act, recordId}, the workflow routes (Camunda's shape) {code, details: {act, recordId}}.
 */
export function signatureAsked(status: number, body: Record<string, unknown>): SignatureAsk | undefined {
  if (status !== 403) return undefined;
  const code = typeof body.error === 'string' ? body.error : body.code;
  if (code !== 'signature_required' && code !== 'signature_invalid') return undefined;
  const where = (typeof body.details === 'object' && body.details !== null ? body.details : body) as Record<string, unknown>;
  return typeof where.act === 'string' && typeof where.recordId === 'string' ? { act: where.act, recordId: where.recordId } : undefined;
}

/**
 * Sends a request; when the server answers that the act needs the person's electronic
 * signature, asks for it (the signing dialog) and sends the same request once more with the
 * signing token. A refused act changed nothing, so repeating it is safe. Cancelled: the refusal.
 */
export async function sendSigned(
  path: string,
  init: RequestInit & { headers: Record<string, string> },
  sender: (path: string, init: RequestInit) => Promise<Response> = send,
): Promise<Response> {
  const response = await sender(path, init);
  if (response.status !== 403 || !signer || init.headers[SIGNATURE_HEADER]) return response;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(await response.clone().text()) as Record<string, unknown>;
  } catch {
    return response;
  }
  const ask = signatureAsked(response.status, body);
  if (!ask) return response;
  const token = await signer(ask);
  if (!token) return response;
  const signed = await sender(path, { ...init, headers: { ...init.headers, [SIGNATURE_HEADER]: token } });
  if (signed.ok) signedListeners.forEach((l) => l());
  return signed;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const token = options.anonymous ? null : readToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.file) headers['content-type'] = 'application/octet-stream';
  const keyed = !options.anonymous && needsIdempotencyKey(method, path, options.body);
  if (keyed) headers[IDEMPOTENCY_HEADER] = options.idempotencyKey ?? newIdempotencyKey();
  const init: RequestInit & { headers: Record<string, string> } = {
    method,
    headers,
    body: options.file ?? (options.body === undefined ? null : JSON.stringify(options.body)),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  // A write that needs the person's signature is sent again with it (sendSigned); the same
  // Idempotency-Key is safe there, because the server keeps no answer of a refusal to sign.
  const response = await sendSigned(path, init, keyed ? sendWithRetries : send);
  return (await readJson(response)) as T;
}

/**
 * A write with its Idempotency-Key, sent again with the same key when its answer was lost (the
 * connection failed) or while the server still works on the first one (409
 * idempotency_key_in_use): the server answers a repeat with the first answer, so nothing is
 * stored twice. Gives up after RETRY_DELAYS_MS.length retries with the last failure.
 */
async function sendWithRetries(path: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const delay = RETRY_DELAYS_MS[attempt];
    let response: Response;
    try {
      response = await send(path, init);
    } catch (error) {
      if (delay === undefined || !(error instanceof ApiError) || error.code !== 'network') throw error;
      await wait(delay, init.signal);
      continue;
    }
    if (response.status !== 409 || delay === undefined || response.headers.get('retry-after') === null) return response;
    const body = (await response.clone().json().catch(() => ({}))) as { error?: unknown };
    if (body.error !== 'idempotency_key_in_use') return response;
    await wait(Math.max(delay, Number(response.headers.get('retry-after')) * 1000 || 0), init.signal);
  }
}

function wait(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('Aborted', 'AbortError'));
    });
  });
}

/** A file from the server (a /downloads document) as a Blob; failures are ApiErrors as above. */
export async function apiBlob(path: string): Promise<Blob> {
  const token = readToken();
  const response = await send(path, { method: 'GET', headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (response.ok) return response.blob();
  await readJson(response); // throws the server's error
  throw new ApiError(response.status, `http_${response.status}`, response.statusText);
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'The server cannot be reached. Check your connection and try again.');
  }
}

/** The JSON body of a successful answer, or the ApiError of a failed one. */
async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { message: text };
  }
  if (response.ok) return body;
  if (response.status === 503 && body.maintenance === true) maintenanceListeners.forEach((l) => l());
  if (response.status === 401 && body.error === 'session_invalid') sessionEndedListeners.forEach((l) => l());
  // Issue 16: GraphQL refusals before execution (limits, 429) carry a GraphQL error body.
  const refusal = Array.isArray(body.errors) ? (body.errors[0] as { message?: unknown; extensions?: { code?: unknown } } | undefined) : undefined;
  const refusalCode = typeof refusal?.extensions?.code === 'string' ? refusal.extensions.code : undefined;
  throw new ApiError(
    response.status,
    typeof body.error === 'string' ? body.error : response.status === 429 ? 'rate_limited' : (refusalCode ?? `http_${response.status}`),
    typeof body.message === 'string' ? body.message : typeof refusal?.message === 'string' ? refusal.message : response.statusText,
    (body.fields as FieldErrors | undefined) ?? {},
    body,
  );
}

/**
 * A GraphQL request; errors with a message become an ApiError with the GraphQL code. The
 * error's extensions (such as the broken `constraint`) stay in `body`, so a screen can say
 * which rule the input broke.
 */
export async function graphql<T>(query: string, variables: Record<string, unknown> = {}, options: GraphqlOptions = {}): Promise<T> {
  const result = await api<{ data?: T; errors?: { message: string; extensions?: { code?: string } & Record<string, unknown> }[] }>('POST', '/api/graphql', {
    body: { query, variables },
  });
  const errors = (result.errors ?? []).map((e) => new ApiError(200, e.extensions?.code ?? 'graphql', e.message, {}, e.extensions ?? {}));
  if (errors.length === 0) return result.data as T;
  if (!options.onError) throw errors[0];
  // Spec §7: with a handler, every error goes to it (all-errors policy) and the data that did
  // arrive is returned; a handler that throws records the error as uncaught (spec §8).
  for (const error of errors) {
    try {
      options.onError(error);
    } catch (thrown) {
      options.onUncaught?.(thrown);
    }
  }
  return (result.data ?? null) as T;
}

export interface GraphqlOptions {
  /** Receives each error of a response; without it the first error is thrown. */
  onError?: (error: ApiError) => void;
  /** Where an error thrown by onError goes: the uncaught-error list. */
  onUncaught?: (error: unknown) => void;
}
