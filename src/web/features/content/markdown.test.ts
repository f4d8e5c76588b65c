/**
 * The Markdown of coordinators and therapists must never produce anything a browser runs:
 * raw HTML, event handlers, script or data addresses. These texts are what an attacker with a
 * coordinator's or therapist's account (or a pasted text) would try.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown';

function html(source: string, options: { skipTitle?: boolean; lineBreaks?: boolean } = {}): string {
  return renderToStaticMarkup(createElement(MemoryRouter, null, createElement(Markdown, { source, skipTitle: false, ...options })));
}

const TAGS = new Set(['div', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'strong', 'em', 's', 'a', 'code', 'pre', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td']);
const ATTRIBUTES = new Set(['class', 'href', 'rel', 'start', 'style', 'data-discover']);

/**
 * Every `<` left in the markup opens a real element (text is escaped to `&lt;`): each element
 * and attribute must be on the allow-list, and every link must go somewhere safe.
 */
function expectInert(out: string): void {
  for (const [, tag, attrs] of out.matchAll(/<\/?([a-zA-Z0-9-]+)([^>]*)>/g)) {
    expect(TAGS, out).toContain(tag!.toLowerCase());
    for (const [, name] of attrs!.matchAll(/\s([^\s=/>]+)(?:="[^"]*")?/g)) expect(ATTRIBUTES, out).toContain(name!.toLowerCase());
  }
  for (const [, href] of out.matchAll(/href="([^"]*)"/g)) expect(href, out).toMatch(/^(\/(?!\/)|#|https:\/\/|mailto:|tel:)/);
}

describe('Markdown rendering', () => {
  it('lets the checker itself fail on markup that could run', () => {
    expect(() => expectInert('<div><img src="x" onerror="alert(1)"></div>')).toThrow();
    expect(() => expectInert('<p><a href="javascript:alert(1)">x</a></p>')).toThrow();
    expect(() => expectInert('<p onclick="x">x</p>')).toThrow();
  });

  it('renders CommonMark: headings, emphasis, lists, links, quotes, code', () => {
    const out = html('# Title\n\nSome **bold** and *soft* text.\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n`code` and [about](/about) and [site](https://example.org)');
    expect(out).toContain('<h1>Title</h1>');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<em>soft</em>');
    expect(out).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(out).toContain('<ol><li>first</li><li>second</li></ol>');
    expect(out).toContain('<blockquote><p>quoted</p></blockquote>');
    expect(out).toContain('<code>code</code>');
    expect(out).toContain('<a href="/about" data-discover="true">about</a>');
    expect(out).toContain('<a href="https://example.org" rel="noopener noreferrer">site</a>');
  });

  it('renders tables with start/end alignment and numbered lists from their start', () => {
    const out = html('| a | b |\n|:--|--:|\n| 1 | 2 |\n\n3. three\n4. four');
    expectInert(out);
    expect(out).toContain('<th style="text-align:start">a</th><th style="text-align:end">b</th>');
    expect(out).toContain('<ol start="3">');
  });

  it('leaves out first-level headings when the page shows its title', () => {
    expect(html('# Title\n\nBody', { skipTitle: true })).toBe('<div class="prose"><p>Body</p></div>');
  });

  it('shows raw HTML as text: a script tag, an image with onerror, an iframe', () => {
    const out = html('<script>alert(1)</script>\n\nText <img src=x onerror="alert(2)"> more\n\n<iframe src="https://evil.example"></iframe>');
    expectInert(out);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });

  it('refuses javascript:, vbscript:, data: and file: links, keeping their words', () => {
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'java&#x73;cript:alert(1)', '&#106;avascript:alert(1)', 'vbscript:msgbox(1)', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', 'file:///etc/passwd', ' javascript:alert(1)', '//evil.example/x', 'http://plain.example']) {
      const out = html(`[click me](${href}) and <${href}>`);
      expectInert(out);
      expect(out, href).not.toContain('<a ');
      expect(out).toContain('click me');
    }
  });

  it('turns images into nothing executable (images are off)', () => {
    const out = html('![x](https://tracker.example/pixel.png) ![y](data:image/png;base64,AAAA) ![z](javascript:alert(1))');
    expectInert(out);
  });

  it('keeps HTML entities as text and does not decode them into markup', () => {
    const out = html('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#60;img src=x onerror=alert(1)&#62; &copy;');
    expectInert(out);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('©');
  });

  it('does not let a reference-style or autolinked address through either', () => {
    const out = html('[a][1] <javascript:alert(1)> https://example.org\n\n[1]: javascript:alert(1)');
    expectInert(out);
    expect(out).not.toContain('<a ');
  });

  it('keeps Arabic text and its order; direction is set by the element around it', () => {
    const out = html('## عنوان\n\nنص **مهم** مع [رابط](/about)');
    expect(out).toContain('<h2>عنوان</h2>');
    expect(out).toContain('<p>نص <strong>مهم</strong> مع <a href="/about" data-discover="true">رابط</a></p>');
  });

  it('turns line breaks into breaks only where asked (letters and feedback)', () => {
    expect(html('Dear Sam,\nthank you.')).toContain('<p>Dear Sam,\nthank you.</p>');
    expect(html('Dear Sam,\nthank you.', { lineBreaks: true })).toContain('<p>Dear Sam,<br/>thank you.</p>');
  });
});
