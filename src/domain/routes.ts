/**
 * The route table of spec §2 and its access rules, as pure data and functions: the web app's
 * router is generated from it, and the unit tests check it against every line of spec §6.
 * The server never relies on these rules (row-level security does); they decide what the web
 * app shows and where it sends a person.
 */
import type { AccountFlags } from './roles';

export type Layout = 'blue' | 'development' | 'treatment';

/** An access rule: either "signed in" or a match on account flags (spec §2). */
export interface AccessRule {
  signedIn?: true;
  userMatch?: Partial<AccountFlags>;
}

/** Sections that load on demand (spec §2); each becomes its own JavaScript chunk. */
export type Section =
  | 'main'
  | 'account'
  | 'assessments'
  | 'conditionsCounseling'
  | 'conditionsTherapy'
  | 'registerCounseling'
  | 'confirmEmailChange'
  | 'confirmPasswordReset'
  | 'confirmRegistration'
  | 'manage'
  | 'resendConfirmation'
  | 'staff'
  | 'interviews'
  | 'content';

export type RouteId =
  | 'adminTemplates'
  | 'adminTasks'
  | 'adminEngagement'
  | 'adminTask'
  | 'adminCases'
  | 'adminCase'
  | 'adminCaseLog'
  | 'adminInterviewCalendar'
  | 'interviewBooking'
  | 'interviewManage'
  | 'interviewReports'
  | 'measurementScreening'
  | 'measurementPre'
  | 'measurementPost'
  | 'measurementFu1'
  | 'measurementFu2'
  | 'surveys'
  | 'workflows'
  | 'conversation'
  | 'home'
  | 'profile'
  | 'secondFactor'
  | 'due'
  | 'layoutSample'
  | 'confirmRegistration'
  | 'confirmEmailChange'
  | 'confirmReset'
  | 'about'
  | 'register'
  | 'registerCounseling'
  | 'resendConfirmation'
  | 'conditionsCounseling'
  | 'conditionsTherapy'
  | 'login'
  | 'resetPassword'
  | 'interview'
  | 'faq'
  | 'privacy'
  | 'imprint'
  | 'downloads'
  | 'pastLetters'
  | 'allExercises'
  | 'pagesSample'
  | 'pagesSample2'
  | 'allImages';

export interface RouteSpec {
  id: RouteId;
  path: string;
  rules: AccessRule[];
  layout: Layout;
  /** Spec §2 "Some routes have no loading spinner". */
  spinner: boolean;
  section: Section;
}

const SIGNED_IN: AccessRule[] = [{ signedIn: true }];
const OPEN: AccessRule[] = [];
const COORDINATOR: AccessRule[] = [{ userMatch: { isCoordinatorAccount: true } }];
/** Spec §6: coordinator, interviewer, therapist, supporter, supervisor. */
const STAFF: AccessRule[] = [
  { userMatch: { isCoordinatorAccount: true } },
  { userMatch: { isInterviewerAccount: true } },
  { userMatch: { isTherapistAccount: true } },
  { userMatch: { isSupporterAccount: true } },
  { userMatch: { isSupervisorAccount: true } },
];
/** Issue 32: the engagement radar is for those who reach out (coordinators, therapists, supporters). */
const ENGAGEMENT: AccessRule[] = [
  { userMatch: { isCoordinatorAccount: true } },
  { userMatch: { isTherapistAccount: true } },
  { userMatch: { isSupporterAccount: true } },
];
const PATIENT_OR_COORDINATOR: AccessRule[] = [{ userMatch: { isPatientAccount: true } }, { userMatch: { isCoordinatorAccount: true } }];
const INTERVIEWER_OR_COORDINATOR: AccessRule[] = [
  { userMatch: { isInterviewerAccount: true } },
  { userMatch: { isCoordinatorAccount: true } },
];

function route(id: RouteId, path: string, rules: AccessRule[], section: Section, options: { layout?: Layout; spinner?: boolean } = {}): RouteSpec {
  return { id, path, rules, section, layout: options.layout ?? 'blue', spinner: options.spinner ?? true };
}

export const ROUTES: readonly RouteSpec[] = [
  // Staff area
  route('adminTemplates', '/admin/templates', COORDINATOR, 'staff'),
  route('adminTasks', '/admin/tasks', STAFF, 'staff', { spinner: false }),
  route('adminTask', '/admin/tasks/:id', STAFF, 'staff', { spinner: false }),
  route('adminCases', '/admin/cases', STAFF, 'staff'),
  route('adminEngagement', '/admin/engagement', ENGAGEMENT, 'staff'),
  route('adminCase', '/admin/cases/:caseId', STAFF, 'staff'),
  route('adminCaseLog', '/admin/cases/:caseId/log', STAFF, 'staff'),
  route('adminInterviewCalendar', '/admin/interview-calendar', STAFF, 'staff'),
  // Interviews
  route('interviewBooking', '/interviews/booking', PATIENT_OR_COORDINATOR, 'interviews'),
  route('interviewManage', '/interviews/manage', INTERVIEWER_OR_COORDINATOR, 'manage'),
  route('interviewReports', '/interviews/reports', INTERVIEWER_OR_COORDINATOR, 'interviews'),
  // Measurements
  route('measurementScreening', '/messungen/screening', SIGNED_IN, 'assessments'),
  route('measurementPre', '/messungen/pre', OPEN, 'assessments'),
  route('measurementPost', '/messungen/post', SIGNED_IN, 'assessments'),
  route('measurementFu1', '/messungen/fu1', SIGNED_IN, 'assessments'),
  route('measurementFu2', '/messungen/fu2', SIGNED_IN, 'assessments'),
  route('surveys', '/frageboegen', OPEN, 'assessments'),
  // Other signed-in screens
  route('workflows', '/workflows', SIGNED_IN, 'main'),
  route('conversation', '/conversation', SIGNED_IN, 'main'),
  route('home', '/', SIGNED_IN, 'main'),
  route('profile', '/profile', SIGNED_IN, 'account'),
  // Issue 30: the staff second factor (set up, recovery codes; coordinators reset others).
  route('secondFactor', '/profile/second-factor', SIGNED_IN, 'account'),
  // Open screens
  route('due', '/due', OPEN, 'main'),
  route('layoutSample', '/layout-sample', OPEN, 'content', { layout: 'treatment' }),
  route('confirmRegistration', '/confirm-registration', OPEN, 'confirmRegistration'),
  route('confirmEmailChange', '/confirm-emailchange', OPEN, 'confirmEmailChange'),
  route('confirmReset', '/confirm-reset', OPEN, 'confirmPasswordReset'),
  route('about', '/about', OPEN, 'content'),
  route('register', '/register', OPEN, 'account'),
  route('registerCounseling', '/register-counseling', OPEN, 'registerCounseling'),
  route('resendConfirmation', '/resend-confirmation', OPEN, 'resendConfirmation'),
  route('conditionsCounseling', '/conditionsCounseling', OPEN, 'conditionsCounseling'),
  route('conditionsTherapy', '/conditionsTherapy', OPEN, 'conditionsTherapy'),
  route('login', '/login', OPEN, 'main'),
  route('resetPassword', '/reset-password', OPEN, 'account'),
  route('interview', '/interview', OPEN, 'content'),
  route('faq', '/faq', OPEN, 'content'),
  route('privacy', '/privacy', OPEN, 'content'),
  route('imprint', '/imprint', OPEN, 'content'),
  route('downloads', '/downloads', OPEN, 'content'),
  route('pastLetters', '/treatment/past-letters', OPEN, 'main'),
  route('allExercises', '/all-exercises', OPEN, 'main'),
  route('pagesSample', '/pages/sample', OPEN, 'content', { layout: 'development' }),
  route('pagesSample2', '/pages/sample2', OPEN, 'content', { layout: 'development' }),
  route('allImages', '/check/all-images', OPEN, 'content', { layout: 'development' }),
];

export class InvalidAccessRuleError extends Error {
  constructor() {
    super('An authorization rule must have either a user match or the signed-in flag');
    this.name = 'InvalidAccessRuleError';
  }
}

/** The signed-in person as the rules see them: account flags, or null when signed out. */
export type RuleSubject = AccountFlags | null;

/** Whether one rule grants access; a rule with neither part is a programming error. */
export function ruleMatches(rule: AccessRule, user: RuleSubject): boolean {
  if (rule.signedIn) return user !== null;
  if (rule.userMatch) {
    if (!user) return false;
    return Object.entries(rule.userMatch).every(([flag, wanted]) => user[flag as keyof AccountFlags] === wanted);
  }
  throw new InvalidAccessRuleError();
}

/** Any matching rule grants; a route without rules is public. */
export function canAccess(spec: Pick<RouteSpec, 'rules'>, user: RuleSubject): boolean {
  if (spec.rules.length === 0) return true;
  return spec.rules.some((rule) => ruleMatches(rule, user));
}

/** A route requires login when any of its rules is signed-in-only (spec §2). */
export function requiresLogin(spec: Pick<RouteSpec, 'rules'>): boolean {
  return spec.rules.some((rule) => rule.signedIn === true);
}

/** The route a path belongs to, matching `:params`; undefined for an unknown path. */
export function matchRoute(pathname: string): { spec: RouteSpec; params: Record<string, string> } | undefined {
  const clean = pathname.replace(/\/+$/, '') || '/';
  for (const spec of ROUTES) {
    const names: string[] = [];
    const pattern = spec.path.replace(/:[A-Za-z]+/g, (m) => {
      names.push(m.slice(1));
      return '([^/]+)';
    });
    const match = new RegExp(`^${pattern}$`).exec(clean);
    if (match) {
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
      return { spec, params };
    }
  }
  return undefined;
}

export function routeById(id: RouteId): RouteSpec {
  const found = ROUTES.find((r) => r.id === id);
  if (!found) throw new Error(`Unknown route ${id}`);
  return found;
}

/** Where a failed check sends a person: the login screen, remembering where they wanted to go. */
export function loginRedirect(pathname: string, search = ''): string {
  return `/login?returnTo=${encodeURIComponent(pathname + search)}`;
}

/** A safe return target after sign-in: only local paths, never another site. */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  return value;
}
