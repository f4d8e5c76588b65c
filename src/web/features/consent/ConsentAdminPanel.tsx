/**
 * The consent document for coordinators (issue 31 item 1), in the trial section: every version
 * with its counts, the draft's text per language, publishing (confirmed with a reason; a major
 * version asks participants again), and the coverage report.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useClock } from '../../ui/useClock';
import { INSTRUMENTS, type InstrumentCode } from '../../../domain/instruments';
import { ApiError } from '../../api/client';
import { currentLocale } from '../../i18n/i18n';
import { useConfirmWithReason } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Checkbox, SelectField, Spinner, TextArea, TextField } from '../../ui/ui';
import { consentTextsQuery, coverageQuery, createDraft, publishVersion, refetchConsent, saveText, type ConsentVersion } from './api';

const LANGUAGES = ['ar', 'de', 'en'] as const;

function DraftEditor({ draft, onChanged }: { draft: ConsentVersion; onChanged(): void }) {
  const { t } = useTranslation();
  const texts = useQuery(consentTextsQuery(draft.id));
  const [language, setLanguage] = useState<string>(currentLocale());
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [major, setMajor] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const confirmWithReason = useConfirmWithReason();
  useEffect(() => {
    const text = texts.data?.find((x) => x.language === language);
    setTitle(text?.title ?? '');
    setBody(text?.body ?? '');
    setSaved(false);
  }, [texts.data, language]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await saveText(draft.id, language, title, body);
      setSaved(true);
      onChanged();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  const publish = async () => {
    setError(null);
    const reason = await confirmWithReason({
      title: t('consent.publishConfirmTitle', { version: draft.version }),
      message: t('consent.publishConfirmBody'),
      items: major ? [t('consent.publishConfirmMajor')] : [],
      reasonLabel: t('consent.reasonLabel'),
      confirmLabel: t('consent.publish'),
      danger: major,
    });
    if (reason === null) return;
    try {
      await publishVersion(draft.id, major, reason);
      onChanged();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };

  return (
    <div className="card">
      <h3>
        {t('consent.version', { version: draft.version })} · {t('consent.draft')}
      </h3>
      <ErrorAlert error={error} focusOnShow />
      {saved ? <Alert kind="success">{t('consent.saved')}</Alert> : null}
      <form className="form" onSubmit={(e) => void save(e)}>
        <SelectField
          label={t('consent.language')}
          name="language"
          value={language}
          onChange={(e) => setLanguage(e.target.value)}
          options={LANGUAGES.map((l) => ({ value: l, label: `${t(`consent.languages.${l}`)}${draft.languages.includes(l) ? ' ✓' : ''}` }))}
        />
        <TextField label={t('consent.textTitle')} name="title" value={title} required onChange={(e) => setTitle(e.target.value)} dir="auto" />
        <TextArea label={t('consent.textBody')} name="body" value={body} rows={10} required onChange={(e) => setBody(e.target.value)} dir="auto" />
        <div className="button-row">
          <button type="submit" className="button button--secondary">
            {t('consent.saveText')}
          </button>
        </div>
      </form>
      <Checkbox name="major" checked={major} onChange={(e) => setMajor(e.target.checked)} label={t('consent.publishMajor')} />
      <div className="button-row">
        <button type="button" className="button" onClick={() => void publish()}>
          {t('consent.publish')}
        </button>
      </div>
    </div>
  );
}

export function ConsentAdminPanel() {
  const clock = useClock();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const coverage = useQuery(coverageQuery());
  const [error, setError] = useState<ApiError | null>(null);
  const changed = () => void refetchConsent(queryClient);
  // A questionnaire by its own label, a worksheet by its title on the therapy screens.
  const collectionName = (code: string) =>
    Object.hasOwn(INSTRUMENTS, code) ? INSTRUMENTS[code as InstrumentCode].labels[currentLocale()] : t(`therapy.sheet.${code}.title`);
  const versions = coverage.data?.versions ?? [];
  const draft = versions.find((v) => v.status === 'draft');
  const newDraft = async () => {
    setError(null);
    try {
      await createDraft();
      changed();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };

  return (
    <section className="card" aria-labelledby="consent-admin">
      <h2 id="consent-admin">{t('consent.editorTitle')}</h2>
      <p>{t('consent.editorIntro')}</p>
      <ErrorAlert error={error ?? (coverage.error as ApiError | null)} />
      {coverage.isPending ? <Spinner /> : null}
      {coverage.data && versions.length === 0 ? <p className="muted">{t('consent.noVersions')}</p> : null}
      {!draft && coverage.data ? (
        <div className="button-row">
          <button type="button" className="button button--secondary" onClick={() => void newDraft()}>
            {t('consent.newDraft')}
          </button>
        </div>
      ) : null}
      {draft ? <DraftEditor key={draft.id} draft={draft} onChanged={changed} /> : null}
      <ul className="link-list">
        {versions
          .filter((v) => v.status === 'published')
          .map((v) => (
            <li key={v.id}>
              <strong>{t('consent.version', { version: v.version })}</strong> ({t(v.major ? 'consent.major' : 'consent.minor')}) ·{' '}
              {t('consent.published', { time: clock.dateTime(v.publishedAt!) })}
              {v.changeNote ? (
                <>
                  {' '}
                  — <span dir="auto">{v.changeNote}</span>
                </>
              ) : null}
              <br />
              <span className="muted">
                {t('consent.consents', { count: v.consents })} · {t('consent.openRequests', { count: v.openRequests })} · {t('consent.answeredRequests', { count: v.answeredRequests })}
              </span>
            </li>
          ))}
      </ul>
      {coverage.data ? (
        <>
          <h3>{t('consent.coverageTitle')}</h3>
          <p className="muted">{t('consent.coverageIntro')}</p>
          <div className="table-scroll" tabIndex={0} role="region" aria-label={t('consent.coverageTitle')}>
            <table className="data-table">
              <thead>
                <tr>
                  <th scope="col">{t('consent.collection')}</th>
                  <th scope="col">{t('consent.covered')}</th>
                  <th scope="col">{t('consent.notCovered')}</th>
                  <th scope="col">{t('consent.flagsOnly')}</th>
                </tr>
              </thead>
              <tbody>
                {coverage.data.collections
                  .filter((c) => c.covered + c.notCovered + c.flagsOnly > 0)
                  .map((c) => (
                    <tr key={c.collection}>
                      <th scope="row">{collectionName(c.collection)}</th>
                      <td>{c.covered}</td>
                      <td>{c.notCovered}</td>
                      <td>{c.flagsOnly}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
