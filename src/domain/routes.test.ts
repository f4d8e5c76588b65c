/**
 * The route table against spec §2 and every line of spec §6 "Route access": one row per
 * route, one column per kind of person, expected yes/no.
 */
import { describe, expect, it } from 'vitest';
import type { AccountFlags } from './roles';
import {
  canAccess,
  InvalidAccessRuleError,
  loginRedirect,
  matchRoute,
  requiresLogin,
  ROUTES,
  routeById,
  ruleMatches,
  safeReturnTo,
  type RouteId,
} from './routes';

const none: AccountFlags = {
  isCoordinatorAccount: false,
  isInterviewerAccount: false,
  isTherapistAccount: false,
  isSupervisorAccount: false,
  isSupporterAccount: false,
  isPatientAccount: false,
};
const people = {
  anonymous: null,
  patient: { ...none, isPatientAccount: true },
  coordinator: { ...none, isCoordinatorAccount: true },
  interviewer: { ...none, isInterviewerAccount: true },
  therapist: { ...none, isTherapistAccount: true },
  supervisor: { ...none, isSupervisorAccount: true },
  supporter: { ...none, isSupporterAccount: true },
  // a tester or counselor account has none of the six flags the rules look at
  other: { ...none },
} as const;
type Who = keyof typeof people;
const everyone: Who[] = ['anonymous', 'patient', 'coordinator', 'interviewer', 'therapist', 'supervisor', 'supporter', 'other'];
const signedIn: Who[] = everyone.filter((w) => w !== 'anonymous');
const staff: Who[] = ['coordinator', 'interviewer', 'therapist', 'supervisor', 'supporter'];

const expected: Record<RouteId, Who[]> = {
  // Coordinator: all staff screens, templates, interview booking, time-slot management, reports.
  adminTemplates: ['coordinator'],
  // Interviewer, therapist, supporter, supervisor: tasks, task detail, cases, case detail, log, calendar.
  adminTasks: staff,
  adminTask: staff,
  adminCases: staff,
  adminEngagement: ['coordinator', 'therapist', 'supporter'],
  adminCase: staff,
  adminCaseLog: staff,
  adminInterviewCalendar: staff,
  // Patient: interview booking. Interviewer also: time-slot management and reports.
  interviewBooking: ['patient', 'coordinator'],
  interviewManage: ['interviewer', 'coordinator'],
  interviewReports: ['interviewer', 'coordinator'],
  // Any signed-in user: measurements, home, profile, conversation, workflows.
  measurementScreening: signedIn,
  measurementPost: signedIn,
  measurementFu1: signedIn,
  measurementFu2: signedIn,
  home: signedIn,
  profile: signedIn,
  secondFactor: signedIn,
  conversation: signedIn,
  workflows: signedIn,
  // Everything else is public (spec §2 lists /messungen/pre and /frageboegen as open).
  measurementPre: everyone,
  surveys: everyone,
  due: everyone,
  layoutSample: everyone,
  confirmRegistration: everyone,
  confirmEmailChange: everyone,
  confirmReset: everyone,
  about: everyone,
  register: everyone,
  registerCounseling: everyone,
  resendConfirmation: everyone,
  conditionsCounseling: everyone,
  conditionsTherapy: everyone,
  login: everyone,
  resetPassword: everyone,
  interview: everyone,
  faq: everyone,
  privacy: everyone,
  imprint: everyone,
  downloads: everyone,
  pastLetters: everyone,
  allExercises: everyone,
  pagesSample: everyone,
  pagesSample2: everyone,
  allImages: everyone,
};

describe('route access (spec §6)', () => {
  for (const spec of ROUTES) {
    it(`${spec.path}`, () => {
      const allowed = everyone.filter((who) => canAccess(spec, people[who]));
      expect([...allowed].sort()).toEqual([...expected[spec.id]].sort());
    });
  }

  it('covers every route of spec §2 exactly once', () => {
    expect(ROUTES.map((r) => r.id).sort()).toEqual(Object.keys(expected).sort());
    expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
  });

  it('a person with several flags gets the union', () => {
    const both = { ...none, isPatientAccount: true, isInterviewerAccount: true };
    expect(canAccess(routeById('interviewBooking'), both)).toBe(true);
    expect(canAccess(routeById('interviewManage'), both)).toBe(true);
    expect(canAccess(routeById('adminTemplates'), both)).toBe(false);
  });
});

describe('rules', () => {
  it('a rule with neither a user match nor the signed-in flag throws', () => {
    expect(() => ruleMatches({}, people.coordinator)).toThrow(InvalidAccessRuleError);
    expect(() => canAccess({ rules: [{}] }, null)).toThrow('An authorization rule must have either a user match or the signed-in flag');
  });

  it('a route requires login when any rule is signed-in-only', () => {
    expect(requiresLogin(routeById('home'))).toBe(true);
    expect(requiresLogin(routeById('adminCases'))).toBe(false);
    expect(requiresLogin(routeById('login'))).toBe(false);
  });

  it('a user match needs every flag it names', () => {
    const rule = { userMatch: { isTherapistAccount: true, isSupervisorAccount: true } };
    expect(ruleMatches(rule, people.therapist)).toBe(false);
    expect(ruleMatches(rule, { ...none, isTherapistAccount: true, isSupervisorAccount: true })).toBe(true);
  });
});

describe('layouts and spinners (spec §2)', () => {
  it('uses the treatment layout for /layout-sample and blue by default', () => {
    expect(routeById('layoutSample').layout).toBe('treatment');
    expect(routeById('login').layout).toBe('blue');
    expect(routeById('adminCases').layout).toBe('blue');
  });
  it('shows no spinner on the task screens', () => {
    expect(routeById('adminTasks').spinner).toBe(false);
    expect(routeById('adminTask').spinner).toBe(false);
    expect(routeById('adminCases').spinner).toBe(true);
  });
});

describe('matching and redirects', () => {
  it('matches paths with parameters and trailing slashes', () => {
    expect(matchRoute('/admin/cases/abc-123/log')).toMatchObject({ spec: { id: 'adminCaseLog' }, params: { caseId: 'abc-123' } });
    expect(matchRoute('/admin/cases/abc-123')?.spec.id).toBe('adminCase');
    expect(matchRoute('/profile/')?.spec.id).toBe('profile');
    expect(matchRoute('/')?.spec.id).toBe('home');
    expect(matchRoute('/no/such/page')).toBeUndefined();
  });
  it('redirects to /login and returns only to local paths', () => {
    expect(loginRedirect('/admin/cases', '?stage=x')).toBe('/login?returnTo=%2Fadmin%2Fcases%3Fstage%3Dx');
    expect(safeReturnTo('/admin/cases?stage=x')).toBe('/admin/cases?stage=x');
    expect(safeReturnTo('https://evil.example')).toBe('/');
    expect(safeReturnTo('//evil.example')).toBe('/');
    expect(safeReturnTo(null)).toBe('/');
  });
});
