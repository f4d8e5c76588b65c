/**
 * Bounds on one GraphQL operation, measured before PostGraphile plans it: a single request must
 * not be able to exhaust the server's memory or event loop (issue 16). Four measures:
 *
 * - cost: the estimated number of objects the answer holds. A list field (a `…List` field or a
 *   connection) multiplies everything under it by its `first`/`last` argument, or by the default
 *   page size when it has none; nested lists multiply. Scalars cost nothing, so a wide selection
 *   of columns is free, a deep or repeated selection of lists is not.
 * - depth: the deepest field, counting fragments as if written out.
 * - aliases: fields written under a name other than their own (the alias attack multiplies one
 *   field hundreds of times without nesting).
 * - root fields: fields selected at the operation's top level, aliases included.
 *
 * Pure: parse, schema and variables in, measures out; the preHandler in app.ts refuses.
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  parse,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'postgraphile/graphql';

export interface GraphqlLimits {
  maxCost: number;
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
  /** Weight of a list field without `first` or `last`. */
  defaultPageSize: number;
  /** Largest number of lexical tokens in one document (bounds the parser itself). */
  maxTokens: number;
}

export interface OperationMeasure {
  cost: number;
  depth: number;
  aliases: number;
  rootFields: number;
  /** Selects `__schema` or `__type` (`__typename` is not introspection). */
  introspection: boolean;
}

export type LimitVerdict =
  | { ok: true; measure: OperationMeasure | undefined }
  | { ok: false; code: string; message: string; measure?: OperationMeasure };

/** Connection wrappers (`allCases`, `caseList`) hold their list in `nodes` or `edges`. */
function isConnection(type: GraphQLNamedType): boolean {
  if (!isObjectType(type)) return false;
  const fields = type.getFields();
  return 'nodes' in fields || 'edges' in fields;
}

function intArgument(value: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const raw = variables[value.name.value];
    return typeof raw === 'number' && Number.isFinite(raw) ? raw : undefined;
  }
  return undefined;
}

/** The default of a variable declared `$first: Int = 100`, so documents keep their page size. */
function variableDefaults(operation: OperationDefinitionNode): Record<string, unknown> {
  const defaults: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value?.kind === Kind.INT) defaults[definition.variable.name.value] = Number(value.value);
  }
  return defaults;
}

/** Finds the operation a request names (or its only one). */
export function selectOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName) return operations.find((o) => o.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

/**
 * Measures one operation of a parsed document. Unknown fields and fragments are skipped:
 * GraphQL validation refuses them afterwards with its own message.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  defaultPageSize: number,
): OperationMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const values = { ...variableDefaults(operation), ...variables };
  const measure: OperationMeasure = { cost: 0, depth: 0, aliases: 0, rootFields: 0, introspection: false };
  const rootType =
    operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!rootType) return measure;

  // A fragment spread inside itself is invalid GraphQL; the guard keeps the walk finite anyway.
  const visit = (selectionSet: SelectionSetNode, parent: GraphQLNamedType, depth: number, multiplier: number, spreads: Set<string>, root: boolean) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || spreads.has(name)) continue;
        const on = schema.getType(fragment.typeCondition.name.value) ?? parent;
        visit(fragment.selectionSet, on, depth, multiplier, new Set([...spreads, name]), root);
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? parent) : parent;
        visit(selection.selectionSet, on, depth, multiplier, spreads, root);
        continue;
      }
      const name = selection.name.value;
      if (root) measure.rootFields += 1;
      if (selection.alias && selection.alias.value !== name) measure.aliases += 1;
      measure.depth = Math.max(measure.depth, depth);
      if (name === '__schema' || name === '__type') measure.introspection = true;
      if (name.startsWith('__')) continue;
      if (!(isObjectType(parent) || isInterfaceType(parent))) continue;
      const field: GraphQLField<unknown, unknown> | undefined = parent.getFields()[name];
      if (!field || !selection.selectionSet) continue;
      const named = getNamedType(field.type);
      // `nodes` and `edges` of a connection were already weighted at the connection field.
      const insideConnection = isConnection(parent) && (name === 'nodes' || name === 'edges');
      const returnsMany = isListType(getNullableType(field.type)) || isConnection(named);
      let factor = 1;
      if (returnsMany && !insideConnection) {
        const args = new Map(selection.arguments?.map((a) => [a.name.value, a.value]));
        const page = intArgument(args.get('first'), values) ?? intArgument(args.get('last'), values);
        factor = page !== undefined ? Math.max(0, page) : defaultPageSize;
      }
      const objects = multiplier * Math.max(factor, 1);
      // A connection is one wrapper object; its page of rows is counted at `nodes`/`edges`.
      measure.cost += isConnection(named) && !insideConnection ? multiplier : objects;
      visit(selection.selectionSet, named, depth + 1, objects, spreads, false);
    }
  };
  visit(operation.selectionSet, rootType, 1, 1, new Set(), true);
  return measure;
}

export interface GraphqlRequest {
  query: unknown;
  operationName?: unknown;
  variables?: unknown;
}

/**
 * Parsed documents by their exact text. The web app sends the same few documents all day and
 * parsing one is most of what a check costs, so a document parsed once is measured again from
 * its tree (never changed by measuring). Bounded in count and in the length of a kept text; the
 * oldest goes first, and a text that does not parse is never kept.
 */
export class ParsedDocuments {
  private readonly documents = new Map<string, DocumentNode>();
  constructor(
    private readonly maxEntries = 200,
    private readonly maxLength = 20_000,
  ) {}

  parse(query: string, maxTokens: number): DocumentNode {
    const kept = this.documents.get(query);
    if (kept) return kept;
    const document = parse(query, { maxTokens, noLocation: true });
    if (query.length <= this.maxLength) {
      const oldest = this.documents.size >= this.maxEntries ? this.documents.keys().next().value : undefined;
      if (oldest !== undefined) this.documents.delete(oldest);
      this.documents.set(query, document);
    }
    return document;
  }

  get size(): number {
    return this.documents.size;
  }
}

/**
 * The verdict on one request. Requests that do not parse, name no known operation, or carry
 * no query pass through untouched: PostGraphile answers those with its own clear error.
 */
export function checkRequest(
  schema: GraphQLSchema,
  request: GraphqlRequest,
  limits: GraphqlLimits,
  options: { introspectionAllowed: boolean; documents?: ParsedDocuments },
): LimitVerdict {
  if (typeof request.query !== 'string') return { ok: true, measure: undefined };
  let document: DocumentNode;
  try {
    document = options.documents ? options.documents.parse(request.query, limits.maxTokens) : parse(request.query, { maxTokens: limits.maxTokens, noLocation: true });
  } catch (error) {
    if (error instanceof Error && /more th\w+ \d+ tokens/i.test(error.message)) {
      return { ok: false, code: 'QUERY_TOO_LONG', message: `The query is too long: at most ${limits.maxTokens} tokens are allowed.` };
    }
    return { ok: true, measure: undefined };
  }
  const operation = selectOperation(document, typeof request.operationName === 'string' ? request.operationName : undefined);
  if (!operation) return { ok: true, measure: undefined };
  if (operation.operation === 'subscription' && !schema.getSubscriptionType()) {
    return { ok: false, code: 'SUBSCRIPTIONS_UNSUPPORTED', message: 'This API has no subscriptions; send a query or a mutation.' };
  }
  const variables = request.variables && typeof request.variables === 'object' ? (request.variables as Record<string, unknown>) : {};
  const measure = measureOperation(schema, document, operation, variables, limits.defaultPageSize);
  if (measure.introspection && !options.introspectionAllowed) {
    return { ok: false, code: 'INTROSPECTION_DISABLED', message: 'Introspection of the schema is available to signed-in people only.', measure };
  }
  if (measure.depth > limits.maxDepth) {
    return { ok: false, code: 'QUERY_TOO_DEEP', message: `The query nests ${measure.depth} levels deep; at most ${limits.maxDepth} are allowed.`, measure };
  }
  if (measure.aliases > limits.maxAliases) {
    return { ok: false, code: 'TOO_MANY_ALIASES', message: `The query uses ${measure.aliases} aliases; at most ${limits.maxAliases} are allowed.`, measure };
  }
  if (measure.rootFields > limits.maxRootFields) {
    return {
      ok: false,
      code: 'TOO_MANY_ROOT_FIELDS',
      message: `The query selects ${measure.rootFields} top-level fields; at most ${limits.maxRootFields} are allowed.`,
      measure,
    };
  }
  if (measure.cost > limits.maxCost) {
    return {
      ok: false,
      code: 'QUERY_TOO_COSTLY',
      message: `The query could return about ${measure.cost} objects; at most ${limits.maxCost} are allowed. Ask for smaller pages (first) or fewer nested lists.`,
      measure,
    };
  }
  return { ok: true, measure };
}
