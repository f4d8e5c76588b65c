/**
 * Every read path of the API, as one person (issue 30): each GET route the app registered
 * (taken from Fastify's own route table, so a new route is crawled without anyone listing it),
 * with its parameters filled from what the test knows (case ids, process and task ids,
 * collection names, instrument codes), and every GraphQL query field (taken from introspection)
 * with its scalar fields and the scalars of the objects one level below. Tests search the
 * answers for text that must not be there (a future allocation; the arm, for a blinded assessor).
 */
import { INSTRUMENT_CODES } from '../../src/domain/instruments';
import { appCollections } from '../../src/server/collections';
import type { TestApp } from './app';

export interface CrawledAnswer {
  /** "GET /api/…" or "graphql <field>". */
  path: string;
  status: number;
  text: string;
}

/** GET routes with their parameters, from Fastify's printed route tree. */
export function getRoutes(t: TestApp): string[] {
  const lines = t.sanad.app.printRoutes({ commonPrefix: false }).split('\n');
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of lines) {
    const match = /^([│├└─\s]*)(\S.*?) \(([^)]*)\)\s*$/.exec(line);
    if (!match) continue;
    const depth = Math.floor(match[1]!.length / 4);
    stack.length = depth;
    const full = (stack[depth - 1] ?? '') + match[2]!;
    stack[depth] = full;
    if (match[3]!.split(', ').includes('GET')) routes.push(full);
  }
  return routes;
}

/** Every way to fill a route's `:param`s from the values the test knows; none when one is unknown. */
function expand(route: string, values: Record<string, readonly string[]>): string[] {
  let paths = [route];
  for (const [, name] of route.matchAll(/:([A-Za-z]+)/g)) {
    const options = values[name!];
    if (!options || options.length === 0) return [];
    paths = paths.flatMap((p) => options.map((v) => p.replace(`:${name}`, encodeURIComponent(v))));
  }
  return paths;
}

/** Routes not worth a request: the web app's HTML, the health checks and the GraphiQL page. */
const SKIPPED = new Set(['*', '/healthz', '/readyz', '/api/graphiql']);

export async function crawlRest(
  t: TestApp,
  token: string,
  values: Record<string, readonly string[]>,
  /** Query strings some routes need (e.g. invoices need ?year=). */
  queries: Record<string, string> = {},
): Promise<CrawledAnswer[]> {
  const filled: Record<string, readonly string[]> = {
    collection: appCollections(t.config.measurementSchedule).map((c) => c.name),
    code: [...INSTRUMENT_CODES],
    instrument: [...INSTRUMENT_CODES],
    key: ['trial'],
    ...values,
  };
  const answers: CrawledAnswer[] = [];
  for (const route of getRoutes(t)) {
    // The web app's static files (served when built) are code, not data.
    if (SKIPPED.has(route) || route.startsWith('/assets')) continue;
    for (const path of expand(route, filled)) {
      const query = queries[route] ?? '';
      const response = await fetch(t.url + path + query, { headers: { authorization: `Bearer ${token}` } });
      answers.push({ path: `GET ${path}${query}`, status: response.status, text: await response.text() });
    }
  }
  return answers;
}

/** Every string and number in a JSON answer, without its keys. */
function valuesOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(valuesOf);
  if (typeof value === 'object') return Object.values(value).flatMap(valuesOf);
  return [String(value)];
}

interface IntrospectedType {
  kind: string;
  name: string | null;
  ofType: IntrospectedType | null;
}
interface IntrospectedField {
  name: string;
  args: { name: string; type: IntrospectedType }[];
  type: IntrospectedType;
}

const INTROSPECTION = `{ __schema { queryType { name } types { name kind fields { name args { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }
  type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`;

function named(type: IntrospectedType): IntrospectedType {
  return type.ofType ? named(type.ofType) : type;
}
function isList(type: IntrospectedType): boolean {
  return type.kind === 'LIST' || (type.ofType !== null && isList(type.ofType));
}
const required = (f: IntrospectedField) => f.args.filter((a) => a.type.kind === 'NON_NULL');

/** Every GraphQL query field with its scalars (and one level of objects), as `token`'s person. */
export async function crawlGraphql(t: TestApp, token: string, ids: readonly string[]): Promise<CrawledAnswer[]> {
  const schema = (await t.graphql(INTROSPECTION, {}, token)).data.__schema as { queryType: { name: string }; types: { name: string; kind: string; fields: IntrospectedField[] | null }[] };
  const types = new Map(schema.types.map((ty) => [ty.name, ty]));
  const scalars = (typeName: string) =>
    (types.get(typeName)?.fields ?? []).filter((f) => required(f).length === 0 && ['SCALAR', 'ENUM'].includes(named(f.type).kind)).map((f) => f.name);
  const selection = (typeName: string, depth: number): string => {
    const type = types.get(typeName);
    if (!type?.fields) return '';
    const parts = [...scalars(typeName)];
    if (depth > 0) {
      for (const f of type.fields) {
        const inner = named(f.type);
        if (inner.kind !== 'OBJECT' || required(f).length > 0 || f.name === 'query') continue;
        const nodes = types.get(inner.name!)?.fields?.find((x) => x.name === 'nodes');
        const page = f.args.some((a) => a.name === 'first') ? '(first: 5)' : '';
        if (nodes) {
          const sub = scalars(named(nodes.type).name!).join(' ');
          if (sub) parts.push(`${f.name}${page} { nodes { ${sub} } }`);
        } else {
          const sub = scalars(inner.name!).join(' ');
          if (sub) parts.push(`${f.name}${isList(f.type) && page ? page : ''} { ${sub} }`);
        }
      }
    }
    return parts.join(' ');
  };
  const answers: CrawledAnswer[] = [];
  for (const field of types.get(schema.queryType.name)!.fields!) {
    if (field.name.startsWith('__') || field.name === 'query' || field.name === 'node') continue;
    const req = required(field);
    const inner = named(field.type);
    const body = (() => {
      if (inner.kind !== 'OBJECT') return '';
      const nodes = types.get(inner.name!)?.fields?.find((x) => x.name === 'nodes');
      return nodes ? `{ nodes { ${selection(named(nodes.type).name!, 1)} } }` : `{ ${selection(inner.name!, 1)} }`;
    })();
    const calls: string[] = [];
    if (req.length === 0) calls.push(`{ ${field.name}${field.args.some((a) => a.name === 'first') ? '(first: 50)' : ''} ${body} }`);
    else if (req.length === 1 && named(req[0]!.type).name === 'UUID') for (const id of ids) calls.push(`{ ${field.name}(${req[0]!.name}: "${id}") ${body} }`);
    for (const query of calls) {
      const response = await t.api('POST', '/api/graphql', { body: { query }, token });
      // The values only: the keys echo the field names the query asked for (the public schema).
      answers.push({ path: `graphql ${query.slice(0, 120)}`, status: response.status, text: valuesOf(response.body).join('\n') });
    }
  }
  return answers;
}
