import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { matchRoute } from '../../../domain/routes';
import { Page } from '../../ui/ui';

/** A route of spec §2 whose screen arrives with a later part of Sanad; it is guarded already. */
export function UpcomingPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const id = matchRoute(location.pathname)?.spec.id;
  return (
    <Page title={id ? t(`nav.${id}`) : t('upcoming.title')} width="reading">
      <p>{t('upcoming.body')}</p>
      <Link to="/" className="button button--secondary">
        {t('errors.toHome')}
      </Link>
    </Page>
  );
}
