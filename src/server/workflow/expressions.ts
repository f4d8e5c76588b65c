/**
 * The small part of Camunda's expression language (JUEL) that process definitions use:
 * `${name}`, `${a.b}`, comparisons (`== != < > <= >=`, `eq ne lt gt le ge`), `&& || !`
 * (`and or not`), `empty x`, parentheses and string, number, boolean and null literals; plus
 * ISO-8601 durations and dates for due dates and timers. bpmn-engine parses Camunda attributes
 * but does not evaluate them; the engine host resolves them with these functions.
 */
import { DateTime, Duration, IANAZone } from 'luxon';

type Token = { kind: 'num' | 'str' | 'id' | 'op' | 'lp' | 'rp'; text: string };

const OPERATOR = /^(==|!=|<=|>=|&&|\|\||[<>!])/;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'lp' : 'rp', text: ch });
      i += 1;
    } else if (ch === "'" || ch === '"') {
      const end = source.indexOf(ch, i + 1);
      if (end < 0) throw new Error(`Unterminated string in expression: ${source}`);
      tokens.push({ kind: 'str', text: source.slice(i + 1, end) });
      i = end + 1;
    } else if (/^\d/.test(rest)) {
      const m = /^\d+(\.\d+)?/.exec(rest)!;
      tokens.push({ kind: 'num', text: m[0] });
      i += m[0].length;
    } else if (/^[A-Za-z_]/.test(rest)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(rest)!;
      const word = m[0];
      const alias: Record<string, string> = { and: '&&', or: '||', not: '!', eq: '==', ne: '!=', lt: '<', gt: '>', le: '<=', ge: '>=' };
      tokens.push(alias[word] ? { kind: 'op', text: alias[word] } : { kind: 'id', text: word });
      i += word.length;
    } else {
      const m = OPERATOR.exec(rest);
      if (!m) throw new Error(`Unexpected '${ch}' in expression: ${source}`);
      tokens.push({ kind: 'op', text: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

function lookup(path: string, scope: Record<string, unknown>): unknown {
  let current: unknown = scope;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b || (a == null && b == null);
    case '!=':
      return !(a === b || (a == null && b == null));
    default: {
      if (a == null || b == null) return false;
      const x = a as number | string;
      const y = b as number | string;
      return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
    }
  }
}

/** Evaluates the inside of `${…}` against a scope of variables. */
export function evaluate(expression: string, scope: Record<string, unknown>): unknown {
  const tokens = tokenize(expression);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];

  const primary = (): unknown => {
    const token = next();
    if (!token) throw new Error(`Incomplete expression: ${expression}`);
    if (token.kind === 'lp') {
      const value = or();
      if (next()?.kind !== 'rp') throw new Error(`Missing ')' in expression: ${expression}`);
      return value;
    }
    if (token.kind === 'num') return Number(token.text);
    if (token.kind === 'str') return token.text;
    if (token.kind === 'id') {
      if (token.text === 'true') return true;
      if (token.text === 'false') return false;
      if (token.text === 'null') return null;
      if (token.text === 'empty') {
        const value = unary();
        return value == null || value === '' || (Array.isArray(value) && value.length === 0);
      }
      return lookup(token.text, scope);
    }
    if (token.kind === 'op' && token.text === '!') return !truthy(unary());
    throw new Error(`Unexpected '${token.text}' in expression: ${expression}`);
  };
  const unary = (): unknown => primary();
  const comparison = (): unknown => {
    let left = unary();
    while (peek()?.kind === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(peek()!.text)) {
      const op = next()!.text;
      left = compare(op, left, unary());
    }
    return left;
  };
  const and = (): unknown => {
    let left = comparison();
    while (peek()?.text === '&&') {
      next();
      const right = comparison();
      left = truthy(left) && truthy(right);
    }
    return left;
  };
  const or = (): unknown => {
    let left = and();
    while (peek()?.text === '||') {
      next();
      const right = and();
      left = truthy(left) || truthy(right);
    }
    return left;
  };
  const value = or();
  if (pos !== tokens.length) throw new Error(`Unexpected '${tokens[pos]!.text}' in expression: ${expression}`);
  return value;
}

export function truthy(value: unknown): boolean {
  return value !== false && value !== null && value !== undefined && value !== '' && value !== 0;
}

const WHOLE = /^\$\{([\s\S]+)\}$/;
const ANY = /\$\{([^}]+)\}/g;

export function isExpression(text: unknown): boolean {
  return typeof text === 'string' && WHOLE.test(text.trim());
}

export function hasExpression(text: unknown): boolean {
  return typeof text === 'string' && /\$\{[^}]+\}/.test(text);
}

/**
 * Resolves a text that is one expression (its value, any type) or contains expressions
 * (a string with each replaced). Text without expressions comes back unchanged.
 */
export function resolve(text: string, scope: Record<string, unknown>): unknown {
  const whole = WHOLE.exec(text.trim());
  if (whole) return evaluate(whole[1]!, scope);
  return text.replace(ANY, (_, inner: string) => {
    const value = evaluate(inner, scope);
    return value == null ? '' : String(value);
  });
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function isDuration(text: string): boolean {
  return DURATION.test(text) && text !== 'P' && !text.endsWith('T');
}

/**
 * Adds an ISO-8601 duration (P1Y2M3W4DT5H6M7S) to a time by the calendar of a time zone (the
 * participant's, issue 27), through Luxon: years, months, weeks and days move the local date
 * and keep the local time across a daylight-saving change; a day that does not exist in the
 * target month is clamped to its last day (31 January + P1M = 28/29 February, as Camunda's
 * Joda-Time arithmetic does); hours, minutes and seconds are exact elapsed time. Before this,
 * durations were added in UTC by hand and a month overflowed (31 January + P1M = 3 March).
 */
export function addDuration(from: Date, duration: string, zone = 'UTC'): Date {
  if (!isDuration(duration)) throw new Error(`Not an ISO-8601 duration: ${duration}`);
  const parsed = Duration.fromISO(duration);
  if (!parsed.isValid) throw new Error(`Not an ISO-8601 duration: ${duration}`);
  const start = DateTime.fromJSDate(from, { zone: IANAZone.isValidZone(zone) ? zone : 'UTC' });
  return start.plus(parsed).toJSDate();
}

/** The participant's time zone a process carries (variable `timeZone`, set at its start), or UTC. */
export function zoneOf(scope: Record<string, unknown>): string {
  const zone = scope.timeZone;
  return typeof zone === 'string' && IANAZone.isValidZone(zone) ? zone : 'UTC';
}

/**
 * A Camunda date attribute (dueDate, followUpDate) after expression resolution: a Date, an ISO
 * date-time, or an ISO duration counted from now. Empty gives null; anything else throws.
 */
export function toDate(value: unknown, now: Date, zone = 'UTC'): Date | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('P')) return addDuration(now, text, zone);
    if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
      const parsed = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
      if (!Number.isNaN(parsed)) return new Date(parsed);
    }
  }
  throw new Error(`Not a date or ISO-8601 duration: ${String(value)}`);
}
