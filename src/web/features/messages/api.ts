/**
 * The messages feature's server calls (the worked example of src/web/api/README.md): the
 * documents of spec §7 (AllMessagesInCase, CreateCaseMessage, UpdateCaseMessageById,
 * DeleteCaseMessageById, UpdateNewMessagesAfter, UpdateFavoriteMessage), their query keys,
 * query options (the unread poll of spec §7/§9) and what each action refetches.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { Involvement } from '../../../domain/messages';
import { api } from '../../api/client';
import { graphql, request, type ResultOf } from '../../api/graphql';
import { POLL_MS } from '../../api/query';

export const PersonFields = graphql(`fragment PersonFields on User { id username alias }`);

export const MessageFields = graphql(
  `fragment MessageFields on CaseMessage {
    id caseId subject body createdAt sentAt senderId fromSystem isUnread isFavorite
    toTherapists toSupervisors toSupporters toCounselors toInterviewers toPatients
    sender: userBySenderId { ...PersonFields }
  }`,
  [PersonFields],
);

export type Person = ResultOf<typeof PersonFields>;
export type CaseMessage = ResultOf<typeof MessageFields>;

/**
 * My membership. `newMessagesAfter` is left out on purpose: the contract declares it non-null,
 * but a member who never read anything has '-infinity', which the API cannot serialise, so
 * asking for it fails the whole query. `isUnread` on each message carries what the screen needs.
 */
export interface MyInvolvement extends Involvement {
  id: string;
  favoriteMessage: string | null;
}

export const AllMessagesInCase = graphql(
  `query AllMessagesInCase($caseId: UUID!) {
    caseById(id: $caseId) {
      id shortId title
      myInvolvement { id favoriteMessage actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient }
      othersList { id userId actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient }
      unsentMessagesList { ...MessageFields }
      sentMessagesList { ...MessageFields }
    }
  }`,
  [MessageFields],
);
export type Conversation = NonNullable<ResultOf<typeof AllMessagesInCase>['caseById']>;

/** The cases I am a member of, newest first, with my unread count in each (the case picker). */
export const MyCases = graphql(
  `query MyCases {
    currentUser {
      id
      caseMembersByUserIdList(orderBy: CREATED_AT_DESC) {
        caseId
        case: caseByCaseId { id shortId title newMessages patient { ...PersonFields } latestMessage { id sentAt } }
      }
    }
  }`,
  [PersonFields],
);
export type MyCase = NonNullable<ResultOf<typeof MyCases>['currentUser']>['caseMembersByUserIdList'][number];

export const CreateCaseMessage = graphql(`
  mutation CreateCaseMessage($message: CaseMessageInput!) {
    createCaseMessage(input: { caseMessage: $message }) { caseMessage { id sentAt } }
  }
`);

export const UpdateCaseMessageById = graphql(`
  mutation UpdateCaseMessageById($id: UUID!, $patch: CaseMessagePatch!) {
    updateCaseMessageById(input: { id: $id, caseMessagePatch: $patch }) { caseMessage { id sentAt } }
  }
`);

export const DeleteCaseMessageById = graphql(`
  mutation DeleteCaseMessageById($id: UUID!) { deleteCaseMessageById(input: { id: $id }) { deletedCaseMessageId } }
`);

export const UpdateNewMessagesAfter = graphql(`
  mutation UpdateNewMessagesAfter($caseId: UUID!, $at: Datetime!) {
    updateNewMessagesAfter(input: { caseId: $caseId, newMessagesAfter: $at }) { caseMember { id } }
  }
`);

export const UpdateFavoriteMessage = graphql(`
  mutation UpdateFavoriteMessage($messageId: UUID!, $isFavorite: Boolean!) {
    updateFavoriteMessage(input: { messageId: $messageId, isFavorite: $isFavorite }) { caseMember { id favoriteMessage } }
  }
`);

/** Query keys: everything of the feature under 'messages', so one action can refetch it all. */
export const messageKeys = {
  all: ['messages'] as const,
  conversation: (caseId: string) => ['messages', 'conversation', caseId] as const,
  myCases: () => ['messages', 'my-cases'] as const,
  unread: () => ['messages', 'unread'] as const,
  templates: (caseId: string) => ['messages', 'templates', caseId] as const,
};

export const conversationQuery = (caseId: string) =>
  queryOptions({
    queryKey: messageKeys.conversation(caseId),
    queryFn: async () => (await request(AllMessagesInCase, { caseId })).caseById,
  });

/** A MESSAGE template the care team may insert in this case (by code; the server chose the variant). */
export interface MessageTemplateChoice {
  code: string;
  title: string;
}

/** A message template filled by the server for the case and the writer. */
export interface FilledMessageTemplate {
  code: string;
  language: string;
  subject: string | null;
  body: string;
}

/** The message templates of a case in its patient's language (the care team of the case only). */
export const messageTemplatesQuery = (caseId: string) =>
  queryOptions({
    queryKey: messageKeys.templates(caseId),
    queryFn: ({ signal }) => api<{ language: string | null; templates: MessageTemplateChoice[] }>('GET', `/api/cases/${caseId}/message-templates`, { signal }),
  });

/** One template filled for this case: the placeholders come from the server, never the browser. */
export function fillMessageTemplate(caseId: string, code: string): Promise<FilledMessageTemplate> {
  return api<FilledMessageTemplate>('GET', `/api/cases/${caseId}/message-templates/${encodeURIComponent(code)}`);
}

/** The staff case picker; polled with the unread count so its per-case counts stay current. */
export const myCasesQuery = () =>
  queryOptions({
    queryKey: messageKeys.myCases(),
    queryFn: async () => (await request(MyCases)).currentUser?.caseMembersByUserIdList ?? [],
    refetchInterval: POLL_MS,
  });

const UNREAD_PATH = '/api/my_messages?select=id,case_id,is_unread&is_unread=is.true';

/**
 * The unread count of the "Messages" badge. Spec §7/§9: GET /api/my_messages polled every
 * 60 s without a loading indicator; hidden tabs do not poll (the client's default); a failed
 * poll keeps the last count (the conversation screen shows the truth).
 */
export const unreadQuery = () =>
  queryOptions({
    queryKey: messageKeys.unread(),
    queryFn: async ({ signal }) => {
      const rows = await api<unknown>('GET', UNREAD_PATH, { signal });
      return Array.isArray(rows) ? rows.length : 0;
    },
    refetchInterval: POLL_MS,
    staleTime: POLL_MS,
  });

export interface MessageDraft {
  subject: string | null;
  body: string;
  toTherapists: boolean;
  toSupervisors: boolean;
  toSupporters: boolean;
  toCounselors: boolean;
  toInterviewers: boolean;
  toPatients: boolean;
}

/** Creates a message; `send` asks the server to send it at once (the server stamps the time). */
export async function createMessage(caseId: string, message: MessageDraft, send: boolean) {
  const data = await request(CreateCaseMessage, { message: { caseId, ...message, ...(send ? { sentAt: new Date().toISOString() } : {}) } });
  return data.createCaseMessage!.caseMessage!;
}

/** Spec §5: updating a message requires a message with an id. */
export const MESSAGE_ID_REQUIRED = 'Provide a message with an id';

/** Changes a draft; `send` sends it (sentAt is overwritten with the server's time). */
export async function updateMessage(id: string, patch: Partial<MessageDraft>, send: boolean) {
  if (!id) throw new Error(MESSAGE_ID_REQUIRED);
  const data = await request(UpdateCaseMessageById, { id, patch: { ...patch, ...(send ? { sentAt: new Date().toISOString() } : {}) } });
  return data.updateCaseMessageById!.caseMessage!;
}

export async function deleteMessage(id: string): Promise<void> {
  if (!id) throw new Error(MESSAGE_ID_REQUIRED);
  await request(DeleteCaseMessageById, { id });
}

/** Moves my last-read mark in a case (spec §7 UpdateNewMessagesAfter). */
export async function markRead(caseId: string, at: string): Promise<void> {
  await request(UpdateNewMessagesAfter, { caseId, at });
}

export async function setFavorite(messageId: string, isFavorite: boolean): Promise<void> {
  await request(UpdateFavoriteMessage, { messageId, isFavorite });
}

/**
 * Spec §4 Messages: after a message is added, changed, deleted or read, the case's messages,
 * my unread counts (the badge and the case picker) and the case pages showing them are
 * refetched. The one place that says so.
 */
export function refetchAfterMessageAction(client: QueryClient, caseId: string): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: messageKeys.all }),
    client.invalidateQueries({ queryKey: ['cases', 'detail', caseId] }),
    client.invalidateQueries({ queryKey: ['cases', 'list'] }),
  ]).then(() => undefined);
}
