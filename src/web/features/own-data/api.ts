/**
 * The own-data download (issue 31 item 2): GET /api/my_data as a file the browser saves.
 * The server decides what is in it (row-level security, as the patient); see
 * docs/decisions/own-data-download.md.
 */
import { apiBlob } from '../../api/client';

export type OwnDataFormat = 'html' | 'json';

/** Fetches the patient's own record and hands it to the browser as a download. */
export async function saveOwnData(format: OwnDataFormat, today: Date = new Date()): Promise<void> {
  const blob = await apiBlob(`/api/my_data?format=${format}`);
  const url = URL.createObjectURL(blob);
  const link = window.document.createElement('a');
  link.href = url;
  link.download = `my-data-${today.toISOString().slice(0, 10)}.${format}`;
  window.document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
