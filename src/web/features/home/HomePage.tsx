/**
 * Home, by the kind of person (src/domain/navigation.ts): patients see what they can do now;
 * counselors and staff see their cases first, newest unread on top, each opening its
 * conversation, then their tools. Only screens that exist are links.
 */
import { isolateIdent } from '../../../domain/bidi';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { homeKind, type HomeKind } from '../../../domain/navigation';
import { canAccess, routeById, type RouteId } from '../../../domain/routes';
import { isAvailable } from '../../app/screens';
import { accountFlags } from '../../session/profile';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, Spinner } from '../../ui/ui';
import { myCasesQuery, type MyCase } from '../messages/api';
import { personName } from '../messages/names';
import { conversationPath } from '../../../domain/messages';
import { SafetyBanner } from '../safety/SafetyBanner';
import { PatientHome } from '../patient/PatientHome';
import { CounselingCases, CounselorCaseView } from '../counseling/CounselorHome';
import { AssessorHome } from '../blinding/AssessorHome';

/** What each kind of person does here, in the order they usually need it. */
const TILES: Record<HomeKind, RouteId[]> = {
  patient: ['measurementScreening', 'surveys', 'interviewBooking', 'conversation', 'due', 'profile', 'interview', 'faq'],
  counselor: ['conversation', 'due', 'workflows', 'profile'],
  staff: ['adminCases', 'adminTasks', 'adminEngagement', 'adminInterviewCalendar', 'interviewManage', 'interviewReports', 'adminTemplates', 'conversation', 'profile'],
};

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

/** Newest unread first, then the rest as the server listed them (newest membership first). */
function byUnread(cases: readonly MyCase[]): MyCase[] {
  const unread = (c: MyCase) => Number(c.case?.newMessages ?? 0);
  const latest = (c: MyCase) => c.case?.latestMessage?.sentAt ?? '';
  return [...cases].sort((a, b) => Number(unread(b) > 0) - Number(unread(a) > 0) || (unread(a) > 0 ? latest(b).localeCompare(latest(a)) : 0));
}

/** The cases I am a member of, with my unread count each; a case opens its conversation. */
function MyCases({ staff }: { staff: boolean }) {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const { data, error, isPending } = useQuery(myCasesQuery());
  const open = (caseId: string) => {
    session.setCurrentCase(caseId);
    void navigate(conversationPath(caseId));
  };
  return (
    <section aria-labelledby="my-cases-title">
      <h2 id="my-cases-title">{t('home.myCases')}</h2>
      <ErrorAlert error={error} />
      {isPending ? <Spinner /> : null}
      {data && data.length === 0 ? (
        // Coordinators add people to cases themselves: they are pointed to the case list instead (issue 26).
        session.user?.is_coordinator_account ? (
          <p className="muted">
            {t('careteam.home.coordinatorNoCases')} <Link to="/admin/cases">{t('careteam.home.allCases')}</Link>
          </p>
        ) : (
          <p className="muted">{t('home.noCases')}</p>
        )
      ) : null}
      {data && data.length > 0 ? (
        <ul className="plain-list my-cases">
          {byUnread(data).map(({ caseId, case: c }) => {
            if (!c) return null;
            const unread = Number(c.newMessages ?? 0);
            const name = personName(c.patient) ?? c.title;
            return (
              <li key={caseId} className="card card--flat my-cases__item">
                <button type="button" className="link-button my-cases__open" onClick={() => open(caseId)}>
                  <span>{t('home.caseLabel', { shortId: isolateIdent(c.shortId) })}</span>
                  {name ? (
                    <>
                      {' · '}
                      <bdi>{name}</bdi>
                    </>
                  ) : null}
                </button>
                {unread > 0 ? <span className="badge badge--inline">{t('home.unread', { count: unread })}</span> : <span className="muted">{t('home.allRead')}</span>}
                {staff ? (
                  <Link className="my-cases__detail" to={`/admin/cases/${caseId}`}>
                    {t('home.caseDetail')}
                  </Link>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

export function HomePage() {
  const { t } = useTranslation();
  const { user, cases, currentCaseId } = useSession();
  const [params] = useSearchParams();
  const flags = accountFlags(user);
  if (!user || !flags) return null;
  // Issue 30: a blinded assessor's home is their assessments, and nothing else of the cases.
  if (user.is_assessor_account) return <AssessorHome name={user.alias ?? user.username} />;
  // A counselor's counseling (issue 27): counselors have no staff screens (spec §6), so one
  // counseling opens on their home.
  const counselingCase = params.get('case');
  if (user.is_counselor_account && counselingCase) return <CounselorCaseView caseId={counselingCase} />;
  const kind = homeKind(flags, user.is_counselor_account);
  const tiles = TILES[kind].filter((id) => canAccess(routeById(id), flags));
  const currentCase = cases.find((c) => c.id === currentCaseId);
  const intro = { patient: 'home.introPatient', counselor: 'home.introCounselor', staff: 'home.introStaff' }[kind];
  // A patient with a case: the home that follows their path (issue 25).
  if (kind === 'patient' && currentCase) return <PatientHome user={user} caseId={currentCase.id} />;

  return (
    <Page title={t('home.greeting', { name: user.alias ?? user.username })}>
      {/* Issue 26: open risk tasks the person can act on, first thing on every staff home. */}
      {kind !== 'patient' ? <SafetyBanner /> : null}
      <p>{t(intro)}</p>
      {kind === 'patient' && currentCase ? <p className="muted">{t('home.yourCase', { shortId: isolateIdent(currentCase.shortId) })}</p> : null}
      {user.excluded ? <p className="alert alert--info">{t('home.excluded')}</p> : null}
      {user.is_counselor_account ? <CounselingCases /> : null}
      {kind !== 'patient' ? <MyCases staff={kind === 'staff'} /> : null}
      <div className="grid">
        {tiles.map((id) => (
          <Tile key={id} id={id} />
        ))}
      </div>
    </Page>
  );
}
