/**
 * The three layouts of spec §2 (blue, development, treatment) share one frame: a header with
 * the person's destinations, sign-out and the language, the page, and a footer with the
 * information pages and a crisis note. The layout only changes the colours.
 *
 * Phone first: below WIDE_SCREEN the destinations sit behind a "Menu" button (a disclosure:
 * one tap opens a list of large targets, nothing scrolls sideways), while sign-out stays on the
 * bar at every width. Wider screens show the same destinations inline. The current page is
 * marked (aria-current and a visible mark) in both.
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation } from 'react-router';
import { destinations } from '../../domain/navigation';
import { isStaff } from '../../domain/roles';
import { canAccess, routeById, type Layout as LayoutName, type RouteId } from '../../domain/routes';
import { isAvailable } from '../app/screens';
import { unreadQuery } from '../features/messages/api';
import { patientPathQuery } from '../features/patient/api';
import { accountFlags } from '../session/profile';
import { useSession } from '../session/session';
import { useMediaQuery, WIDE_SCREEN } from '../ui/useMediaQuery';
import { LocaleSwitcher } from './LocaleSwitcher';

// The crisis panel loads only when a patient's risk answer is open (it brings the Markdown renderer).
const CrisisEntry = lazy(() => import('../features/patient/CrisisEntry').then((m) => ({ default: m.CrisisEntry })));

const SIGNED_OUT_NAV: RouteId[] = ['about', 'faq', 'login', 'register'];
const FOOTER_LINKS: RouteId[] = ['about', 'faq', 'conditionsTherapy', 'conditionsCounseling', 'privacy', 'imprint', 'downloads'];

function Logo() {
  return (
    <svg className="brand__mark" viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="#ffffff" fillOpacity="0.18" />
      <path d="M18 40c4 6 24 6 28 0M22 26h.01M42 26h.01" stroke="#fff" strokeWidth="5" strokeLinecap="round" fill="none" />
    </svg>
  );
}

/** The number of unread messages; screen readers hear it as a sentence. */
function UnreadBadge({ count }: { count: number }) {
  const { t } = useTranslation();
  return (
    <>
      <span className="badge" aria-hidden="true" data-testid="unread-badge">
        {count}
      </span>
      <span className="visually-hidden">{t('messages.unreadBadge', { count })}</span>
    </>
  );
}

function MenuIcon({ open }: { open: boolean }) {
  return (
    <svg className="menu-button__icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
    </svg>
  );
}

function NavLinks({ ids, unread }: { ids: RouteId[]; unread: number }) {
  const { t } = useTranslation();
  return (
    <ul>
      {ids.map((id) => (
        <li key={id}>
          <NavLink to={routeById(id).path} end={id === 'home'}>
            <span>{t(`nav.${id}`)}</span>
            {id === 'conversation' && unread > 0 ? <UnreadBadge count={unread} /> : null}
          </NavLink>
        </li>
      ))}
    </ul>
  );
}

export function Layout({ layout, children }: { layout: LayoutName; children: ReactNode }) {
  const { t } = useTranslation();
  const session = useSession();
  const flags = accountFlags(session.user);
  const wide = useMediaQuery(WIDE_SCREEN);
  const location = useLocation();
  const menuId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  // A patient's case as it is now (stage, open risk): the menu and the crisis entry follow it.
  const patientCaseId = session.user?.is_patient_account && !(flags && isStaff(flags)) ? session.currentCaseId : null;
  const patientPath = useQuery({ ...patientPathQuery(patientCaseId ?? ''), enabled: Boolean(patientCaseId) }).data;
  const stage = patientPath?.stage ?? session.cases.find((c) => c.id === session.currentCaseId)?.stage ?? null;
  const nav =
    session.user && flags
      ? destinations(flags, session.user.is_counselor_account, isAvailable, stage)
      : SIGNED_OUT_NAV.filter((id) => isAvailable(id) && canAccess(routeById(id), flags));
  const unread = useQuery({ ...unreadQuery(), enabled: Boolean(session.user) }).data ?? 0;

  // A chosen destination closes the menu; so does a wider window.
  useEffect(() => setMenuOpen(false), [location.pathname, wide]);

  const closeOnEscape = (event: React.KeyboardEvent) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };

  return (
    <div className={`app-shell layout-${layout}`} onKeyDown={closeOnEscape}>
      <a className="skip-link" href="#main">
        {t('layout.skipToContent')}
      </a>
      <header className="app-header">
        <div className="app-header__bar">
          <Link to={session.user ? '/' : '/about'} className="brand">
            <Logo />
            <span>{t('app.name')}</span>
          </Link>
          {wide ? (
            <nav className="app-nav" aria-label={t('layout.mainNavigation')}>
              <NavLinks ids={nav} unread={unread} />
            </nav>
          ) : null}
          <div className="app-header__actions">
            {wide ? null : (
              <button
                ref={menuButton}
                type="button"
                className="header-button menu-button"
                aria-expanded={menuOpen}
                aria-controls={menuId}
                onClick={() => setMenuOpen((open) => !open)}
              >
                <MenuIcon open={menuOpen} />
                <span>{t('shell.menu')}</span>
                {unread > 0 && !menuOpen ? <UnreadBadge count={unread} /> : null}
              </button>
            )}
            {session.user ? (
              <button type="button" className="header-button header-button--outlined" onClick={() => void session.signOut()}>
                {t('nav.signOut')}
              </button>
            ) : null}
            {wide ? <LocaleSwitcher /> : null}
          </div>
        </div>
        {!wide && menuOpen ? (
          // A chosen link closes the menu, the current page's too (no navigation happens then).
          <nav id={menuId} className="app-menu" aria-label={t('layout.mainNavigation')} onClick={(e) => (e.target as HTMLElement).closest('a') && setMenuOpen(false)}>
            <NavLinks ids={nav} unread={unread} />
            <div className="app-menu__locale">
              <LocaleSwitcher />
            </div>
          </nav>
        ) : null}
      </header>
      <main id="main" className="app-main">
        {patientCaseId && patientPath?.riskOpen && location.pathname !== '/' ? (
          <Suspense fallback={null}>
            <CrisisEntry caseId={patientCaseId} />
          </Suspense>
        ) : null}
        {children}
      </main>
      <footer className="app-footer">
        <div className="app-footer__bar">
          {FOOTER_LINKS.map((id) => (
            <Link key={id} to={routeById(id).path}>
              {t(`nav.${id}`)}
            </Link>
          ))}
          <p className="crisis-note">{t('layout.crisisNote')}</p>
        </div>
      </footer>
    </div>
  );
}
