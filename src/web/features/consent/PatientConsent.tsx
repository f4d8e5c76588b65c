/**
 * The patient's side of versioned e-consent (issue 31 item 1): the card that asks for consent
 * again after a major amendment (on the home page, so at the next sign-in; questionnaires wait
 * until then), the list of what they agreed to with its printable record (profile), and the
 * document shown at registration.
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useClock } from '../../ui/useClock';
import { ApiError } from '../../api/client';
import { currentLocale } from '../../i18n/i18n';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Checkbox, TextField } from '../../ui/ui';
import './consent.css';
import { currentConsentQuery, giveConsent, myConsentQuery, openConsentRecord, refetchConsent, type ConsentDocument } from './api';

function DocumentText({ document }: { document: ConsentDocument }) {
  return (
    <div className="consent-document" lang={document.language} dir="auto">
      <h3>{document.title}</h3>
      <p className="consent-document__body">{document.body}</p>
    </div>
  );
}

/** On the patient's home page while a major amendment waits for their consent. */
export function ReconsentCard() {
  const { t } = useTranslation();
  const language = currentLocale();
  const queryClient = useQueryClient();
  const mine = useQuery(myConsentQuery(language));
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  if (done) return <Alert kind="success">{t('consent.agreed')}</Alert>;
  const current = mine.data?.current;
  if (!mine.data?.pending || !current) return null;
  const agree = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await giveConsent(current.versionId, current.language, typed);
      setDone(true);
      void refetchConsent(queryClient);
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  return (
    <section className="card consent-card" aria-labelledby="reconsent">
      <h2 id="reconsent">{t('consent.reconsentTitle')}</h2>
      <p>{t('consent.reconsentIntro')}</p>
      <DocumentText document={current} />
      <ErrorAlert error={error} focusOnShow />
      <form className="form" onSubmit={(e) => void agree(e)}>
        <TextField label={t('consent.typedUsername')} name="typedUsername" autoComplete="off" data-ltr="" required value={typed} onChange={(e) => setTyped(e.target.value)} />
        <div className="button-row">
          <button type="submit" className="button">
            {t('consent.agree')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** On the profile page of a patient: every version they agreed to, each with its printable record. */
export function MyConsentsSection() {
  const clock = useClock();
  const { t } = useTranslation();
  const mine = useQuery(myConsentQuery(currentLocale()));
  const [error, setError] = useState<ApiError | null>(null);
  const records = mine.data?.records ?? [];
  if (records.length === 0) return null;
  const open = async (id: string) => {
    setError(null);
    try {
      await openConsentRecord(id);
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  return (
    <section className="card" aria-labelledby="my-consents">
      <h2 id="my-consents">{t('consent.myConsents')}</h2>
      <ErrorAlert error={error} />
      <ul className="link-list">
        {records.map((r) => (
          <li key={r.id}>
            <strong dir="auto">{r.title}</strong> · {t('consent.version', { version: r.version })}
            <br />
            <span className="muted">{t('consent.agreedAt', { time: clock.dateTime(r.agreedAt) })}</span>{' '}
            <button type="button" className="button button--secondary" onClick={() => void open(r.id)}>
              {t('consent.openRecord')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** In the registration form: the current document and the box that agrees to it. */
export function RegistrationConsent({ agreed, onChange, errors }: { agreed: string | null; onChange(versionId: string | null): void; errors?: { code: string; message: string }[] | undefined }) {
  const { t } = useTranslation();
  const current = useQuery(currentConsentQuery(currentLocale()));
  const document = current.data;
  if (!document) return null;
  return (
    <fieldset className="form">
      <legend>{t('consent.registrationHeading')}</legend>
      <DocumentText document={document} />
      <Checkbox
        name="consentVersionId"
        checked={agreed === document.versionId}
        errors={errors}
        onChange={(e) => onChange(e.target.checked ? document.versionId : null)}
        label={t('consent.registrationAgree', { version: document.version })}
      />
    </fieldset>
  );
}

/** The language of the document the registration form shows (sent with the agreement). */
export function useRegistrationConsentLanguage(): string | undefined {
  return useQuery(currentConsentQuery(currentLocale())).data?.language;
}
