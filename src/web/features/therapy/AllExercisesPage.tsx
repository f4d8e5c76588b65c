/**
 * /all-exercises: the patient's worksheets with their state (to do, draft, sent, feedback
 * received), the worksheets the treatment assigned first, each with its due date (treatment
 * modules: sending the worksheet completes its task), their entries, and the therapist's feedback beside each sent one. `?sheet=<code>&entry=<id>`
 * opens one entry, so a reload or a lost connection keeps the place.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { WORKSHEET_CODES, isWorksheetCode, worksheetState, type WorksheetCode } from '../../../domain/worksheets';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, Spinner } from '../../ui/ui';
import { asApiError } from '../../api/query';
import { caseWorksheetsQuery, entriesWithFeedback, worksheetTasksQuery, type CaseWorksheets, type WorksheetTask } from './api';
import { WorksheetForm } from './WorksheetForm';
import { caseSheetsQuery } from '../arms/api';
import { StateBadge } from './WorksheetParts';
import { useClock } from '../../ui/useClock';
import './therapy.css';

export function AllExercisesPage() {
  const { t } = useTranslation();
  const { user, currentCaseId } = useSession();
  return (
    <Page title={t('therapy.exercisesTitle')} width="reading">
      {user && currentCaseId && user.is_patient_account ? <Exercises caseId={currentCaseId} userId={user.id} /> : <p>{t('therapy.noCase')}</p>}
    </Page>
  );
}

/** The state of each worksheet from its entries and the sent feedback on them. */
function statesOf(data: CaseWorksheets): Record<WorksheetCode, ReturnType<typeof worksheetState>> {
  const entries = entriesWithFeedback(data);
  return Object.fromEntries(WORKSHEET_CODES.map((code) => [code, worksheetState(entries[code])])) as Record<WorksheetCode, ReturnType<typeof worksheetState>>;
}

function Exercises({ caseId, userId }: { caseId: string; userId: string }) {
  const clock = useClock();
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const query = useQuery(caseWorksheetsQuery(caseId));
  const tasks = useQuery(worksheetTasksQuery(caseId));
  // The database gives the patient their arm's sheets only (and those a therapist sent in).
  const sheets = useQuery(caseSheetsQuery(caseId));
  const sheet = params.get('sheet');
  const entry = params.get('entry');
  if (isWorksheetCode(sheet) && entry && /^[0-9a-f-]{36}$/.test(entry)) {
    return (
      <>
        <h2>{t(`therapy.sheet.${sheet}.title`)}</h2>
        <WorksheetForm key={entry} code={sheet} entryId={entry} caseId={caseId} userId={userId} feedback={query.data?.feedback ?? []} onDone={() => setParams({})} />
      </>
    );
  }
  if (query.error || sheets.error) return <ErrorAlert error={asApiError(query.error ?? sheets.error)} />;
  if (query.isPending || sheets.isPending) return <Spinner />;
  const mine = new Map(sheets.data.map((s) => [s.worksheet, s]));
  const data = query.data;
  const states = statesOf(data);
  const answered = new Set(data.feedback.filter((f) => f.published_at).map((f) => f.worksheet_id));
  // A task that ended unsent (dropout, the treatment ended) is no longer the patient's to do.
  const assigned = new Map((tasks.data ?? []).filter((task) => task.status !== 'ended').map((task) => [task.worksheet, task]));
  return (
    <>
      <ErrorAlert error={tasks.error ? asApiError(tasks.error) : null} />
      <ul className="therapy-sheets">
        {assignedFirst(assigned).filter((code) => mine.has(code)).map((code) => (
          <li key={code} className="therapy-sheet">
            <div className="therapy-sheet__head">
              <h2>{t(`therapy.sheet.${code}.title`)}</h2>
              <StateBadge state={states[code]} />
            </div>
            <AssignedLine task={assigned.get(code)} />
            {mine.get(code)?.inArm === false ? <p className="therapy-assigned">{t('arms.sentByTherapist')}</p> : null}
            <p>{t(`therapy.sheet.${code}.intro`)}</p>
            {data.entries[code].length > 0 ? (
              <ul className="therapy-entries">
                {data.entries[code].map((e) => (
                  <li key={e.id}>
                    <button type="button" className="therapy-link" onClick={() => setParams({ sheet: code, entry: e.id })}>
                      {e.published_at ? t('therapy.sentOn', { date: clock.dateTime(e.published_at) }) : t('therapy.draftOf', { date: clock.dateTime(e.updated_at) })}
                    </button>
                    {answered.has(e.id) ? <span className="therapy-entries__note"> · {t('therapy.state.feedback')}</span> : null}
                  </li>
                ))}
              </ul>
            ) : null}
            <button type="button" className="button button--small" onClick={() => setParams({ sheet: code, entry: crypto.randomUUID() })}>
              {t('therapy.newEntry')}
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The assigned worksheets first, by due date (the tasks come sorted), then the others. */
export function assignedFirst(assigned: ReadonlyMap<WorksheetCode, WorksheetTask>): WorksheetCode[] {
  return [...assigned.keys(), ...WORKSHEET_CODES.filter((code) => !assigned.has(code))];
}

/** "Part of your treatment, due by …" (or overdue, or done) for a worksheet the treatment assigned. */
function AssignedLine({ task }: { task: WorksheetTask | undefined }) {
  const clock = useClock();
  const { t } = useTranslation();
  if (!task) return null;
  if (task.done) return <p className="therapy-assigned therapy-assigned--done">{t('therapy.assignedDone')}</p>;
  if (!task.due) return <p className="therapy-assigned">{t('therapy.assigned')}</p>;
  const overdue = new Date(task.due).getTime() < Date.now();
  return (
    <p className={`therapy-assigned${overdue ? ' therapy-assigned--overdue' : ''}`}>
      {t(overdue ? 'therapy.assignedOverdue' : 'therapy.assignedDue', { date: clock.dateTime(task.due) })}
    </p>
  );
}
