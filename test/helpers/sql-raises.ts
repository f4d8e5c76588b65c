/**
 * The `raise` statements of PL/pgSQL function bodies (issue 27 item 7): what each raises, so a
 * test can hold every refusal the database can give to the one mapping (src/domain/refusals.ts).
 */

export interface RaiseStatement {
  /** The function (schema.name) whose body holds the statement. */
  fn: string;
  /** The SQLSTATE raised (P0001 when the statement names none). */
  errcode: string;
  /** The message's format string (`%` where a value goes), or undefined when it is computed. */
  message: string | undefined;
  /** The hint: a literal rule code, or `{expression}` when it is computed. */
  hint: string | undefined;
  /** The whole statement, for the failure message. */
  text: string;
}

/** The statement from `start` up to its `;`, skipping string literals and dollar quotes. */
function statementAt(source: string, start: number): string {
  let i = start;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "'") {
      i += 1;
      while (i < source.length) {
        if (source[i] === "'" && source[i + 1] === "'") i += 2;
        else if (source[i] === "'") break;
        else i += 1;
      }
    } else if (ch === ';') {
      return source.slice(start, i);
    }
    i += 1;
  }
  return source.slice(start);
}

/** A SQL string literal's value ('It''s' → It's). */
const literal = (quoted: string) => quoted.slice(1, -1).replaceAll("''", "'");

/** Every `raise exception` / `raise sqlstate` of one function body (not notices, not a bare re-raise). */
export function raisesIn(fn: string, body: string): RaiseStatement[] {
  const found: RaiseStatement[] = [];
  const code = body.replace(/--[^\n]*/g, (comment) => ' '.repeat(comment.length));
  for (const match of code.matchAll(/\braise\s+(exception|sqlstate)\b/gi)) {
    const text = statementAt(code, match.index);
    const sqlstate = match[1]!.toLowerCase() === 'sqlstate' ? /sqlstate\s+'(\w{5})'/i.exec(text)?.[1] : undefined;
    const afterKeyword = text.slice(match[0].length).trimStart();
    const messageLiteral = /^'(?:[^']|'')*'/.exec(afterKeyword)?.[0];
    const usingMessage = /\bmessage\s*=\s*('(?:[^']|'')*')/i.exec(text)?.[1];
    const errcode = sqlstate ?? /\berrcode\s*=\s*'(\w+)'/i.exec(text)?.[1] ?? 'P0001';
    const hintLiteral = /\bhint\s*=\s*('(?:[^']|'')*')/i.exec(text)?.[1];
    const hintExpression = hintLiteral ? undefined : /\bhint\s*=\s*([^,;]+)/i.exec(text)?.[1]?.trim();
    let message = messageLiteral ? literal(messageLiteral) : usingMessage ? literal(usingMessage) : undefined;
    // `raise exception '%', <expression>`: the message is computed.
    if (message === '%') message = undefined;
    found.push({ fn, errcode, message, hint: hintLiteral ? literal(hintLiteral) : hintExpression && `{${hintExpression}}`, text: text.replace(/\s+/g, ' ') });
  }
  return found;
}

/** A message as PostgreSQL would format it, with a plain word where each value goes. */
export const sampleMessage = (format: string) => format.replace(/%/g, 'something');
