/**
 * Downloads of the research export. The files need the bearer token, which a plain link cannot
 * send, so the file is fetched and then saved through an object URL. A refused download becomes
 * an ApiError with the server's code, as every other request does.
 */
import type { Locale } from '../../../domain/locales';
import { ApiError, readToken } from '../../api/client';

export type ExportFile = 'data' | 'codebook';

/** Refusals the screen explains in its own words (`export.errors.<key>`); anything else is `failed`. */
const EXPLAINED = ['forbidden', 'sign_in_required', 'session_invalid', 'network', 'unknown_questionnaire', 'locale_unsupported'] as const;
export const EXPORT_ERROR_KEYS = [...EXPLAINED, 'failed'] as const;
export type ExportErrorKey = (typeof EXPORT_ERROR_KEYS)[number];

export function exportErrorKey(error: unknown): ExportErrorKey {
  const code = error instanceof ApiError ? error.code : '';
  return (EXPLAINED as readonly string[]).includes(code) ? (code as ExportErrorKey) : 'failed';
}

/** The server's path of a file: `/api/export/phq9.csv`, `/api/export/phq9/codebook.csv?locale=de`. */
export function exportPath(code: string, file: ExportFile, locale: Locale): string {
  const name = encodeURIComponent(code);
  return file === 'data' ? `/api/export/${name}.csv` : `/api/export/${name}/codebook.csv?locale=${locale}`;
}

/** The name the server offers in Content-Disposition, or a plain fallback. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(header ?? '');
  return match?.[1] ?? fallback;
}

async function refusal(response: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's page): the status says enough
  }
  const code = typeof body.error === 'string' ? body.error : `http_${response.status}`;
  return new ApiError(response.status, code, typeof body.message === 'string' ? body.message : response.statusText, {}, body);
}

/** Hands a fetched file to the browser's download, under its name. */
function save(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the URL after click() returns; release it once the download has it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Fetches one export file with the session's token and saves it; answers the file name. */
export async function downloadExport(code: string, file: ExportFile, locale: Locale): Promise<string> {
  const headers: Record<string, string> = { accept: 'text/csv, application/json' };
  const token = readToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(exportPath(code, file, locale), { headers });
  } catch {
    throw new ApiError(0, 'network', 'The server cannot be reached. Check your connection and try again.');
  }
  if (!response.ok) throw await refusal(response);
  const fileName = attachmentName(response.headers.get('content-disposition'), `sanad-${code}.csv`);
  save(await response.blob(), fileName);
  return fileName;
}
