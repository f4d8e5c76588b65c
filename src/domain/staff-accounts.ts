/**
 * Staff account administration (issue 27, item 6): the roles a coordinator gives, in the order
 * the screen shows them; the same list as app_hidden.staff_roles_known() (0160).
 */
export const STAFF_ACCOUNT_ROLES = ['coordinator', 'interviewer', 'therapist', 'supervisor', 'supporter', 'counselor', 'tester'] as const;
export type StaffAccountRole = (typeof STAFF_ACCOUNT_ROLES)[number];

/** What a change record says an account was before or after. */
export interface StaffAccountState {
  roles: StaffAccountRole[];
  disabled: boolean;
}

export const STAFF_ACCOUNT_ACTIONS = ['invite', 'reinvite', 'roles', 'disable', 'enable'] as const;
