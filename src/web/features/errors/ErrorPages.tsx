import { useTranslation } from 'react-i18next';
import { Link, useRouteError } from 'react-router';
import { ChunkLoadError } from '../../app/lazy';
import { Alert, Page } from '../../ui/ui';

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Page title={t('errors.notFoundTitle')} width="reading">
      <p>{t('errors.notFoundBody')}</p>
      <Link to="/" className="button">
        {t('errors.toHome')}
      </Link>
    </Page>
  );
}

/** Shown when a route fails to render; a section that did not load can be retried. */
export function RouteErrorPage() {
  const { t } = useTranslation();
  const error = useRouteError();
  const chunk = error instanceof ChunkLoadError ? error : null;
  if (!chunk) console.error(error);
  return (
    <Page title={chunk ? t('errors.chunkTitle') : t('errors.crashTitle')} width="reading">
      <Alert kind="error">
        <p>{chunk ? t(chunk.type === 'timeout' ? 'errors.chunkTimeout' : 'errors.chunkError') : t('errors.crashBody')}</p>
      </Alert>
      <div className="button-row">
        <button type="button" className="button" onClick={() => window.location.reload()}>
          {t('errors.retry')}
        </button>
        <Link to="/" className="button button--secondary">
          {t('errors.toHome')}
        </Link>
      </div>
    </Page>
  );
}
