/**
 * Collects the GraphQL operations of the web app from its source, so a test can run every one
 * through the request limits (issue 16) without a hand-kept list:
 *
 * - `*.graphql` files under the given folders, one document each;
 * - string and template literals in `.ts`/`.tsx` files whose text starts with `query`,
 *   `mutation` or `fragment`. A `${NAME}` inside is replaced by the value of a constant of that
 *   name declared anywhere in the scanned files (a string, number or template of such), so
 *   shared field lists (`${MESSAGE_FIELDS}`) and page sizes are measured as sent. A literal that
 *   uses anything else is reported as unresolved rather than guessed.
 *
 * Fragments are attached to the documents that spread them, as the web app's own builders do.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface WebOperation {
  /** file:line of the literal, or the .graphql file */
  where: string;
  text: string;
}

export interface CollectedOperations {
  operations: WebOperation[];
  unresolved: string[];
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.(tsx?|graphql)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

const OPERATION_START = /^\s*(query|mutation|fragment|subscription)\b/;

export function collectWebOperations(roots: string[]): CollectedOperations {
  const files = roots.flatMap((root) => sourceFiles(root));
  const operations: WebOperation[] = [];
  const unresolved: string[] = [];
  // Several files may declare a constant of one name: every declaration is a candidate.
  const constants = new Map<string, ts.Expression[]>();
  const parsed: ts.SourceFile[] = [];

  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    if (file.endsWith('.graphql')) {
      operations.push({ where: path.relative(process.cwd(), file), text });
      continue;
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    parsed.push(source);
    const collect = (node: ts.Node) => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
        constants.set(node.name.text, [...(constants.get(node.name.text) ?? []), node.initializer]);
      }
      ts.forEachChild(node, collect);
    };
    collect(source);
  }

  /** An array constant of literals (`['a', 'b'] as const`), or undefined. */
  const arrayOf = (expression: ts.Expression, depth: number): ts.Expression[] | undefined => {
    let node: ts.Expression = expression;
    while (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) node = node.expression;
    if (ts.isIdentifier(node)) {
      if (depth >= 10) return undefined;
      for (const value of constants.get(node.text) ?? []) {
        const items = arrayOf(value, depth + 1);
        if (items) return items;
      }
      return undefined;
    }
    return ts.isArrayLiteralExpression(node) ? [...node.elements] : undefined;
  };

  /** The text of a literal, or undefined when it uses something that is not a known constant. */
  const evaluate = (expression: ts.Expression, depth = 0, scope: Map<string, string> = new Map()): string | undefined => {
    if (depth > 20) return undefined;
    // `LIST.join(sep)` and `LIST.map((x) => `…${x}…`).join(sep)` over an array constant
    if (ts.isCallExpression(expression) && ts.isPropertyAccessExpression(expression.expression) && expression.expression.name.text === 'join') {
      const separator = expression.arguments[0] ? evaluate(expression.arguments[0], depth + 1, scope) : ',';
      const target = expression.expression.expression;
      let items: (string | undefined)[] | undefined;
      if (ts.isCallExpression(target) && ts.isPropertyAccessExpression(target.expression) && target.expression.name.text === 'map') {
        const elements = arrayOf(target.expression.expression, depth);
        const callback = target.arguments[0];
        if (elements && callback && ts.isArrowFunction(callback) && !ts.isBlock(callback.body) && callback.parameters[0] && ts.isIdentifier(callback.parameters[0].name)) {
          const parameter = callback.parameters[0].name.text;
          const body = callback.body;
          items = elements.map((element) => {
            const value = evaluate(element, depth + 1, scope);
            return value === undefined ? undefined : evaluate(body, depth + 1, new Map([...scope, [parameter, value]]));
          });
        }
      } else {
        items = arrayOf(target, depth)?.map((element) => evaluate(element, depth + 1, scope));
      }
      if (separator === undefined || !items || items.some((i) => i === undefined)) return undefined;
      return items.join(separator);
    }
    if (ts.isCallExpression(expression) && ts.isPropertyAccessExpression(expression.expression) && expression.expression.name.text === 'toLowerCase') {
      return evaluate(expression.expression.expression, depth + 1, scope)?.toLowerCase();
    }
    if (ts.isIdentifier(expression) && scope.has(expression.text)) return scope.get(expression.text);
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
    if (ts.isNumericLiteral(expression)) return expression.text;
    if (ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isParenthesizedExpression(expression)) return evaluate(expression.expression, depth + 1, scope);
    if (ts.isIdentifier(expression)) {
      for (const value of constants.get(expression.text) ?? []) {
        const text = evaluate(value, depth + 1);
        if (text !== undefined) return text;
      }
      return undefined;
    }
    if (ts.isTemplateExpression(expression)) {
      let text = expression.head.text;
      for (const span of expression.templateSpans) {
        const part = evaluate(span.expression, depth + 1, scope);
        if (part === undefined) return undefined;
        text += part + span.literal.text;
      }
      return text;
    }
    if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = evaluate(expression.left, depth + 1, scope);
      const right = evaluate(expression.right, depth + 1, scope);
      return left === undefined || right === undefined ? undefined : left + right;
    }
    return undefined;
  };

  for (const source of parsed) {
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
        const head = ts.isTemplateExpression(node) ? node.head.text : node.text;
        if (OPERATION_START.test(head)) {
          const where = `${path.relative(process.cwd(), source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
          const text = evaluate(node);
          if (text === undefined) unresolved.push(where);
          else operations.push({ where, text });
        }
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  // Fragment-only documents are not requests: attach each to the operations that spread it.
  const fragments = operations.filter((o) => /^\s*fragment\b/.test(o.text));
  const requests = operations.filter((o) => !/^\s*fragment\b/.test(o.text));
  const withFragments = requests.map((operation) => {
    let text = operation.text;
    for (const fragment of fragments) {
      const name = /^\s*fragment\s+(\w+)/.exec(fragment.text)?.[1];
      if (name && text.includes(`...${name}`) && !new RegExp(`fragment\\s+${name}\\b`).test(text)) text += `\n${fragment.text}`;
    }
    return { ...operation, text };
  });
  return { operations: withFragments, unresolved };
}
