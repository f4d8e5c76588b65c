import { describe, expect, it } from 'vitest';
import en from '../../i18n/en.json';
import { ApiError } from '../../api/client';
import { attachmentName, EXPORT_ERROR_KEYS, exportErrorKey, exportPath } from './download';

describe('research export downloads', () => {
  it('asks for the data file and the codebook in the screen’s locale', () => {
    expect(exportPath('phq9', 'data', 'de')).toBe('/api/export/phq9.csv');
    expect(exportPath('phq9', 'codebook', 'ar')).toBe('/api/export/phq9/codebook.csv?locale=ar');
  });

  it('saves under the name the server offers', () => {
    expect(attachmentName('attachment; filename="sanad-phq9-2026-11-22.csv"', 'x.csv')).toBe('sanad-phq9-2026-11-22.csv');
    expect(attachmentName(null, 'x.csv')).toBe('x.csv');
  });

  it('explains every refusal with a key of the catalog', () => {
    expect(exportErrorKey(new ApiError(403, 'forbidden', ''))).toBe('forbidden');
    expect(exportErrorKey(new ApiError(500, 'internal', ''))).toBe('failed');
    expect(exportErrorKey(new Error('boom'))).toBe('failed');
    const errors = en.export.errors as Record<string, string>;
    for (const key of EXPORT_ERROR_KEYS) expect(errors[key], key).toBeTruthy();
  });
});
