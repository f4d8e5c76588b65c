/** The information pages' read: GET /api/pages/<code>?locale=… (the templates coordinators edit). */
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../api/client';

export type PageCode = 'about' | 'faq' | 'privacy' | 'imprint' | 'downloads' | 'conditionsTherapy' | 'conditionsCounseling' | 'interview';

export interface StoredPage {
  code: string;
  locale: string;
  title: string;
  content: string;
}

export const contentKeys = { page: (code: PageCode, locale: string) => ['content', code, locale] as const };

/** A page in a language; kept for the session (pages change rarely; a reload shows edits). */
export const contentPageQuery = (code: PageCode, locale: string) =>
  queryOptions({
    queryKey: contentKeys.page(code, locale),
    queryFn: ({ signal }) => api<StoredPage>('GET', `/api/pages/${code}?locale=${encodeURIComponent(locale)}`, { signal, anonymous: true }),
    staleTime: 5 * 60_000,
  });
