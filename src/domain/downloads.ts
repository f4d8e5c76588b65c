/**
 * Documents on /downloads (issue 14 item 5): which files may be offered, recognised by their own
 * first bytes (magic bytes), never by the type a browser claims; and the safe download headers.
 * Pure: the routes (src/server/downloads/routes.ts) and the table's check (0073) use the same rules.
 */

export const DOWNLOAD_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'] as const;
export type DownloadType = (typeof DOWNLOAD_TYPES)[number];

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

/** The type of a file by its signature, or undefined when it is none of the offered types. */
export function sniffDownloadType(bytes: Uint8Array): DownloadType | undefined {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'; // RIFF....WEBP
  return undefined;
}

/**
 * A file name safe to store and to send back: the last path part, control characters and
 * slashes removed, at most 200 characters; undefined when nothing usable is left.
 */
export function cleanFileName(raw: string): string | undefined {
  const last = raw.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = last.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return undefined;
  return cleaned;
}

/**
 * Content-Disposition for a download: always an attachment (the browser never renders it in
 * the app's origin), the name in RFC 5987 form for any script, plus an ASCII fallback.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
