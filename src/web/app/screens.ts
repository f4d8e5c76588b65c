/**
 * Which routes have their real screen already. Navigation and the home page link only to
 * these; the other routes of spec §2 exist and are guarded, and say that they are coming.
 * Each feature issue adds its route ids here when its screen lands.
 */
import type { RouteId } from '../../domain/routes';

export const AVAILABLE_SCREENS: ReadonlySet<RouteId> = new Set<RouteId>([
  'home',
  'profile',
  'login',
  'register',
  'registerCounseling',
  'confirmRegistration',
  'confirmEmailChange',
  'confirmReset',
  'resendConfirmation',
  'resetPassword',
  'about',
  'faq',
  'privacy',
  'imprint',
  'downloads',
  'conditionsTherapy',
  'conditionsCounseling',
  'interview',
  'layoutSample',
  'pagesSample',
  'pagesSample2',
  'allImages',
  'conversation',
  'adminCases',
  'adminCase',
  'adminCaseLog',
  'adminInterviewCalendar',
  'interviewBooking',
  'interviewManage',
  'interviewReports',
  'measurementScreening',
  'measurementPre',
  'measurementPost',
  'measurementFu1',
  'measurementFu2',
  'surveys',
  'adminTasks',
  'adminTask',
  'workflows',
  'due',
  'adminTemplates',
  'pastLetters',
  'allExercises',
]);

export function isAvailable(id: RouteId): boolean {
  return AVAILABLE_SCREENS.has(id);
}
