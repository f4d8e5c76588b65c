import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../../api/client';
import { Alert, Page, Spinner } from '../../ui/ui';
import { Markdown } from './markdown';

export type PageCode = 'about' | 'faq' | 'privacy' | 'imprint' | 'downloads' | 'conditionsTherapy' | 'conditionsCounseling' | 'interview';

interface StoredPage {
  code: string;
  locale: string;
  title: string;
  content: string;
}

/**
 * An information page, read from the content templates that coordinators edit, in the
 * person's language. Fetched again when the language changes.
 */
export function ContentPage({ code }: { code: PageCode }) {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState<StoredPage | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    api<StoredPage>('GET', `/api/pages/${code}?locale=${encodeURIComponent(i18n.language)}`, { signal: controller.signal, anonymous: true }).then(
      setPage,
      (caught: unknown) => {
        if (caught instanceof ApiError) setError(caught);
      },
    );
    return () => controller.abort();
  }, [code, i18n.language]);

  if (error) {
    return (
      <Page title={t(`nav.${code}`)} width="reading">
        <Alert kind="error">{t(`errorCodes.${error.code}`, { defaultValue: t('errorCodes.unknown') })}</Alert>
      </Page>
    );
  }
  if (!page) return <Spinner />;
  return (
    <Page title={page.title} width="reading">
      <article className="card" lang={page.locale} dir={page.locale === 'ar' ? 'rtl' : 'ltr'}>
        <Markdown source={page.content} />
      </article>
    </Page>
  );
}

export const AboutPage = () => <ContentPage code="about" />;
export const FaqPage = () => <ContentPage code="faq" />;
export const PrivacyPage = () => <ContentPage code="privacy" />;
export const ImprintPage = () => <ContentPage code="imprint" />;
export const DownloadsPage = () => <ContentPage code="downloads" />;
export const InterviewInfoPage = () => <ContentPage code="interview" />;
export const ConditionsTherapyPage = () => <ContentPage code="conditionsTherapy" />;
export const ConditionsCounselingPage = () => <ContentPage code="conditionsCounseling" />;
