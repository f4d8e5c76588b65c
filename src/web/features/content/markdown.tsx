/**
 * Renders the small Markdown subset of content pages (headings, paragraphs, lists, bold,
 * links) into React elements. No HTML is ever injected, so a coordinator's text cannot run
 * script, and links are limited to safe schemes.
 */
import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';

type Block =
  | { kind: 'h1' | 'h2' | 'h3' | 'p'; text: string }
  | { kind: 'ul' | 'ol'; items: string[] };

export function parseBlocks(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let list: { kind: 'ul' | 'ol'; items: string[] } | null = null;
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: 'p', text: paragraph.join(' ') });
    if (list) blocks.push(list);
    paragraph = [];
    list = null;
  };
  for (const raw of source.replace(/\r\n/g, '\n').split('\n')) {
    const line = raw.trim();
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const bullet = /^[-*]\s+(.*)$/.exec(line);
    const numbered = /^\d+[.)]\s+(.*)$/.exec(line);
    if (!line) flush();
    else if (heading) {
      flush();
      blocks.push({ kind: `h${heading[1]!.length}` as 'h1' | 'h2' | 'h3', text: heading[2]! });
    } else if (bullet || numbered) {
      const kind = bullet ? 'ul' : 'ol';
      if (paragraph.length || (list && list.kind !== kind)) flush();
      list ??= { kind, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
    } else if (list) {
      // a continuation line of the last list item
      list.items[list.items.length - 1] += ` ${line}`;
    } else paragraph.push(line);
  }
  flush();
  return blocks;
}

const SAFE_HREF = /^(\/(?!\/)|https:\/\/|mailto:|tel:)/;

export function renderInline(text: string): ReactNode[] {
  const parts: ReactNode[] = [];
  const pattern = /\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  let key = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    if (match[1] !== undefined) parts.push(<strong key={key++}>{match[1]}</strong>);
    else {
      const [, , label, href] = match;
      if (!SAFE_HREF.test(href!)) parts.push(label);
      else if (href!.startsWith('/')) parts.push(<Link key={key++} to={href!}>{label}</Link>);
      else parts.push(<a key={key++} href={href} {...(href!.startsWith('https://') ? { rel: 'noopener noreferrer' } : {})}>{label}</a>);
    }
    last = pattern.lastIndex;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** The page body; the first-level heading is the page title and is rendered by the page. */
export function Markdown({ source, skipTitle = true }: { source: string; skipTitle?: boolean }) {
  const blocks = parseBlocks(source).filter((b) => !(skipTitle && b.kind === 'h1'));
  return (
    <div className="prose">
      {blocks.map((block, i) => {
        switch (block.kind) {
          case 'ul':
          case 'ol': {
            const List = block.kind;
            return (
              <List key={i}>
                {block.items.map((item, j) => (
                  <li key={j}>{renderInline(item)}</li>
                ))}
              </List>
            );
          }
          case 'h1':
          case 'h2':
          case 'h3':
          case 'p': {
            const Tag = block.kind;
            return <Tag key={i}>{renderInline(block.text)}</Tag>;
          }
          default:
            return <Fragment key={i} />;
        }
      })}
    </div>
  );
}
