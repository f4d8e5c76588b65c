import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers';
import { needsPlainHttpPage, plainHttpPage, upgradeOptions } from './plain-http';

const DIRECTIVES = { defaultSrc: ["'self'"], frameAncestors: ["'none'"] };

function request(protocol: 'http' | 'https', ip: string): FastifyRequest {
  return { protocol, ip } as FastifyRequest;
}

describe('the HTTPS upgrade follows PUBLIC_URL', () => {
  it('asks for the upgrade and HSTS only when PUBLIC_URL is https', () => {
    const https = securityHeaders({ ...upgradeOptions('https://sanad.example', DIRECTIVES), crossOriginEmbedderPolicy: false });
    expect(https['content-security-policy']).toContain('upgrade-insecure-requests');
    expect(https['strict-transport-security']).toContain('max-age=');

    const http = securityHeaders({ ...upgradeOptions('http://10.0.0.5:8080', DIRECTIVES), crossOriginEmbedderPolicy: false });
    expect(http['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(http['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(http['strict-transport-security']).toBeUndefined();
  });

  it('explains instead of a blank page: plain HTTP from another machine to a server set up for https', () => {
    expect(needsPlainHttpPage(request('http', '10.0.0.7'), 'https://sanad.example')).toBe(true);
    expect(needsPlainHttpPage(request('https', '10.0.0.7'), 'https://sanad.example')).toBe(false);
    expect(needsPlainHttpPage(request('http', '127.0.0.1'), 'https://sanad.example')).toBe(false);
    expect(needsPlainHttpPage(request('http', '10.0.0.7'), 'http://10.0.0.5:8080')).toBe(false);
  });

  it('says what to configure, in Arabic, German and English, without script', () => {
    const page = plainHttpPage('https://sanad.example', '10.0.0.5:8080');
    expect(page).toContain('lang="ar" dir="rtl"');
    expect(page).toContain('هذا العنوان لا يستخدم اتصالًا آمنًا');
    expect(page).toContain('Diese Adresse nutzt keine sichere Verbindung');
    expect(page).toContain('This address does not use a secure connection');
    expect(page).toContain('<code>https://sanad.example</code>');
    expect(page).toContain('<code>PUBLIC_URL=http://10.0.0.5:8080</code>');
    expect(page).not.toContain('{{');
    expect(page).not.toContain('<script');
    expect(plainHttpPage('https://sanad.example', '<x>')).not.toContain('<x>');
  });
});
