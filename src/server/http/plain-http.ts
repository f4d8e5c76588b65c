/**
 * Issue 28, item 7: plain HTTP on a clinic network. The HTTPS upgrade (the policy's
 * upgrade-insecure-requests and HSTS) follows PUBLIC_URL: on only when it is https. A server
 * configured for https that gets a page request over plain HTTP from another machine (no TLS
 * proxy in front, someone typing the address) would send the web app with that upgrade, and the
 * browser would fetch its scripts over https from a server that does not speak it: a blank page.
 * It answers with a page that says what to configure instead, in every language, without script.
 */
import type { FastifyRequest } from 'fastify';
import type { HelmetOptions } from 'helmet';
import ar from '../../web/i18n/ar.json';
import de from '../../web/i18n/de.json';
import en from '../../web/i18n/en.json';

type OpsWording = typeof en.ops.plainHttp;
const WORDING: readonly { lang: string; dir: 'rtl' | 'ltr'; text: OpsWording }[] = [
  { lang: 'ar', dir: 'rtl', text: ar.ops.plainHttp },
  { lang: 'de', dir: 'ltr', text: de.ops.plainHttp },
  { lang: 'en', dir: 'ltr', text: en.ops.plainHttp },
];

export function servesHttps(publicUrl: string): boolean {
  return publicUrl.toLowerCase().startsWith('https://');
}

/** Helmet's options for the upgrade: its defaults when PUBLIC_URL is https, off otherwise. */
export function upgradeOptions(publicUrl: string, directives: Record<string, readonly string[]>): Pick<HelmetOptions, 'contentSecurityPolicy' | 'strictTransportSecurity'> {
  if (servesHttps(publicUrl)) return { contentSecurityPolicy: { directives: { ...directives } } };
  return { contentSecurityPolicy: { directives: { ...directives, upgradeInsecureRequests: null } }, strictTransportSecurity: false };
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1' || address === 'localhost';
}

/** A page request over plain HTTP from another machine to a server configured for https. */
export function needsPlainHttpPage(request: FastifyRequest, publicUrl: string): boolean {
  return servesHttps(publicUrl) && request.protocol === 'http' && !isLoopback(request.ip);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The explanation, self-contained (the policy allows inline styles, no script needed). */
export function plainHttpPage(publicUrl: string, requestedHost: string): string {
  const fill = (text: string) =>
    escapeHtml(text)
      .replace('{{publicUrl}}', `<code>${escapeHtml(publicUrl)}</code>`)
      .replace('{{httpUrl}}', `<code>PUBLIC_URL=http://${escapeHtml(requestedHost)}</code>`);
  const sections = WORDING.map(
    ({ lang, dir, text }) => `<section lang="${lang}" dir="${dir}">
<h1>${escapeHtml(text.title)}</h1>
<p>${fill(text.why)}</p>
<p>${fill(text.useHttps)}</p>
<p>${fill(text.pilot)}</p>
<p><a href="${escapeHtml(publicUrl)}">${escapeHtml(text.open)}</a></p>
</section>`,
  );
  return `<!doctype html>
<html lang="ar" dir="rtl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sanad · سند</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;line-height:1.5;color:#1b1b1b}section{border-bottom:1px solid #ccc;padding:1rem 0}h1{font-size:1.25rem}code{overflow-wrap:anywhere;background:#f1f1f1;padding:0 .25rem}</style>
</head><body>
${sections.join('\n')}
</body></html>`;
}
