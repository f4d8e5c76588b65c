/**
 * Camunda's typed variables ({name: {value, type}}): validation of what clients send, and the
 * plain values the engine's expressions read. Dates are kept as ISO strings.
 */
import { CamundaError } from './errors';

export type CamundaType = 'String' | 'Boolean' | 'Integer' | 'Short' | 'Long' | 'Double' | 'Date' | 'Json' | 'Null';

export interface TypedValue {
  value: unknown;
  type: CamundaType;
}

export type TypedVariables = Record<string, TypedValue>;

const TYPES = new Set<string>(['String', 'Boolean', 'Integer', 'Short', 'Long', 'Double', 'Date', 'Json', 'Null', 'Object']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_VARIABLES = 100;
const MAX_STRING = 4000;

function invalid(message: string): CamundaError {
  return new CamundaError(400, 'InvalidRequestException', message);
}

function checkValue(name: string, type: string, value: unknown): unknown {
  const cannot = () => invalid(`Cannot convert value '${JSON.stringify(value)}' of variable '${name}' to type ${type}.`);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'String':
      if (typeof value !== 'string') throw cannot();
      if (value.length > MAX_STRING) throw invalid(`Variable '${name}' is longer than ${MAX_STRING} characters.`);
      return value;
    case 'Boolean':
      if (typeof value !== 'boolean') throw cannot();
      return value;
    case 'Integer':
    case 'Short':
    case 'Long': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw cannot();
      if (type === 'Integer' && Math.abs(n) > 2 ** 31) throw cannot();
      if (type === 'Short' && Math.abs(n) > 2 ** 15) throw cannot();
      return n;
    }
    case 'Double': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw cannot();
      return n;
    }
    case 'Date': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) throw cannot();
      return new Date(Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))).toISOString();
    }
    case 'Json':
    case 'Object':
      if (typeof value === 'string') {
        try {
          return JSON.parse(value) as unknown;
        } catch {
          throw cannot();
        }
      }
      return value;
    case 'Null':
      return null;
    default:
      throw cannot();
  }
}

/** Validates a client's `variables` object; throws a 400 InvalidRequestException when malformed. */
export function parseTypedVariables(input: unknown, what = 'variables'): TypedVariables {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw invalid(`${what} must be an object of {name: {value, type}}.`);
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_VARIABLES) throw invalid(`At most ${MAX_VARIABLES} ${what} are accepted.`);
  const result: TypedVariables = {};
  for (const [name, raw] of entries) {
    if (!NAME.test(name)) throw invalid(`The variable name '${name}' is not valid: use letters, digits and _.`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw invalid(`Variable '${name}' must be an object {value, type}.`);
    }
    const { value, type: rawType } = raw as { value?: unknown; type?: unknown };
    // Camunda reads type names with either first letter ("string" and "String"); its clients send both.
    const type = rawType === undefined ? inferType(value) : typeof rawType === 'string' ? rawType.charAt(0).toUpperCase() + rawType.slice(1) : rawType;
    if (typeof type !== 'string' || !TYPES.has(type)) {
      throw invalid(`Variable '${name}' has the unsupported type '${String(rawType)}'; use String, Boolean, Integer, Long, Double, Date, Json or Null.`);
    }
    const normalized = type === 'Object' ? 'Json' : (type as CamundaType);
    result[name] = { value: checkValue(name, type, value), type: value === null || value === undefined ? 'Null' : normalized };
  }
  return result;
}

/** The Camunda type of a plain value (used for values produced inside the server). */
export function inferType(value: unknown): CamundaType {
  if (value === null || value === undefined) return 'Null';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? (Math.abs(value) < 2 ** 31 ? 'Integer' : 'Long') : 'Double';
  if (typeof value === 'string') return 'String';
  if (value instanceof Date) return 'Date';
  return 'Json';
}

export function typed(value: unknown): TypedValue {
  if (value instanceof Date) return { value: value.toISOString(), type: 'Date' };
  return { value: value ?? null, type: inferType(value) };
}

/** Plain values for expressions: {name: value}. */
export function plainValues(variables: TypedVariables): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(variables)) result[name] = v.value;
  return result;
}

/** Whether the correlation keys (typed) all equal the process variables. */
export function matchesCorrelationKeys(variables: TypedVariables, keys: TypedVariables): boolean {
  return Object.entries(keys).every(([name, key]) => {
    const actual = variables[name];
    return actual !== undefined && JSON.stringify(actual.value) === JSON.stringify(key.value);
  });
}
