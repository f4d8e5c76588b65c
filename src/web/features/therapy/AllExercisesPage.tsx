/**
 * /all-exercises: the patient's worksheets with their state (to do, draft, sent, feedback
 * received), their entries, and the therapist's feedback beside each sent one. `?sheet=<code>&entry=<id>`
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
import { caseWorksheetsQuery, type CaseWorksheets } from './api';
import { WorksheetForm } from './WorksheetForm';
import { formatDate, StateBadge } from './WorksheetParts';
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
export function statesOf(data: CaseWorksheets): Record<WorksheetCode, ReturnType<typeof worksheetState>> {
  const answered = new Set(data.feedback.filter((f) => f.published_at).map((f) => f.worksheet_id));
  return Object.fromEntries(
    WORKSHEET_CODES.map((code) => [code, worksheetState(data.entries[code].map((e) => ({ published_at: e.published_at, has_feedback: answered.has(e.id) })))]),
  ) as Record<WorksheetCode, ReturnType<typeof worksheetState>>;
}

function Exercises({ caseId, userId }: { caseId: string; userId: string }) {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const query = useQuery(caseWorksheetsQuery(caseId));
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
  if (query.error) return <ErrorAlert error={asApiError(query.error)} />;
  if (query.isPending) return <Spinner />;
  const data = query.data;
  const states = statesOf(data);
  const answered = new Set(data.feedback.filter((f) => f.published_at).map((f) => f.worksheet_id));
  return (
    <ul className="therapy-sheets">
      {WORKSHEET_CODES.map((code) => (
        <li key={code} className="therapy-sheet">
          <div className="therapy-sheet__head">
            <h2>{t(`therapy.sheet.${code}.title`)}</h2>
            <StateBadge state={states[code]} />
          </div>
          <p>{t(`therapy.sheet.${code}.intro`)}</p>
          {data.entries[code].length > 0 ? (
            <ul className="therapy-entries">
              {data.entries[code].map((e) => (
                <li key={e.id}>
                  <button type="button" className="therapy-link" onClick={() => setParams({ sheet: code, entry: e.id })}>
                    {e.published_at ? t('therapy.sentOn', { date: formatDate(e.published_at, i18n.language) }) : t('therapy.draftOf', { date: formatDate(e.updated_at, i18n.language) })}
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
  );
}
