import type { TFunction } from 'i18next';
import type { Person } from './api';

/** How a person is named on screen: the alias they chose, else their username. */
export function personName(person: Pick<Person, 'alias' | 'username'> | null | undefined): string | null {
  if (!person) return null;
  return person.alias?.trim() || person.username;
}

/** The sender line of a message: "you", the system, the person, or someone no longer visible. */
export function senderName(t: TFunction, message: { fromSystem: boolean; senderId: string | null; sender: Person | null }, myId: string | undefined): string {
  if (message.fromSystem) return t('messages.system');
  if (message.senderId && message.senderId === myId) return t('messages.you');
  return personName(message.sender) ?? t('messages.formerMember');
}
