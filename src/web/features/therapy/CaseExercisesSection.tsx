/**
 * The worksheets of one case for its care team (mounted on the case page): first the worksheets
 * the treatment assigned (treatment modules), each with its due date or how it ended and its
 * state; then every worksheet with its sent entries, the feedback already sent, and for
 * therapists and counselors a feedback form whose sending asks for confirmation (spec §8).
 * Drafts are never shown or hinted at: the database gives staff sent entries only, so a
 * worksheet without a sent entry is "not sent yet".
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { staffWorksheetState, WORKSHEET_CODES, type StaffWorksheetState, type WorksheetCode } from '../../../domain/worksheets';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirm } from '../../ui/confirm';
import { Spinner, TextArea } from '../../ui/ui';
import { caseWorksheetsQuery, entriesWithFeedback, refetchAfterWorksheet, saveFeedback, worksheetTasksQuery, type CaseWorksheets, type Feedback, type WorksheetEntry, type WorksheetTask } from './api';
import { assignedFirst } from './AllExercisesPage';
import { OutOfArmSend } from '../arms/OutOfArmSend';
import { caseSheetsQuery } from '../arms/api';
import { EntryFields, FeedbackList } from './WorksheetParts';
import { useClock } from '../../ui/useClock';
import './therapy.css';

export function CaseExercisesSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const query = useQuery(caseWorksheetsQuery(caseId));
  const tasks = useQuery(worksheetTasksQuery(caseId));
  // The sheets the case may use (its arm's and those sent in, issue 27 item 3): the database's list.
  const reach = useQuery(caseSheetsQuery(caseId));
  return (
    <section className="card" aria-labelledby="case-exercises">
      <h2 id="case-exercises">{t('therapy.caseExercisesTitle')}</h2>
      <ErrorAlert error={tasks.error ? asApiError(tasks.error) : null} />
      {query.error ? (
        <ErrorAlert error={asApiError(query.error)} />
      ) : query.isPending || tasks.isPending || reach.isPending ? (
        <Spinner />
      ) : (
        <Sheets caseId={caseId} data={query.data} tasks={tasks.data ?? []} reach={reach.data?.map((s) => s.worksheet) ?? WORKSHEET_CODES} />
      )}
      {user?.is_therapist_account ? <OutOfArmSend caseId={caseId} /> : null}
    </section>
  );
}

/** The care team's state of each worksheet from its sent entries and the sent feedback. */
function staffStatesOf(data: CaseWorksheets): Record<WorksheetCode, StaffWorksheetState> {
  const entries = entriesWithFeedback(data);
  return Object.fromEntries(WORKSHEET_CODES.map((code) => [code, staffWorksheetState(entries[code])])) as Record<WorksheetCode, StaffWorksheetState>;
}

function StaffBadge({ state }: { state: StaffWorksheetState }) {
  const { t } = useTranslation();
  const look = { notSent: 'todo', awaitingFeedback: 'sent', feedbackGiven: 'feedback' }[state];
  return <span className={`therapy-badge therapy-badge--${look}`}>{t(`therapy.staffState.${state}`)}</span>;
}

/** "Assigned, due by …", overdue, done, or no longer due, for a worksheet of the treatment. */
function AssignmentLine({ task }: { task: WorksheetTask }) {
  const clock = useClock();
  const { t } = useTranslation();
  const date = task.due ? clock.dateTime(task.due) : '';
  const key = task.status === 'due' && !task.due ? 'therapy.staffAssigned.undated' : `therapy.staffAssigned.${task.status}`;
  return <span className={`therapy-assigned therapy-assigned--${task.status}`}>{t(key, { date })}</span>;
}

/** The worksheets the treatment assigned, at a glance, each linking to its place below. */
function Assigned({ tasks, states }: { tasks: WorksheetTask[]; states: Record<WorksheetCode, StaffWorksheetState> }) {
  const { t } = useTranslation();
  if (tasks.length === 0) return <p>{t('therapy.noneAssigned')}</p>;
  return (
    <>
      <h3>{t('therapy.assignedTitle')}</h3>
      <ul className="therapy-assigned-list">
        {tasks.map((task) => (
          <li key={task.id}>
            <a href={`#sheet-${task.worksheet}`}>{t(`therapy.sheet.${task.worksheet}.title`)}</a>
            <AssignmentLine task={task} />
            <StaffBadge state={states[task.worksheet]} />
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The case's sheets: those in its reach (its arm's, sent in, or every sheet on counseling) and any
 * other that already holds a sent entry (written before a rule closed it), never another arm's
 * empty sheets, which would only invite contamination.
 */
function Sheets({ caseId, data, tasks, reach }: { caseId: string; data: CaseWorksheets; tasks: WorksheetTask[]; reach: readonly WorksheetCode[] }) {
  const { t } = useTranslation();
  const states = staffStatesOf(data);
  const assigned = new Map(tasks.map((task) => [task.worksheet, task]));
  const shown = assignedFirst(assigned).filter((code) => reach.includes(code) || data.entries[code].length > 0);
  return (
    <>
      <Assigned tasks={tasks} states={states} />
      {shown.length < WORKSHEET_CODES.length ? <p className="muted">{t('trialRules.otherArmSheets')}</p> : null}
      <ul className="therapy-sheets">
        {shown.map((code) => (
          <li key={code} id={`sheet-${code}`} className="therapy-sheet" tabIndex={-1}>
            <div className="therapy-sheet__head">
              <h3>{t(`therapy.sheet.${code}.title`)}</h3>
              <StaffBadge state={states[code]} />
            </div>
            {assigned.get(code) ? <AssignmentLine task={assigned.get(code)!} /> : null}
            {data.entries[code].map((entry) => (
              <SentEntry key={entry.id} caseId={caseId} code={code} entry={entry} feedback={data.feedback.filter((f) => f.worksheet_id === entry.id)} />
            ))}
          </li>
        ))}
      </ul>
    </>
  );
}

function SentEntry({ caseId, code, entry, feedback }: { caseId: string; code: WorksheetCode; entry: WorksheetEntry; feedback: Feedback[] }) {
  const clock = useClock();
  const { t } = useTranslation();
  const { user } = useSession();
  const mine = feedback.find((f) => !f.published_at && f.author_id === user?.id);
  const answered = feedback.some((f) => f.published_at);
  // An entry still waiting for feedback starts open, an answered one folded; after that the
  // reader decides (the value never changes, so React leaves the element's state alone).
  const [startOpen] = useState(!answered);
  return (
    <details id={`entry-${entry.id}`} className="therapy-entry therapy-entry--staff" open={startOpen}>
      <summary>
        {t('therapy.sentOn', { date: clock.dateTime(entry.published_at!) })} · {t(answered ? 'therapy.staffState.feedbackGiven' : 'therapy.staffState.awaitingFeedback')}
      </summary>
      <EntryFields code={code} entry={entry} />
      <FeedbackList feedback={feedback} />
      {answered ? null : <FeedbackForm caseId={caseId} code={code} entryId={entry.id} draft={mine} />}
    </details>
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
