import { useTranslation } from 'react-i18next';
import { addressedGroups, groupsForReader, messageHeadline } from '../../../domain/messages';
import { useSession } from '../../session/session';
import { useClock } from '../../ui/useClock';
import { senderName } from './names';
import type { CaseMessage } from './api';

interface MessageItemProps {
  message: CaseMessage;
  open: boolean;
  myId: string | undefined;
  onToggle(): void;
  /** Missing for people who are not in the case: only members keep favourites. */
  onFavorite?: (() => void) | undefined;
  onReply?: (() => void) | undefined;
}

/** The recipient groups of a message as one translated line. */
export function RecipientLine({ message }: { message: CaseMessage }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const groups = groupsForReader(addressedGroups(message), Boolean(user?.is_patient_account)).map((g) => (g === 'you' ? t('patientPath.toYou') : t(`messages.groups.${g}`)));
  return <p className="muted message__to">{t('messages.toLine', { groups: groups.join(t('messages.listSeparator')) })}</p>;
}

/**
 * One sent message: a button opens its full text below it (the read view), a star keeps it as
 * the person's favourite. Subject and body are the writer's own text, so their direction is
 * left to the browser (`dir="auto"`): Arabic and Latin text each run their own way.
 */
export function MessageItem({ message, open, myId, onToggle, onFavorite, onReply }: MessageItemProps) {
  const clock = useClock();
  const { t } = useTranslation();
  const bodyId = `message-${message.id}`;
  const unread = Boolean(message.isUnread);
  const favorite = Boolean(message.isFavorite);
  const { user } = useSession();
  const headline = messageHeadline(message.subject, message.body) ?? t('messages.noSubject');
  return (
    <li className={unread ? 'message message--unread' : 'message'}>
      <div className="message__head">
        <button type="button" className="message__toggle" aria-expanded={open} aria-controls={open ? bodyId : undefined} onClick={onToggle}>
          {unread ? <span className="pill">{t('messages.unread')}</span> : null}
          <span className="message__subject" dir="auto">
            {headline}
          </span>
          <span className="message__meta">
            <span dir="auto">{senderName(t, message, myId, Boolean(user?.is_patient_account))}</span>
            {' · '}
            <time dateTime={message.sentAt ?? message.createdAt}>{clock.dateTime(message.sentAt ?? message.createdAt)}</time>
          </span>
        </button>
        {onFavorite ? (
          <button type="button" className="icon-button" aria-pressed={favorite} aria-label={t('messages.favorite')} title={t('messages.favorite')} onClick={onFavorite}>
            <span aria-hidden="true">{favorite ? '★' : '☆'}</span>
          </button>
        ) : null}
      </div>
      {open ? (
        <div id={bodyId} className="message__read" role="region" aria-label={headline}>
          <RecipientLine message={message} />
          <div className="message__body" dir="auto">
            {message.body}
          </div>
          {onReply ? (
            <div className="button-row">
              <button type="button" className="button button--secondary button--small" onClick={onReply}>
                {t('messages.reply')}
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
