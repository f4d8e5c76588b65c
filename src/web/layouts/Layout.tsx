/**
 * The three layouts of spec §2 (blue, development, treatment) share one frame: a header with
 * navigation for the person's role and the locale switcher, the page, and a footer with the
 * information pages and a crisis note. The layout only changes the colours.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink } from 'react-router';
import { canAccess, routeById, type Layout as LayoutName, type RouteId } from '../../domain/routes';
import { accountFlags } from '../session/profile';
import { useSession } from '../session/session';
import { isAvailable } from '../app/screens';
import { unreadQuery } from '../features/messages/api';
import { LocaleSwitcher } from './LocaleSwitcher';

const SIGNED_IN_NAV: RouteId[] = ['home', 'conversation', 'adminCases', 'adminTasks', 'interviewBooking', 'interviewManage', 'profile'];
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

/** The number of unread messages on the "Messages" link; screen readers hear it as a sentence. */
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

export function Layout({ layout, children }: { layout: LayoutName; children: ReactNode }) {
  const { t } = useTranslation();
  const session = useSession();
  const flags = accountFlags(session.user);
  const nav = (session.user ? SIGNED_IN_NAV : SIGNED_OUT_NAV).filter((id) => isAvailable(id) && canAccess(routeById(id), flags));
  const unread = useQuery({ ...unreadQuery(), enabled: Boolean(session.user) }).data ?? 0;

  return (
    <div className={`app-shell layout-${layout}`}>
      <a className="skip-link" href="#main">
        {t('layout.skipToContent')}
      </a>
      <header className="app-header">
        <div className="app-header__bar">
          <Link to={session.user ? '/' : '/about'} className="brand">
            <Logo />
            <span>{t('app.name')}</span>
          </Link>
          <nav className="app-nav" aria-label={t('layout.mainNavigation')}>
            <ul>
              {nav.map((id) => (
                <li key={id}>
                  <NavLink to={routeById(id).path} end>
                    {t(`nav.${id}`)}
                    {id === 'conversation' && unread > 0 ? <UnreadBadge count={unread} /> : null}
                  </NavLink>
                </li>
              ))}
              {session.user ? (
                <li>
                  <button type="button" className="header-button" onClick={() => void session.signOut()}>
                    {t('nav.signOut')}
                  </button>
                </li>
              ) : null}
            </ul>
          </nav>
          <LocaleSwitcher />
        </div>
      </header>
      <main id="main" className="app-main">
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
