/**
 * Markdown of coordinators and therapists (content pages, letter and message templates, letters,
 * feedback) as React elements. Parsing is markdown-it's (CommonMark), a well-kept library,
 * configured so that nothing executable can come out of a text:
 *
 * - raw HTML is off (`html: false`): `<script>` or `<img onerror>` stay visible text;
 * - links pass markdown-it's own link validation (no `javascript:`, `vbscript:`, `file:`,
 *   `data:`) and then our narrower list (same-site paths, https, mailto, tel); a refused link
 *   keeps its words without the link;
 * - images are off: a picture from elsewhere would tell its server who reads the text;
 * - the token tree is turned into React elements from an allow-list of tags and attributes,
 *   never into an HTML string, so React escapes every text and no markup is injected.
 *
 * Direction is the caller's: it sets `lang` and `dir` (Arabic right-to-left) on the element
 * around the text, and the blocks follow it.
 */
import { createElement, Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';
import MarkdownIt, { type Token } from 'markdown-it';

const parser = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
parser.disable(['image']);
const parserWithBreaks = new MarkdownIt('default', { html: false, linkify: false, typographer: false, breaks: true });
parserWithBreaks.disable(['image']);

/** Links that may be followed: a path of this site, https, mail and telephone. */
const SAFE_HREF = /^(\/(?!\/)|#|https:\/\/|mailto:|tel:)/i;

for (const md of [parser, parserWithBreaks]) {
  const libraryCheck = md.validateLink.bind(md);
  md.validateLink = (url: string) => libraryCheck(url) && SAFE_HREF.test(url.trim());
}

/** The elements a text may produce; anything else renders its content only. */
const ALLOWED_TAGS = new Set([
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'strong', 'em', 's', 'a', 'code', 'pre', 'hr', 'br',
  'table', 'thead', 'tbody', 'tr', 'th', 'td',
]);

interface Open {
  token: Token;
  children: ReactNode[];
}

/** An attribute as text (markdown-it types them as string or number). */
const attr = (token: Token, name: string): string => String(token.attrGet(name) ?? '');

/** The attributes an element keeps: a link's target, a list's start, a table cell's alignment. */
function attributesOf(token: Token, key: number): Record<string, unknown> {
  const props: Record<string, unknown> = { key };
  const start = attr(token, 'start');
  if (token.tag === 'ol' && start && /^\d{1,9}$/.test(start)) props.start = Number(start);
  const align = /^text-align:(left|right|center)$/.exec(attr(token, 'style'));
  // Table alignment follows the text's direction: left and right become start and end.
  if (align) props.style = { textAlign: align[1] === 'left' ? 'start' : align[1] === 'right' ? 'end' : 'center' };
  return props;
}

function linkOf(token: Token, children: ReactNode[], key: number): ReactNode {
  const href = attr(token, 'href');
  // markdown-it leaves the href empty when its validation refused the address.
  if (!href || !SAFE_HREF.test(href)) return createElement(Fragment, { key }, ...children);
  if (href.startsWith('/')) return createElement(Link, { key, to: href }, ...children);
  const external = href.toLowerCase().startsWith('https://');
  return createElement('a', { key, href, ...(external ? { rel: 'noopener noreferrer' } : {}) }, ...children);
}

function elementOf(token: Token, children: ReactNode[], key: number): ReactNode {
  // The paragraphs of a tight list are hidden: their text goes straight into the item.
  if (token.hidden || !ALLOWED_TAGS.has(token.tag)) return createElement(Fragment, { key }, ...children);
  if (token.tag === 'a') return linkOf(token, children, key);
  return createElement(token.tag, attributesOf(token, key), ...children);
}

function leafOf(token: Token, key: number, breaks: boolean): ReactNode {
  switch (token.type) {
    case 'inline':
      return createElement(Fragment, { key }, ...nodesOf(token.children ?? [], breaks));
    case 'text':
    case 'html_inline':
    case 'html_block':
      return token.content;
    case 'softbreak':
      return breaks ? createElement('br', { key }) : '\n';
    case 'hardbreak':
      return createElement('br', { key });
    case 'code_inline':
      return createElement('code', { key }, token.content);
    case 'code_block':
    case 'fence':
      return createElement('pre', { key }, createElement('code', null, token.content));
    case 'hr':
      return createElement('hr', { key });
    default:
      return token.content;
  }
}

/** Turns markdown-it's flat token list (opening, closing and leaf tokens) into a tree. */
function nodesOf(tokens: readonly Token[], breaks: boolean): ReactNode[] {
  const root: ReactNode[] = [];
  const stack: Open[] = [];
  const add = (node: ReactNode) => (stack.length ? stack[stack.length - 1]!.children : root).push(node);
  tokens.forEach((token, key) => {
    if (token.nesting === 1) stack.push({ token, children: [] });
    else if (token.nesting === -1) {
      const open = stack.pop();
      if (open) add(elementOf(open.token, open.children, key));
    } else add(leafOf(token, key, breaks));
  });
  return root;
}

/** Drops the first-level headings: a page renders its title itself. */
function withoutTitles(tokens: Token[]): Token[] {
  const kept: Token[] = [];
  let inTitle = false;
  for (const token of tokens) {
    if (token.type === 'heading_open' && token.tag === 'h1') inTitle = true;
    else if (token.type === 'heading_close' && token.tag === 'h1') inTitle = false;
    else if (!inTitle) kept.push(token);
  }
  return kept;
}

/** The React nodes of a Markdown text (exported for the tests). */
export function markdownNodes(source: string, { skipTitle = false, lineBreaks = false } = {}): ReactNode[] {
  const tokens = (lineBreaks ? parserWithBreaks : parser).parse(source, {});
  return nodesOf(skipTitle ? withoutTitles(tokens) : tokens, lineBreaks);
}

/**
 * A Markdown text. `skipTitle`: leave out first-level headings (the page shows the title);
 * `lineBreaks`: a line break in the text is a line break on screen, as people expect in a
 * letter or feedback typed into a text box.
 */
export function Markdown({ source, skipTitle = true, lineBreaks = false }: { source: string; skipTitle?: boolean; lineBreaks?: boolean }) {
  return <div className="prose">{markdownNodes(source, { skipTitle, lineBreaks })}</div>;
}
