/**
 * The GraphQL request guard (issue 16): measures each operation with limits.ts before the read
 * cache or PostGraphile touch it and refuses what is over a limit with a GraphQL error body
 * (HTTP 400, `extensions.code` naming the limit). Anonymous introspection is refused in production.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'postgraphile/graphql';
import { checkRequest, ParsedDocuments, type GraphqlLimits, type GraphqlRequest } from './limits';
import { GRAPHQL_PATH } from './preset';

export interface GuardOptions {
  limits: GraphqlLimits;
  /** Outside production anyone may introspect (GraphiQL, codegen); in production signed-in people only. */
  introspectionForAnonymous: boolean;
  schema: () => PromiseLike<GraphQLSchema> | GraphQLSchema;
}

/** The query, operation name and variables of a POST body or a GET query string. */
function graphqlRequest(request: FastifyRequest): GraphqlRequest | undefined {
  const source = (request.method === 'GET' ? request.query : request.body) as Record<string, unknown> | undefined;
  if (!source || typeof source !== 'object') return undefined;
  let variables: unknown = source.variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables);
    } catch {
      variables = undefined;
    }
  }
  return { query: source.query, operationName: source.operationName, variables };
}

export function registerGraphqlLimits(app: FastifyInstance, options: GuardOptions): void {
  const documents = new ParsedDocuments();
  app.addHook('preHandler', async (request, reply) => {
    if ((request.url.split('?')[0] ?? '') !== GRAPHQL_PATH) return undefined;
    const body = graphqlRequest(request);
    if (!body) return undefined;
    const schema = await options.schema();
    const verdict = checkRequest(schema, body, options.limits, {
      introspectionAllowed: options.introspectionForAnonymous || request.identity.userId !== null,
      documents,
    });
    if (verdict.ok) return undefined;
    return reply
      .status(400)
      .header('content-type', 'application/json; charset=utf-8')
      .send({ errors: [{ message: verdict.message, extensions: { code: verdict.code, ...(verdict.measure ? { measured: verdict.measure } : {}) } }] });
  });
}
