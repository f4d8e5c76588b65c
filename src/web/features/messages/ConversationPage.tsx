/**
 * The case conversation (route /conversation, spec §2): the current case's messages for the
 * signed-in person, their drafts, and the composer. Staff switch between their cases here;
 * a patient has one case. What anybody sees is decided by the database (0006-messages.sql).
 */
import { isolateIdent } from '../../../domain/bidi';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { addressedGroups, conversationCase, readMarkAfter, replyGroups, sortMessages } from '../../../domain/messages';
import { isStaff } from '../../../domain/roles';
import { shortId } from '../../../domain/short-id';
import type { ApiError } from '../../api/client';
import { accountFlags } from '../../session/profile';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, SelectField, Spinner } from '../../ui/ui';
import { Composer, confirmSendFinal, type ComposerStart } from './Composer';
import { DraftItem } from './DraftItem';
import { MessageItem } from './MessageItem';
import { personName } from './names';
import { conversationQuery, deleteMessage, markRead, myCasesQuery, refetchAfterMessageAction, setFavorite, updateMessage, type CaseMessage } from './api';

const EMPTY_START: ComposerStart = { draftId: null, subject: '', body: '', groups: [] };

/**
 * A care-team member's cases (staff and counselors), to choose which conversation to read,
 * each with my unread count. It never switches by itself: the case shown is the one asked for.
 */
function CaseSwitcher({ currentCaseId, onSwitch }: { currentCaseId: string | null; onSwitch(caseId: string): void }) {
  const { t } = useTranslation();
  const { data: cases } = useQuery(myCasesQuery());
  if (!cases) return null;
  const options = cases.flatMap((c) => {
    if (!c.case) return [];
    const label = [isolateIdent(c.case.shortId), personName(c.case.patient) ?? c.case.title].filter(Boolean).join(' · ');
    return [{ value: c.caseId, label: c.case.newMessages ? t('messages.caseOptionNew', { label, count: Number(c.case.newMessages) }) : label }];
  });
  // A coordinator may be looking at a case they are not a member of: keep it selectable.
  if (currentCaseId && !options.some((o) => o.value === currentCaseId)) options.unshift({ value: currentCaseId, label: isolateIdent(shortId(currentCaseId)) });
  if (options.length < 2) return null;
  return (
    <div className="toolbar">
      <SelectField label={t('messages.case')} value={currentCaseId ?? ''} options={options} onChange={(e) => onSwitch(e.target.value)} />
    </div>
  );
}

interface ConversationViewProps {
  caseId: string;
  onDirtyChange(dirty: boolean): void;
}

/** The lists and the composer of one case. */
function ConversationView({ caseId, onDirtyChange }: ConversationViewProps) {
  const { t } = useTranslation();
  const { user } = useSession();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const conversation = useQuery(conversationQuery(caseId));
  const data = conversation.data;
  const loadError = conversation.error;
  const [openId, setOpenId] = useState<string | null>(null);
  const [composer, setComposer] = useState<(ComposerStart & { key: number }) | null>(null);
  const [composerDirty, setComposerDirty] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Counts "send" clicks on a draft whose open copy is unsaved: each shows and focuses the hint. */
  const [saveFirst, setSaveFirst] = useState(0);
  const nextKey = useRef(1);
  const writeButton = useRef<HTMLButtonElement>(null);
  const reload = useCallback(() => refetchAfterMessageAction(queryClient, caseId), [queryClient, caseId]);
  /** Runs an action on the lists: one at a time, errors shown, the lists refetched after. */
  const action = useMutation({
    mutationFn: ({ run }: { id: string; run: () => Promise<unknown>; success?: string }) => run(),
    onMutate: () => {
      setNotice(null);
      setSaveFirst(0);
    },
    onSuccess: (_result, { success }) => {
      if (success) setNotice(success);
    },
    onSettled: () => reload(),
  });
  const busyId = action.isPending ? action.variables.id : null;
  const act = (id: string, run: () => Promise<unknown>, success?: string) => action.mutateAsync({ id, run, ...(success ? { success } : {}) }).catch(() => undefined);

  const trackDirty = useCallback(
    (dirty: boolean) => {
      setComposerDirty(dirty);
      if (!dirty) setSaveFirst(0);
      onDirtyChange(dirty);
    },
    [onDirtyChange],
  );

  if (data === undefined) return loadError ? <LoadFailed error={loadError} onRetry={() => void conversation.refetch()} /> : <Spinner />;
  if (data === null) return <Alert kind="info">{t('messages.caseNotFound')}</Alert>;

  const involvement = data.myInvolvement;
  const { drafts, sent } = sortMessages([...(data.unsentMessagesList ?? []), ...(data.sentMessagesList ?? [])]);
  const unreadCount = sent.filter((m) => m.isUnread).length;

  /** Closing the composer removes the focused element; focus returns to where writing starts. */
  const closeComposer = () => {
    setComposer(null);
    requestAnimationFrame(() => writeButton.current?.focus());
  };

  /** Opening the composer over unsaved text asks first (spec §8 "discard changes"). */
  const openComposer = async (start: ComposerStart) => {
    if (composerDirty && !(await confirm({ title: t('confirmPrompts.discardTitle'), message: t('confirmPrompts.discardMessage'), confirmLabel: t('confirmPrompts.discard'), danger: true }))) return;
    setNotice(null);
    setComposer({ ...start, key: nextKey.current++ });
  };

  /**
   * Reading an unread message moves my last-read mark up to it (unread means it was sent after
   * the mark, so this only ever moves forward), then the badge follows. Its own sentAt text is
   * sent back unchanged: the server keeps microseconds that a Date would round away.
   */
  const toggle = (message: CaseMessage) => {
    const opening = openId !== message.id;
    setOpenId(opening ? message.id : null);
    if (!opening || !message.isUnread || !message.sentAt || !involvement) return;
    const at = message.sentAt;
    void act(message.id, () => markRead(caseId, at));
  };

  const markAllRead = () => {
    // "Now", or the newest message's own time if the device's clock is behind the server's.
    const at = sent[0]?.sentAt ? readMarkAfter(new Date().toISOString(), sent[0].sentAt) : new Date().toISOString();
    void act('all', () => markRead(caseId, at));
  };

  const reply = (message: CaseMessage) => {
    const sender = data.othersList?.find((m) => m.userId === message.senderId) ?? null;
    const subject = message.subject?.trim() ?? '';
    void openComposer({
      draftId: null,
      subject: subject ? t('messages.replySubject', { subject }) : '',
      body: '',
      groups: replyGroups(sender, involvement),
    });
  };

  const editDraft = (draft: CaseMessage) => void openComposer({ draftId: draft.id, subject: draft.subject ?? '', body: draft.body, groups: addressedGroups(draft) });

  const sendDraft = async (draft: CaseMessage) => {
    // Sending the stored draft while its open copy has unsaved edits would send the old text.
    if (composer?.draftId === draft.id && composerDirty) {
      setSaveFirst((n) => n + 1);
      return;
    }
    // A draft without recipients cannot be sent; the composer says so and lets them choose.
    if (addressedGroups(draft).length === 0) return editDraft(draft);
    if (!(await confirmSendFinal(confirm, t))) return;
    if (composer?.draftId === draft.id) setComposer(null);
    void act(draft.id, () => updateMessage(draft.id, {}, true), t('messages.sentNotice'));
  };

  const deleteDraft = async (draft: CaseMessage) => {
    const sure = await confirm({ title: t('confirmPrompts.deleteDraftTitle'), message: t('confirmPrompts.deleteDraftMessage'), confirmLabel: t('messages.deleteDraft'), danger: true });
    if (!sure) return;
    if (composer?.draftId === draft.id) setComposer(null);
    await act(draft.id, () => deleteMessage(draft.id), t('messages.draftDeleted'));
  };

  return (
    <>
      <p className="muted">{t('messages.caseLine', { shortId: isolateIdent(data.shortId) })}</p>
      {involvement ? null : <Alert kind="info">{t('messages.notMember')}</Alert>}
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {saveFirst > 0 && composerDirty ? (
        <Alert kind="warning" focusOnShow focusKey={saveFirst}>
          {t('confirmPrompts.saveFirst')}
        </Alert>
      ) : null}
      <ErrorAlert error={action.error ?? loadError} />
      {involvement && !composer ? (
        <div className="button-row toolbar">
          <button ref={writeButton} type="button" className="button" onClick={() => void openComposer(EMPTY_START)}>
            {t('messages.write')}
          </button>
          {unreadCount > 0 ? (
            <button type="button" className="button button--secondary" disabled={busyId !== null} onClick={markAllRead}>
              {t('messages.markAllRead')}
            </button>
          ) : null}
        </div>
      ) : null}
      {involvement && composer ? (
        <Composer
          key={composer.key}
          caseId={caseId}
          involvement={involvement}
          start={composer}
          onClose={closeComposer}
          onSaved={(draftId) => {
            // The composer now edits this stored draft (a new one has just got its id).
            setComposer((open) => (open ? { ...open, draftId } : open));
            void reload();
          }}
          onSent={() => {
            closeComposer();
            setNotice(t('messages.sentNotice'));
            void reload();
          }}
          onDirtyChange={trackDirty}
        />
      ) : null}
      {drafts.length > 0 ? (
        <section aria-labelledby="drafts-title">
          <h2 id="drafts-title">{t('messages.drafts')}</h2>
          <ul className="message-list">
            {drafts.map((draft) => (
              <DraftItem
                key={draft.id}
                draft={draft}
                busy={busyId !== null}
                onEdit={() => editDraft(draft)}
                onSend={() => void sendDraft(draft)}
                onDelete={() => void deleteDraft(draft)}
              />
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="sent-title">
        <h2 id="sent-title">{t('messages.sentTitle')}</h2>
        {sent.length === 0 ? (
          <p className="muted">{t('messages.none')}</p>
        ) : (
          <ul className="message-list">
            {sent.map((message) => (
              <MessageItem
                key={message.id}
                message={message}
                open={openId === message.id}
                myId={user?.id}
                onToggle={() => toggle(message)}
                onFavorite={involvement ? () => void act(message.id, () => setFavorite(message.id, !message.isFavorite)) : undefined}
                onReply={involvement && message.senderId !== user?.id && !message.fromSystem ? () => reply(message) : undefined}
              />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function LoadFailed({ error, onRetry }: { error: ApiError; onRetry(): void }) {
  const { t } = useTranslation();
  return (
    <>
      <ErrorAlert error={error} />
      <button type="button" className="button button--secondary" onClick={onRetry}>
        {t('errors.retry')}
      </button>
    </>
  );
}

export function ConversationPage() {
  const { t } = useTranslation();
  const session = useSession();
  const confirm = useConfirm();
  const [params, setParams] = useSearchParams();
  const flags = accountFlags(session.user);
  // Counselors work on several cases too, so they switch like staff (spec §2 /conversation).
  const switches = flags ? isStaff(flags) || Boolean(session.user?.is_counselor_account) : false;
  const { data: myCases } = useQuery({ ...myCasesQuery(), enabled: switches });
  const requested = params.get('case');
  const pickerCases = (myCases ?? []).flatMap((c) => (c.case ? [c.case] : []));
  // Until my cases have loaded, a staff member without a chosen case waits rather than guessing.
  const caseId = switches && !requested && !session.currentCaseId && !myCases ? null : conversationCase(requested, session.currentCaseId, pickerCases);
  // The case shown becomes the session's current case, so other screens follow it.
  useEffect(() => {
    if (caseId && caseId !== session.currentCaseId) session.setCurrentCase(caseId);
  }, [caseId, session]);
  // The composer's unsaved state, so switching the case can ask before it discards text.
  const dirty = useRef(false);
  const onDirtyChange = useCallback((value: boolean) => {
    dirty.current = value;
  }, []);

  const switchCase = async (next: string) => {
    if (dirty.current && !(await confirm({ title: t('confirmPrompts.discardTitle'), message: t('confirmPrompts.discardMessage'), confirmLabel: t('confirmPrompts.discard'), danger: true }))) return;
    dirty.current = false;
    session.setCurrentCase(next);
    setParams({ case: next }, { replace: true });
  };

  return (
    <Page title={t('nav.conversation')}>
      {switches ? <CaseSwitcher currentCaseId={caseId} onSwitch={(id) => void switchCase(id)} /> : null}
      {caseId ? <ConversationView key={caseId} caseId={caseId} onDirtyChange={onDirtyChange} /> : switches && !myCases ? <Spinner /> : <p>{t('messages.noCase')}</p>}
    </Page>
  );
}
