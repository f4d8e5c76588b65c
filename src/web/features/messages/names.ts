import type { TFunction } from 'i18next';
import type { Person } from './api';
import { displayName } from '../../../domain/patient-path';

/** How a person is named on screen: the alias they chose, else their username. */
export function personName(person: Pick<Person, 'alias' | 'username'> | null | undefined): string | null {
  if (!person) return null;
  return person.alias?.trim() || person.username;
}

/**
 * The sender line of a message: "you", the system, the person, or someone no longer visible. A
 * patient never reads a staff username (issue 25: "demo-interviewer"): without a chosen name the
 * sender is their care team, as in the one display-name rule of the patient path (displayName).
 */
export function senderName(t: TFunction, message: { fromSystem: boolean; senderId: string | null; sender: Person | null }, myId: string | undefined, readerIsPatient = false): string {
  if (message.fromSystem) return t('messages.system');
  if (message.senderId && message.senderId === myId) return t('messages.you');
  if (readerIsPatient && message.sender) return displayName(message.sender, t('patientPath.careTeamMember'));
  return personName(message.sender) ?? t('messages.formerMember');
}
