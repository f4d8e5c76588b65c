/**
 * Typed GraphQL documents. Every operation the web app sends is written with `graphql()`
 * (gql.tada): the text is parsed at build time by TypeScript against the contract
 * (src/web/api/graphql-env.d.ts, generated from schema.graphql), so a renamed field or a wrong
 * variable fails `npm run typecheck`, and src/web/api/documents.test.ts validates every
 * document against schema.graphql as well. `request()` sends one and returns its typed data.
 */
import { print, type DocumentNode } from '@0no-co/graphql.web';
import { initGraphQLTada, type ResultOf, type TadaDocumentNode, type VariablesOf } from 'gql.tada';
import { api, ApiError } from './client';
import type { introspection } from './graphql-env.d.ts';

export type { ResultOf, VariablesOf };

const tada = initGraphQLTada<{
  introspection: introspection;
  // PostGraphile sends these as JSON strings (BigInt and BigFloat too: they exceed a double).
  scalars: { UUID: string; Datetime: string; BigInt: string; BigFloat: string; Cursor: string; JSON: unknown };
  // Fragments are plain shared selections here, not data masks.
  disableMasking: true;
}>();

/** The text a document is sent as, and every document created, for the validation test. */
const sources = new WeakMap<object, string>();
export const DOCUMENTS = new Set<DocumentNode>();

/**
 * Declares a document. Without fragments the text is sent exactly as written: the server's
 * read cache recognises the polled interview reads by their text (src/server/graphql/read-cache.ts).
 */
export const graphql = Object.assign(
  (input: string, fragments?: readonly DocumentNode[]) => {
    const document = tada(input, fragments as never) as unknown as DocumentNode;
    if (!fragments?.length) sources.set(document, input);
    if (document.definitions.some((d) => d.kind === 'OperationDefinition')) DOCUMENTS.add(document);
    return document;
  },
  { scalar: tada.scalar, persisted: tada.persisted },
) as unknown as typeof tada;

export function documentText(document: DocumentNode): string {
  return sources.get(document) ?? print(document);
}

/** The operation's name, which every document must have (spec §7 names them). */
export function operationName(document: DocumentNode): string | null {
  for (const definition of document.definitions) {
    if (definition.kind === 'OperationDefinition') return definition.name?.value ?? null;
  }
  return null;
}

export interface RequestOptions {
  /** Receives each error of a response; without it the first error is thrown (spec §7). */
  onError?: (error: ApiError) => void;
  /** Where an error thrown by onError goes: the uncaught-error list (spec §8). */
  onUncaught?: (error: unknown) => void;
  signal?: AbortSignal;
}

type GraphqlError = { message: string; extensions?: { code?: string } & Record<string, unknown> };

/**
 * Sends a document and returns its data. Errors become ApiError with the GraphQL code (the
 * extensions, such as the broken `constraint`, stay in `body`). With `onError` every error goes
 * to it (the all-errors policy of spec §7) and the data that did arrive is returned.
 */
export async function request<Result, Variables>(
  document: TadaDocumentNode<Result, Variables>,
  ...[variables, options]: Variables extends Record<string, never> ? [Variables?, RequestOptions?] : [Variables, RequestOptions?]
): Promise<Result> {
  const query = documentText(document as unknown as DocumentNode);
  const result = await api<{ data?: Result; errors?: GraphqlError[] }>('POST', '/api/graphql', {
    body: { query, variables: variables ?? {}, operationName: operationName(document as unknown as DocumentNode) },
    ...(options?.signal ? { signal: options.signal } : {}),
  });
  const errors = (result.errors ?? []).map((e) => new ApiError(200, e.extensions?.code ?? 'graphql', e.message, {}, e.extensions ?? {}));
  if (errors.length === 0) return result.data as Result;
  if (!options?.onError) throw errors[0];
  for (const error of errors) {
    try {
      options.onError(error);
    } catch (thrown) {
      options.onUncaught?.(thrown);
    }
  }
  return (result.data ?? null) as Result;
}
