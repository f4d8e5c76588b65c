/**
 * /treatment/past-letters: every letter the patient received, newest first, each in its own
 * language and direction. Printing leaves out the app's frame and buttons.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, Spinner } from '../../ui/ui';
import { markLettersRead } from '../patient/api';
import { caseLettersQuery } from './api';
import { LetterBody } from './WorksheetParts';
import { useClock } from '../../ui/useClock';
import './therapy.css';

export function PastLettersPage() {
  const { t } = useTranslation();
  const { user, currentCaseId } = useSession();
  return (
    <Page title={t('therapy.pastLettersTitle')} width="reading">
      {user && currentCaseId ? <Letters caseId={currentCaseId} /> : <p>{t('therapy.noCase')}</p>}
    </Page>
  );
}

function Letters({ caseId }: { caseId: string }) {
  const clock = useClock();
  const { t, i18n } = useTranslation();
  const query = useQuery(caseLettersQuery(caseId));
  const client = useQueryClient();
  const hasSent = Boolean(query.data?.some((l) => l.published_at));
  // Shown means read: the home's "new" marks go (issue 25). A failure only leaves the marks.
  useEffect(() => {
    if (hasSent) markLettersRead(client, caseId).catch(() => undefined);
  }, [client, caseId, hasSent]);
  if (query.error) return <ErrorAlert error={asApiError(query.error)} />;
  if (query.isPending) return <Spinner />;
  const sent = query.data.filter((l) => l.published_at);
  if (sent.length === 0) return <p>{t('therapy.noLetters')}</p>;
  return (
    <>
      <button type="button" className="button button--secondary button--small no-print" onClick={() => window.print()}>
        {t('therapy.print')}
      </button>
      {sent.map((letter) => (
        <article key={letter.id} className="therapy-letter" lang={letter.language_code} dir={letter.language_code === 'ar' ? 'rtl' : 'ltr'}>
          <p className="therapy-letter__meta" lang={i18n.language} dir="auto">{clock.dateTime(letter.published_at!)}</p>
          {letter.subject ? <h2>{letter.subject}</h2> : null}
          <LetterBody body={letter.body} />
        </article>
      ))}
    </>
  );
}
