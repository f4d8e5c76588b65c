import { describe, expect, it } from 'vitest';
import { attachmentDisposition, cleanFileName, sniffDownloadType } from './downloads';

const bytes = (...b: number[]) => Uint8Array.from(b);

describe('sniffDownloadType', () => {
  it('recognises the offered types by their first bytes', () => {
    expect(sniffDownloadType(new TextEncoder().encode('%PDF-1.7\n'))).toBe('application/pdf');
    expect(sniffDownloadType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('image/png');
    expect(sniffDownloadType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffDownloadType(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
  });
  it('refuses everything else, including look-alikes', () => {
    expect(sniffDownloadType(new TextEncoder().encode('<html><script>'))).toBeUndefined();
    expect(sniffDownloadType(new TextEncoder().encode('RIFF\0\0\0\0WAVE'))).toBeUndefined();
    expect(sniffDownloadType(bytes(0x89, 0x50, 0x4e))).toBeUndefined();
    expect(sniffDownloadType(bytes())).toBeUndefined();
  });
});

describe('cleanFileName', () => {
  it('keeps the last path part without control characters', () => {
    expect(cleanFileName('C:\\Users\\x\\Merkblatt.pdf')).toBe('Merkblatt.pdf');
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('a\nb\u0000.png')).toBe('ab.png');
    expect(cleanFileName('دليل.pdf')).toBe('دليل.pdf');
  });
  it('refuses names with nothing usable', () => {
    expect(cleanFileName('')).toBeUndefined();
    expect(cleanFileName('dir/..')).toBeUndefined();
    expect(cleanFileName('x/')).toBeUndefined();
  });
});

describe('attachmentDisposition', () => {
  it('is always an attachment with an RFC 5987 name and an ASCII fallback', () => {
    expect(attachmentDisposition('دليل "1".pdf')).toBe(`attachment; filename="____ _1_.pdf"; filename*=UTF-8''%D8%AF%D9%84%D9%8A%D9%84%20%221%22.pdf`);
    expect(attachmentDisposition("it's (a).png")).toBe(`attachment; filename="it's (a).png"; filename*=UTF-8''it%27s%20%28a%29.png`);
  });
});
