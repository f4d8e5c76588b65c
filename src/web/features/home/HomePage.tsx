import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { canAccess, routeById, type RouteId } from '../../../domain/routes';
import { isStaff } from '../../../domain/roles';
import { isAvailable } from '../../app/screens';
import { accountFlags } from '../../session/profile';
import { useSession } from '../../session/session';
import { Page } from '../../ui/ui';

/** What each kind of person does here, in the order they usually need it. */
const PATIENT_TILES: RouteId[] = ['measurementScreening', 'surveys', 'interviewBooking', 'conversation', 'due', 'profile', 'interview', 'faq'];
const STAFF_TILES: RouteId[] = ['adminCases', 'adminTasks', 'adminInterviewCalendar', 'interviewManage', 'interviewReports', 'adminTemplates', 'conversation', 'profile'];

function Tile({ id }: { id: RouteId }) {
  const { t } = useTranslation();
  const body = (
    <>
      <span className="tile__title">{t(`nav.${id}`)}</span>
      <span className="muted">{t(`home.tiles.${id}`)}</span>
    </>
  );
  if (isAvailable(id)) {
    return (
      <Link className="tile" to={routeById(id).path}>
        {body}
      </Link>
    );
  }
  return (
    <div className="tile" aria-disabled="true">
      {body}
      <span className="field__hint"> · {t('home.comingSoon')}</span>
    </div>
  );
}

/** Home, by role: what this person can do now. Only screens that exist are links. */
export function HomePage() {
  const { t } = useTranslation();
  const { user, cases, currentCaseId } = useSession();
  const flags = accountFlags(user);
  if (!user || !flags) return null;
  const staff = isStaff(flags);
  const tiles = (staff ? STAFF_TILES : PATIENT_TILES).filter((id) => canAccess(routeById(id), flags));
  const currentCase = cases.find((c) => c.id === currentCaseId);

  return (
    <Page title={t('home.greeting', { name: user.alias ?? user.username })}>
      <p>{staff ? t('home.introStaff') : t('home.introPatient')}</p>
      {!staff && currentCase ? (
        <p className="muted">{t('home.yourCase', { shortId: currentCase.shortId })}</p>
      ) : null}
      {user.excluded ? <p className="alert alert--info">{t('home.excluded')}</p> : null}
      <div className="grid">
        {tiles.map((id) => (
          <Tile key={id} id={id} />
        ))}
      </div>
    </Page>
  );
}
