import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ReactNode } from 'react';
import { Alert, Page, Spinner } from '../../ui/ui';
import { DownloadsSection } from '../downloads/DownloadsSection';
import { contentPageQuery, type PageCode } from './api';
import { Markdown } from './markdown';

export type { PageCode };

/**
 * An information page, read from the content templates that coordinators edit, in the
 * person's language. Fetched again when the language changes.
 */
export function ContentPage({ code, children }: { code: PageCode; children?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const { data: page, error } = useQuery(contentPageQuery(code, i18n.language));

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
      {children}
    </Page>
  );
}

export const AboutPage = () => <ContentPage code="about" />;
export const FaqPage = () => <ContentPage code="faq" />;
export const PrivacyPage = () => <ContentPage code="privacy" />;
export const ImprintPage = () => <ContentPage code="imprint" />;
/** The information text, then the documents in the reader's language (issue 14 item 5). */
export const DownloadsPage = () => (
  <ContentPage code="downloads">
    <DownloadsSection />
  </ContentPage>
);
export const InterviewInfoPage = () => <ContentPage code="interview" />;
export const ConditionsTherapyPage = () => <ContentPage code="conditionsTherapy" />;
export const ConditionsCounselingPage = () => <ContentPage code="conditionsCounseling" />;
