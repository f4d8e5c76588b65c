/**
 * Where each signed-in person can go, in the order they need it: the shell's menu and the
 * home page read this. Every destination the person may open is listed once (spec §2 routes,
 * filtered by the access rules of spec §6); detail routes (a case, a task) are reached from
 * their lists.
 */
import { isStaff, type AccountFlags } from './roles';
import { bookingOpen, phaseDestinations } from './patient-path';
import { canAccess, routeById, type RouteId } from './routes';

export type HomeKind = 'patient' | 'counselor' | 'staff';

/** A counselor account without a staff flag is neither staff (spec §6) nor a patient. */
export function homeKind(flags: AccountFlags, isCounselor: boolean): HomeKind {
  if (isStaff(flags)) return 'staff';
  if (isCounselor) return 'counselor';
  return 'patient';
}

const ORDER: Record<HomeKind, RouteId[]> = {
  patient: ['home', 'conversation', 'surveys', 'interviewBooking', 'due', 'workflows', 'profile'],
  counselor: ['home', 'conversation', 'due', 'workflows', 'profile'],
  staff: [
    'home',
    'conversation',
    'adminCases',
    'adminTasks',
    'adminEngagement',
    'due',
    'workflows',
    'adminInterviewCalendar',
    'interviewManage',
    'interviewBooking',
    'interviewReports',
    'adminTemplates',
    'profile',
  ],
};

/**
 * The menu of a signed-in person: the routes of their kind that exist and they may open. A
 * patient's menu grows with their path (src/domain/patient-path.ts): once the treatment starts
 * (`stage` of their case), the worksheets and the letters follow the questionnaires.
 */
export function destinations(flags: AccountFlags, isCounselor: boolean, available: (id: RouteId) => boolean, stage: string | null = null): RouteId[] {
  const kind = homeKind(flags, isCounselor);
  let order = ORDER[kind];
  if (kind === 'patient' && stage) {
    const extra = phaseDestinations(stage);
    const at = order.indexOf('surveys') + 1;
    order = [...order.slice(0, at), ...extra, ...order.slice(at)].filter((id) => id !== 'interviewBooking' || bookingOpen(stage));
  }
  return order.filter((id) => available(id) && canAccess(routeById(id), flags));
}

/** The destinations kept on the bar of a phone (the rest are in the menu): home and messages. */
export const PHONE_BAR: readonly RouteId[] = ['home', 'conversation'];
