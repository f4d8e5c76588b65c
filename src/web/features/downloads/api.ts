/**
 * The documents of /downloads (issue 14 item 5): REST routes of src/server/downloads/routes.ts.
 * The list is per language; files come as Blobs (the bearer token cannot ride on a plain link)
 * and are saved through a temporary object URL.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, apiBlob } from '../../api/client';

export interface DownloadDocument {
  id: string;
  locale: string;
  title: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  uploadedBy: string | null;
  uploadedAt: string;
}

export const downloadKeys = {
  all: ['downloads'] as const,
  locale: (locale: string) => ['downloads', locale] as const,
};

export const downloadsQuery = (locale: string) =>
  queryOptions({
    queryKey: downloadKeys.locale(locale),
    queryFn: ({ signal }) => api<DownloadDocument[]>('GET', `/api/downloads?locale=${encodeURIComponent(locale)}`, { signal }),
  });

export async function uploadDocument(input: { locale: string; title: string; file: File }): Promise<{ id: string }> {
  const query = new URLSearchParams({ locale: input.locale, title: input.title, fileName: input.file.name });
  return api<{ id: string }>('POST', `/api/downloads?${query}`, { file: input.file });
}

export async function deleteDocument(id: string): Promise<void> {
  await api('DELETE', `/api/downloads/${encodeURIComponent(id)}`);
}

/** Fetches a document and hands it to the browser as a download under its own name. */
export async function saveDocument(document: Pick<DownloadDocument, 'id' | 'fileName'>): Promise<void> {
  const blob = await apiBlob(`/api/downloads/${encodeURIComponent(document.id)}/file`);
  const url = URL.createObjectURL(blob);
  const link = window.document.createElement('a');
  link.href = url;
  link.download = document.fileName;
  window.document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** After an upload or a deletion: every language's list (an upload may be in another language). */
export const refetchAfterDocumentChange = (client: QueryClient) => client.invalidateQueries({ queryKey: downloadKeys.all });
