/**
 * The cast of a per-role test (who may read or write what, own case and other case): case A with
 * its patient and one member in each staff role of a case, a coordinator, an outsider who holds
 * every staff flag but belongs to no case, and case B with its own patient and therapist.
 */
import { CASE_ROLES } from '../../src/domain/roles';
import { addMember, type NewUser } from '../../src/server/admin/accounts';
import type { TestApp } from './app';
import type { Person } from './trial';

/** The staff roles of a case, in the order of CASE_ROLES. */
export const STAFF_ROLES = CASE_ROLES.filter((r) => r !== 'patient');
export type StaffRole = (typeof STAFF_ROLES)[number];
export type CastMember = 'patient' | StaffRole | 'coordinator' | 'outsider' | 'otherPatient' | 'otherTherapist';

export interface Cast {
  people: Record<CastMember, Person>;
  /** The patient's case, with every staff role. */
  caseA: string;
  /** The other patient's case, with the other therapist only. */
  caseB: string;
}

/**
 * Creates the cast in a fixed order (patient, staff roles, coordinator, outsider, other patient,
 * other therapist); `fields` adds account fields (alias, gender, locale) to whom a test needs them.
 */
export async function castOfRoles(t: TestApp, fields: Partial<Record<CastMember, Partial<NewUser>>> = {}): Promise<Cast> {
  const pool = t.database.db.pool;
  const people = {} as Record<CastMember, Person>;
  people.patient = await t.user({ flags: ['patient'], ...fields.patient });
  const caseA = people.patient.caseId!;
  for (const role of STAFF_ROLES) {
    people[role] = await t.user({ flags: [role], ...fields[role] });
    await addMember(pool, caseA, people[role].username, [role]);
  }
  people.coordinator = await t.user({ flags: ['coordinator'], ...fields.coordinator });
  people.outsider = await t.user({ flags: ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor'], ...fields.outsider });
  people.otherPatient = await t.user({ flags: ['patient'], ...fields.otherPatient });
  const caseB = people.otherPatient.caseId!;
  people.otherTherapist = await t.user({ flags: ['therapist'], ...fields.otherTherapist });
  await addMember(pool, caseB, people.otherTherapist.username, ['therapist']);
  return { people, caseA, caseB };
}
