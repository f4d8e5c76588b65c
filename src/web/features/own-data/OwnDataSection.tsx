import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Alert } from '../../ui/ui';
import { saveOwnData, type OwnDataFormat } from './api';

/** On the profile page of a patient: download their own record, readable or as data. */
export function OwnDataSection() {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<OwnDataFormat | null>(null);
  const [failed, setFailed] = useState(false);
  const download = async (format: OwnDataFormat) => {
    setBusy(format);
    setFailed(false);
    try {
      await saveOwnData(format);
    } catch {
      setFailed(true);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="card" aria-labelledby="own-data">
      <h2 id="own-data">{t('ownData.download.title')}</h2>
      <p>{t('ownData.download.intro')}</p>
      {failed ? <Alert kind="error">{t('ownData.download.failed')}</Alert> : null}
      {busy ? <p role="status">{t('ownData.download.busy')}</p> : null}
      <div className="button-row">
        <button type="button" className="button" disabled={busy !== null} onClick={() => void download('html')}>
          {t('ownData.download.html')}
        </button>
        <button type="button" className="button button--secondary" disabled={busy !== null} onClick={() => void download('json')}>
          {t('ownData.download.json')}
        </button>
      </div>
    </section>
  );
}
