/**
 * "Research data" on the staff case list, for coordinators: pick a questionnaire, download its
 * records as CSV or its codebook in the screen's language. The server decides who may export
 * (coordinators only); this section is shown to coordinators so others are not offered a button
 * that can only fail.
 */
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { INSTRUMENT_CODES, INSTRUMENTS, wordingFor, type InstrumentCode } from '../../../domain/instruments';
import { isLocale, type Locale } from '../../../domain/locales';
import { Alert, SelectField } from '../../ui/ui';
import { downloadExport, exportErrorKey, type ExportErrorKey, type ExportFile } from './download';
import './export.css';

/** The questionnaires by their title in the screen's language, sorted as that language sorts. */
function useInstrumentOptions(locale: Locale) {
  return useMemo(() => {
    const collator = new Intl.Collator(locale);
    return INSTRUMENT_CODES.map((code) => ({ value: code, label: wordingFor(INSTRUMENTS[code], { kind: 'title' }, locale) ?? code })).sort((a, b) => collator.compare(a.label, b.label));
  }, [locale]);
}

export function ResearchExport() {
  const { t, i18n } = useTranslation();
  const locale: Locale = isLocale(i18n.language) ? i18n.language : 'ar';
  const instrumentOptions = useInstrumentOptions(locale);
  // The interview reports join the export (issue 12), after the questionnaires.
  const options = [
    ...instrumentOptions,
    { value: 'interview_reports', label: t('report.exportReports') },
    { value: 'feedback_interview_reports', label: t('report.exportFeedback') },
  ];
  const [code, setCode] = useState<InstrumentCode | 'interview_reports' | 'feedback_interview_reports'>('phq9');
  const [busy, setBusy] = useState<ExportFile | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [failed, setFailed] = useState<ExportErrorKey | null>(null);

  const download = async (file: ExportFile) => {
    // aria-disabled rather than disabled while busy, so keyboard focus stays on the button.
    if (busy) return;
    setBusy(file);
    setSaved(null);
    setFailed(null);
    try {
      setSaved(await downloadExport(code, file, locale));
    } catch (error) {
      setFailed(exportErrorKey(error));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="research-export" aria-labelledby="research-export-title">
      <h2 id="research-export-title">{t('export.title')}</h2>
      <p className="muted">{t('export.hint')}</p>
      <SelectField
        label={t('export.questionnaire')}
        name="instrument"
        value={code}
        onChange={(event) => {
          setCode(event.target.value as InstrumentCode | 'interview_reports' | 'feedback_interview_reports');
          setSaved(null);
          setFailed(null);
        }}
        options={options}
      />
      <div className="button-row">
        <button type="button" className="button" aria-disabled={busy !== null || undefined} onClick={() => void download('data')}>
          {busy === 'data' ? t('export.preparing') : t('export.downloadData')}
        </button>
        <button type="button" className="button button--secondary" aria-disabled={busy !== null || undefined} onClick={() => void download('codebook')}>
          {busy === 'codebook' ? t('export.preparing') : t('export.downloadCodebook')}
        </button>
      </div>
      <p className="research-export__status" role="status">
        {saved ? (
          <>
            {t('export.saved')} <bdi dir="ltr">{saved}</bdi>
          </>
        ) : null}
      </p>
      {failed ? <Alert kind="error">{t(`export.errors.${failed}`)}</Alert> : null}
    </section>
  );
}
