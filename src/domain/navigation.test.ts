import { describe, expect, it } from 'vitest';
import { destinations, homeKind } from './navigation';
import type { AccountFlags } from './roles';
import { canAccess, routeById } from './routes';

const none: AccountFlags = {
  isCoordinatorAccount: false,
  isInterviewerAccount: false,
  isTherapistAccount: false,
  isSupervisorAccount: false,
  isSupporterAccount: false,
  isPatientAccount: false,
};
const all = () => true;

describe('navigation', () => {
  it('tells patients, counselors and staff apart', () => {
    expect(homeKind({ ...none, isPatientAccount: true }, false)).toBe('patient');
    expect(homeKind(none, true)).toBe('counselor');
    expect(homeKind({ ...none, isTherapistAccount: true }, true)).toBe('staff');
  });

  it('gives a counselor no patient screens and no staff lists', () => {
    const list = destinations(none, true, all);
    expect(list).toEqual(['home', 'conversation', 'due', 'workflows', 'profile']);
  });

  it('gives a patient the questionnaires and booking', () => {
    expect(destinations({ ...none, isPatientAccount: true }, false, all)).toEqual(['home', 'conversation', 'surveys', 'interviewBooking', 'due', 'workflows', 'profile']);
  });

  it('gives a coordinator every staff destination, and a therapist only those they may open', () => {
    const coordinator = { ...none, isCoordinatorAccount: true };
    expect(destinations(coordinator, false, all)).toContain('adminTemplates');
    const therapist = destinations({ ...none, isTherapistAccount: true }, false, all);
    expect(therapist).toContain('adminCases');
    expect(therapist).not.toContain('interviewManage');
    expect(therapist).not.toContain('adminTemplates');
    for (const id of therapist) expect(canAccess(routeById(id), { ...none, isTherapistAccount: true })).toBe(true);
  });

  it('lists only screens that exist', () => {
    expect(destinations({ ...none, isPatientAccount: true }, false, (id) => id !== 'surveys')).not.toContain('surveys');
  });
});
