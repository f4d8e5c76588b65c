/**
 * The GraphQL operations of the conversation screen (spec §7 AllMessagesInCase,
 * CreateCaseMessage, UpdateCaseMessageById, DeleteCaseMessageById, UpdateNewMessagesAfter,
 * UpdateFavoriteMessage), with the shapes the screen reads. Plain fetch through graphql().
 */
import type { Involvement, RecipientFlags } from '../../../domain/messages';
import { graphql } from '../../api/client';

export interface Person {
  id: string;
  username: string;
  alias: string | null;
}

export interface CaseMessage extends RecipientFlags {
  id: string;
  caseId: string;
  subject: string | null;
  body: string;
  createdAt: string;
  sentAt: string | null;
  senderId: string | null;
  fromSystem: boolean;
  isUnread: boolean | null;
  isFavorite: boolean | null;
  sender: Person | null;
}

/**
 * My membership. `newMessagesAfter` is left out on purpose: the contract declares it non-null,
 * but a member who never read anything has '-infinity', which the API cannot serialise, so
 * asking for it fails the whole query. `isUnread` on each message carries what the screen needs.
 */
export interface MyInvolvement extends Involvement {
  id: string;
  favoriteMessage: string | null;
}

export interface OtherMember extends Involvement {
  id: string;
  userId: string;
}

export interface Conversation {
  id: string;
  shortId: string;
  title: string | null;
  myInvolvement: MyInvolvement | null;
  othersList: OtherMember[] | null;
  unsentMessagesList: CaseMessage[] | null;
  sentMessagesList: CaseMessage[] | null;
}

const ACTS_AS = 'actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient';

export const MESSAGE_FIELDS = `fragment MessageFields on CaseMessage {
  id caseId subject body createdAt sentAt senderId fromSystem isUnread isFavorite
  toTherapists toSupervisors toSupporters toCounselors toInterviewers toPatients
  sender: userBySenderId { id username alias }
}`;

export async function loadConversation(caseId: string): Promise<Conversation | null> {
  const data = await graphql<{ caseById: Conversation | null }>(
    `query AllMessagesInCase($caseId: UUID!) {
      caseById(id: $caseId) {
        id shortId title
        myInvolvement { id favoriteMessage ${ACTS_AS} }
        othersList { id userId ${ACTS_AS} }
        unsentMessagesList { ...MessageFields }
        sentMessagesList { ...MessageFields }
      }
    }
    ${MESSAGE_FIELDS}`,
    { caseId },
  );
  return data.caseById;
}

export interface MyCase {
  caseId: string;
  case: { id: string; shortId: string; title: string | null; newMessages: number | null; patient: Person | null } | null;
}

/** The cases the signed-in person is a member of, for the staff case switcher. */
export async function loadMyCases(): Promise<MyCase[]> {
  const data = await graphql<{ currentUser: { caseMembersByUserIdList: MyCase[] } | null }>(
    `query MyCases {
      currentUser {
        caseMembersByUserIdList(orderBy: CREATED_AT_DESC) {
          caseId
          case: caseByCaseId { id shortId title newMessages patient { id username alias } }
        }
      }
    }`,
  );
  return data.currentUser?.caseMembersByUserIdList ?? [];
}

export interface MessageDraft extends RecipientFlags {
  subject: string | null;
  body: string;
}

/** Creates a message; `send` asks the server to send it at once (the server stamps the time). */
export async function createMessage(caseId: string, message: MessageDraft, send: boolean): Promise<{ id: string; sentAt: string | null }> {
  const data = await graphql<{ createCaseMessage: { caseMessage: { id: string; sentAt: string | null } } }>(
    `mutation CreateCaseMessage($message: CaseMessageInput!) {
      createCaseMessage(input: { caseMessage: $message }) { caseMessage { id sentAt } }
    }`,
    { message: { caseId, ...message, ...(send ? { sentAt: new Date().toISOString() } : {}) } },
  );
  return data.createCaseMessage.caseMessage;
}

/** Changes a draft; `send` sends it (sentAt is overwritten with the server's time). */
export async function updateMessage(id: string, patch: Partial<MessageDraft>, send: boolean): Promise<{ id: string; sentAt: string | null }> {
  const data = await graphql<{ updateCaseMessageById: { caseMessage: { id: string; sentAt: string | null } } }>(
    `mutation UpdateCaseMessageById($id: UUID!, $patch: CaseMessagePatch!) {
      updateCaseMessageById(input: { id: $id, caseMessagePatch: $patch }) { caseMessage { id sentAt } }
    }`,
    { id, patch: { ...patch, ...(send ? { sentAt: new Date().toISOString() } : {}) } },
  );
  return data.updateCaseMessageById.caseMessage;
}

export async function deleteMessage(id: string): Promise<void> {
  await graphql(`mutation DeleteCaseMessageById($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }`, { id });
}

/** Moves my last-read mark in a case (spec §7 UpdateNewMessagesAfter). */
export async function markRead(caseId: string, at: string): Promise<void> {
  await graphql(
    `mutation UpdateNewMessagesAfter($caseId: UUID!, $at: Datetime!) {
      updateNewMessagesAfter(input: { caseId: $caseId, newMessagesAfter: $at }) { caseMember { id } }
    }`,
    { caseId, at },
  );
}

export async function setFavorite(messageId: string, isFavorite: boolean): Promise<void> {
  await graphql(
    `mutation UpdateFavoriteMessage($messageId: UUID!, $isFavorite: Boolean!) {
      updateFavoriteMessage(input: { messageId: $messageId, isFavorite: $isFavorite }) { caseMember { id favoriteMessage } }
    }`,
    { messageId, isFavorite },
  );
}
