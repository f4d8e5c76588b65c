/**
 * Safe retries (issue 28): every state-changing request the web app sends carries an
 * `Idempotency-Key`, and a retry of that request (after a lost answer) sends the same key, so
 * the server answers it with the first answer instead of storing a message, an answer or a
 * booking twice. The key is random from crypto.getRandomValues: crypto.randomUUID exists only
 * in secure contexts, and a pilot on a clinic network may serve the app over plain HTTP.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A random version-4 UUID. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether a GraphQL document's text is a mutation (queries change nothing and need no key). */
export function isMutation(query: string): boolean {
  const text = query.replace(/#[^\n\r]*/g, '').trimStart();
  return /^mutation\b/.test(text);
}

/** Whether a request changes state and so carries a key: every non-GET request except GraphQL queries and the account routes. */
export function needsIdempotencyKey(method: string, path: string, body: unknown): boolean {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD' || upper === 'OPTIONS') return false;
  // The account routes keep no answers (they carry tokens); the server ignores keys there.
  if (path.startsWith('/api/auth/')) return false;
  if (path.split('?')[0] === '/api/graphql') {
    const query = (body as { query?: unknown } | undefined)?.query;
    return typeof query === 'string' && isMutation(query);
  }
  return true;
}

/** How long to wait before retry `attempt` (1, 2) of a keyed request whose answer was lost. */
export const RETRY_DELAYS_MS = [1000, 3000] as const;
