/**
 * Which case records a GraphQL answer carries (issue 30): the answer is walked with its
 * operation against the schema. Every object of a type holding case data (a `caseId` field,
 * or the Case itself) counts as a read of its kind for its case: the `caseId` it carries, or
 * the case of the nearest enclosing object when the query did not ask for it. Mutations are
 * not walked: the audit log records what they change.
 */
import {
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'postgraphile/graphql';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { recordKindOf, type CaseReads } from '../../domain/access-log';
import { ParsedDocuments, selectOperation } from '../graphql/limits';
import { caseReadsOf, flushCaseReads } from './access-log';

/** Wrapper types that carry records but are none themselves. */
const isWrapper = (name: string) => /(Connection|Edge|Payload|PageInfo)$/.test(name);

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  reads: CaseReads;
}

/** Notes on `reads` every case record in `data`, the answer to `operationName` of `document`. */
export function noteGraphqlReads(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, data: unknown, reads: CaseReads): void {
  const operation = selectOperation(document, operationName);
  if (!operation || operation.operation !== 'query') return;
  const root = schema.getQueryType();
  if (!root || data === null || typeof data !== 'object') return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  walkFields({ schema, fragments, reads }, operation.selectionSet, root, data as Record<string, unknown>, undefined);
}

/** The selected fields of a selection set on `type`, fragments spread, as [response key, field name, sub-selection]. */
function fieldsOf(walk: Walk, set: SelectionSetNode, type: GraphQLObjectType, out: [string, string, SelectionSetNode | undefined][] = []) {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      out.push([selection.alias?.value ?? selection.name.value, selection.name.value, selection.selectionSet]);
    } else {
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : walk.fragments.get(selection.name.value);
      if (!fragment) continue;
      const condition = fragment.typeCondition?.name.value;
      if (condition && condition !== type.name) {
        const conditionType = walk.schema.getType(condition);
        if (!conditionType || !isAbstractType(conditionType) || !walk.schema.isSubType(conditionType, type)) continue;
      }
      fieldsOf(walk, fragment.selectionSet, type, out);
    }
  }
  return out;
}

function walkValue(walk: Walk, set: SelectionSetNode, declared: ReturnType<typeof getNamedType>, value: unknown, inherited: string | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) walkValue(walk, set, declared, item, inherited);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  let type: GraphQLObjectType | undefined;
  if (isObjectType(declared)) type = declared;
  else if (isAbstractType(declared) && typeof object.__typename === 'string') {
    const named = walk.schema.getType(object.__typename);
    if (isObjectType(named)) type = named;
  }
  if (!type) return;
  walkFields(walk, set, type, object, inherited);
}

function walkFields(walk: Walk, set: SelectionSetNode, type: GraphQLObjectType, object: Record<string, unknown>, inherited: string | undefined): void {
  const fields = fieldsOf(walk, set, type);
  const definitions = type.getFields();
  const isRoot = type === walk.schema.getQueryType();
  let caseHere = inherited;
  if (!isRoot && !isWrapper(type.name)) {
    const holdsCase = type.name === 'Case' || 'caseId' in definitions;
    if (holdsCase) {
      const own = fields.find(([, name]) => name === (type.name === 'Case' ? 'id' : 'caseId'));
      const value = own ? object[own[0]] : undefined;
      if (typeof value === 'string') caseHere = value;
      walk.reads.add('graphql', recordKindOf(type.name), caseHere ? [caseHere] : []);
    }
  }
  for (const [key, name, sub] of fields) {
    if (!sub) continue;
    const definition = definitions[name];
    if (!definition) continue;
    walkValue(walk, sub, getNamedType(definition.type), object[key], caseHere);
  }
}

/**
 * The GraphQL scope's hook: after PostGraphile, the read cache or the compiled lists answered,
 * note the case records of a signed-in person's successful query and log them before the
 * answer leaves (this scope's onSend runs after the app-wide one, so it flushes itself).
 */
export function registerGraphqlAccessLog(scope: FastifyInstance, pool: pg.Pool, schema: () => PromiseLike<GraphQLSchema> | GraphQLSchema, path: string): void {
  const documents = new ParsedDocuments();
  scope.addHook('onSend', async (request, reply, payload) => {
    if (!request.identity?.userId || reply.statusCode >= 400 || (request.url.split('?')[0] ?? '') !== path) return payload;
    const body = (request.method === 'GET' ? request.query : request.body) as { query?: unknown; operationName?: unknown } | undefined;
    if (!body || typeof body.query !== 'string') return payload;
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    if (text === undefined) return payload;
    let answer: { data?: unknown };
    try {
      answer = JSON.parse(text) as { data?: unknown };
    } catch {
      return payload;
    }
    if (!answer.data) return payload;
    let document: DocumentNode;
    try {
      document = documents.parse(body.query, 100_000);
    } catch {
      return payload;
    }
    noteGraphqlReads(await schema(), document, typeof body.operationName === 'string' ? body.operationName : undefined, answer.data, caseReadsOf(request));
    await flushCaseReads(pool, request, reply);
    return payload;
  });
}
