/**
 * The session of spec §4: signed out, then signed in once a token is obtained and the profile
 * loads. Token, current user and current case id live in session storage; sign-out clears
 * them, the caches and the error list.
 */
import { QueryObserver, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { isLocale, type Locale } from '../../domain/locales';
import { isInterviewerLevel } from '../../domain/roles';
import { api, ApiError, onSessionEnded, readToken, storeToken } from '../api/client';
import { useErrors } from '../features/errors/errors';
import { offersQuery } from '../features/interviews/api';
import { loadCases, type CaseSummary } from './api';
import { clearAllOutboxes } from './unsent-answers';
import { accountFlags, type Profile } from './profile';

const USER_KEY = 'currentUser';
const CASE_KEY = 'currentCaseId';

export type { CaseSummary };

export interface Session {
  token: string | null;
  user: Profile | null;
  cases: CaseSummary[];
  currentCaseId: string | null;
  /** The last sign-in failure (wrong credentials, locked, unconfirmed), for the login screen. */
  failedLogin: ApiError | null;
  /** `code`: the second factor's code or a recovery code, when the person has one (issue 30). */
  signIn(login: string, password: string, code?: string): Promise<Profile>;
  signOut(): Promise<void>;
  reloadProfile(): Promise<void>;
  setUser(profile: Profile): void;
  setCurrentCase(caseId: string): void;
}

const SessionContext = createContext<Session | null>(null);

function readStoredUser(): Profile | null {
  try {
    const raw = sessionStorage.getItem(USER_KEY);
    return raw ? (JSON.parse(raw) as Profile) : null;
  } catch {
    return null;
  }
}

const LOCALE_CHOICE_KEY = 'localeChosenBeforeSignIn';

/** A language chosen on a signed-out screen, kept for the sign-in that follows. */
export function rememberLocaleChoice(locale: Locale): void {
  sessionStorage.setItem(LOCALE_CHOICE_KEY, locale);
}

/**
 * The language chosen before signing in becomes the profile's, so mails follow it too (issue 26:
 * staff who chose German got Arabic mails). Only an explicit choice counts, never the default.
 */
async function storeLocaleChoice(profile: Profile, setUser: (profile: Profile) => void): Promise<Profile> {
  const chosen = sessionStorage.getItem(LOCALE_CHOICE_KEY);
  sessionStorage.removeItem(LOCALE_CHOICE_KEY);
  if (!isLocale(chosen) || chosen === profile.locale) return profile;
  try {
    const updated = await api<Profile>('PATCH', '/api/auth/users/me', { body: { locale: chosen } });
    setUser(updated);
    return updated;
  } catch {
    // The profile keeps its language; the person can change it on /profile.
    return profile;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const errors = useErrors();
  const [token, setToken] = useState<string | null>(() => readToken());
  const [user, setUserState] = useState<Profile | null>(() => (readToken() ? readStoredUser() : null));
  const [cases, setCases] = useState<CaseSummary[]>([]);
  const [currentCaseId, setCurrentCaseId] = useState<string | null>(() => sessionStorage.getItem(CASE_KEY));
  const [failedLogin, setFailedLogin] = useState<ApiError | null>(null);
  const queryClient = useQueryClient();
  /** Spec §4 Session: the offers watch of an interviewer-level user, from sign-in to sign-out. */
  const offersWatch = useRef<(() => void) | null>(null);

  const stopWatchingOffers = useCallback(() => {
    offersWatch.current?.();
    offersWatch.current = null;
  }, []);

  const watchOffers = useCallback(
    (profile: Profile) => {
      const flags = accountFlags(profile);
      if (offersWatch.current || !flags || !isInterviewerLevel(flags)) return;
      const observer = new QueryObserver(queryClient, offersQuery());
      offersWatch.current = observer.subscribe(() => undefined);
    },
    [queryClient],
  );

  const setUser = useCallback((profile: Profile | null) => {
    setUserState(profile);
    if (profile) sessionStorage.setItem(USER_KEY, JSON.stringify(profile));
    else sessionStorage.removeItem(USER_KEY);
  }, []);

  const setCurrentCase = useCallback((caseId: string | null) => {
    setCurrentCaseId(caseId);
    if (caseId) sessionStorage.setItem(CASE_KEY, caseId);
    else sessionStorage.removeItem(CASE_KEY);
  }, []);

  /** Data loads that follow a sign-in or a reload; the current case defaults to the first one. */
  const loadSessionData = useCallback(async () => {
    const profile = await api<Profile>('GET', '/api/auth/users/me');
    setUser(profile);
    watchOffers(profile);
    const loaded = await loadCases();
    setCases(loaded);
    const stored = sessionStorage.getItem(CASE_KEY);
    if (!stored || !loaded.some((c) => c.id === stored)) setCurrentCase(loaded[0]?.id ?? null);
    return profile;
  }, [setUser, setCurrentCase, watchOffers]);

  const clear = useCallback(() => {
    // Spec §4 Session: stop watching offers, then drop every kept answer (offers, the offer
    // being edited and everything else) with the token, user, current case and error list.
    stopWatchingOffers();
    queryClient.clear();
    storeToken(null);
    setToken(null);
    setUser(null);
    setCases([]);
    setCurrentCase(null);
    errors.clearAll();
  }, [errors, setUser, setCurrentCase, stopWatchingOffers, queryClient]);

  const reloadProfile = useCallback(async () => {
    try {
      await loadSessionData();
    } catch (error) {
      // Spec §8: a failed profile load is only logged.
      console.warn('profile load failed', error);
    }
  }, [loadSessionData]);

  useEffect(() => {
    if (token) void reloadProfile();
    // Only on first mount: later sign-ins load their own data.
  }, []);

  useEffect(() => onSessionEnded(clear), [clear]);

  const signIn = useCallback(
    async (login: string, password: string, code?: string) => {
      try {
        const { encoded } = await api<{ encoded: string }>('POST', '/api/auth/tokens', {
          body: { username: login, password, ...(code ? { code } : {}) },
          anonymous: true,
        });
        storeToken(encoded);
        setToken(encoded);
        setFailedLogin(null);
        const profile = await loadSessionData();
        return await storeLocaleChoice(profile, setUser);
      } catch (error) {
        // Spec §8: a failed login sets the failed-login flag and rethrows.
        setFailedLogin(error instanceof ApiError ? error : new ApiError(0, 'unknown', String(error)));
        throw error;
      }
    },
    [loadSessionData],
  );

  const signOut = useCallback(async () => {
    if (readToken()) {
      try {
        await api('DELETE', '/api/auth/tokens/current');
      } catch {
        // The token may already be invalid; signing out locally is what matters.
      }
    }
    // Unsent questionnaire answers stay on a device only while their author is signed in.
    clearAllOutboxes(localStorage);
    clear();
  }, [clear]);

  const value = useMemo<Session>(
    () => ({ token, user, cases, currentCaseId, failedLogin, signIn, signOut, reloadProfile, setUser, setCurrentCase }),
    [token, user, cases, currentCaseId, failedLogin, signIn, signOut, reloadProfile, setUser, setCurrentCase],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
