import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import { RecipientLine } from './MessageItem';
import type { CaseMessage } from './api';

const EXCERPT_LENGTH = 140;

interface DraftItemProps {
  draft: CaseMessage;
  busy: boolean;
  onEdit(): void;
  onSend(): void;
  onDelete(): void;
}

/** One of my drafts (spec §4: unsent until sentAt is set) with edit, send and delete. */
export function DraftItem({ draft, busy, onEdit, onSend, onDelete }: DraftItemProps) {
  const clock = useClock();
  const { t } = useTranslation();
  const subject = draft.subject?.trim() || t('messages.noSubject');
  const excerpt = draft.body.length > EXCERPT_LENGTH ? `${draft.body.slice(0, EXCERPT_LENGTH)}…` : draft.body;
  return (
    <li className="message message--draft">
      <p className="message__subject" dir="auto">
        {subject}
      </p>
      <p className="muted">
        {t('messages.createdAt', { time: clock.dateTime(draft.createdAt) })}
      </p>
      <RecipientLine message={draft} />
      <p className="message__excerpt" dir="auto">
        {excerpt}
      </p>
      <div className="button-row">
        <button type="button" className="button button--secondary button--small" onClick={onEdit} disabled={busy}>
          {t('messages.editDraft')}
          <span className="visually-hidden" dir="auto">
            {' '}
            {subject}
          </span>
        </button>
        <button type="button" className="button button--small" onClick={onSend} disabled={busy}>
          {t('common.send')}
          <span className="visually-hidden" dir="auto">
            {' '}
            {subject}
          </span>
        </button>
        <button type="button" className="button button--secondary button--small" onClick={onDelete} disabled={busy}>
          {t('messages.deleteDraft')}
          <span className="visually-hidden" dir="auto">
            {' '}
            {subject}
          </span>
        </button>
      </div>
    </li>
  );
}
