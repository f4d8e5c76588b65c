/**
 * The worksheets of one case for its care team (mounted on the case page): each worksheet's
 * state and sent entries, the feedback already sent, and for therapists and counselors a
 * feedback form whose sending asks for confirmation (spec §8). Drafts are never shown here:
 * the database gives staff sent entries only.
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { WORKSHEET_CODES, type WorksheetCode } from '../../../domain/worksheets';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirm } from '../../ui/confirm';
import { Spinner, TextArea } from '../../ui/ui';
import { caseWorksheetsQuery, refetchAfterWorksheet, saveFeedback, type CaseWorksheets, type Feedback, type WorksheetEntry } from './api';
import { statesOf } from './AllExercisesPage';
import { EntryFields, FeedbackList, formatDate, StateBadge } from './WorksheetParts';
import './therapy.css';

export function CaseExercisesSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const query = useQuery(caseWorksheetsQuery(caseId));
  return (
    <section className="card" aria-labelledby="case-exercises">
      <h2 id="case-exercises">{t('therapy.caseExercisesTitle')}</h2>
      {query.error ? <ErrorAlert error={asApiError(query.error)} /> : query.isPending ? <Spinner /> : <Sheets caseId={caseId} data={query.data} />}
    </section>
  );
}

function Sheets({ caseId, data }: { caseId: string; data: CaseWorksheets }) {
  const { t } = useTranslation();
  const states = statesOf(data);
  return (
    <ul className="therapy-sheets">
      {WORKSHEET_CODES.map((code) => (
        <li key={code} className="therapy-sheet">
          <div className="therapy-sheet__head">
            <h3>{t(`therapy.sheet.${code}.title`)}</h3>
            <StateBadge state={states[code] === 'draft' ? 'todo' : states[code]} />
          </div>
          {data.entries[code].map((entry) => (
            <SentEntry key={entry.id} caseId={caseId} code={code} entry={entry} feedback={data.feedback.filter((f) => f.worksheet_id === entry.id)} />
          ))}
        </li>
      ))}
    </ul>
  );
}

function SentEntry({ caseId, code, entry, feedback }: { caseId: string; code: WorksheetCode; entry: WorksheetEntry; feedback: Feedback[] }) {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const mine = feedback.find((f) => !f.published_at && f.author_id === user?.id);
  return (
    <article className="therapy-entry therapy-entry--staff">
      <h4>{t('therapy.sentOn', { date: formatDate(entry.published_at!, i18n.language) })}</h4>
      <EntryFields code={code} entry={entry} />
      <FeedbackList feedback={feedback} />
      {feedback.some((f) => f.published_at) ? null : <FeedbackForm caseId={caseId} code={code} entryId={entry.id} draft={mine} />}
    </article>
  );
}

function FeedbackForm({ caseId, code, entryId, draft }: { caseId: string; code: WorksheetCode; entryId: string; draft: Feedback | undefined }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const client = useQueryClient();
  const [id] = useState(() => draft?.id ?? crypto.randomUUID());
  const [body, setBody] = useState(draft?.body ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  async function run(send: boolean) {
    if (send && !(await confirm({ title: t('therapy.confirmFeedbackTitle'), message: t('therapy.confirmSendMessage'), confirmLabel: t('therapy.send') }))) return;
    setBusy(true);
    setError(null);
    try {
      await saveFeedback({ id, case_id: caseId, worksheet: code, worksheet_id: entryId, body }, send);
      setSaved(!send);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
      await refetchAfterWorksheet(client, caseId);
    }
  }

  return (
    <form className="therapy-feedback-form" onSubmit={(e) => { e.preventDefault(); void run(true); }}>
      <TextArea label={t('therapy.feedbackLabel')} value={body} maxLength={20000} onChange={(e) => { setBody(e.target.value); setSaved(false); }} />
      {saved ? <p role="status">{t('therapy.feedbackDraftSaved')}</p> : null}
      <ErrorAlert error={error ? asApiError(error) : null} />
      <div className="button-row">
        <button type="submit" className="button button--small" disabled={busy || body.trim() === ''}>
          {t('therapy.sendFeedback')}
        </button>
        <button type="button" className="button button--secondary button--small" disabled={busy || body.trim() === ''} onClick={() => void run(false)}>
          {t('therapy.saveDraft')}
        </button>
      </div>
    </form>
  );
}
