/**
 * The counselor's screens (issue 27 item 5). Counselors are not staff (spec §6), so their
 * screens live on the signed-in home: the list of their counseling cases, and one case's
 * counseling at `/?case=<id>` with its open steps, the letters (the closing letter completes
 * its step) and the worksheets with their feedback form. Every step goes through the door that
 * exists for it: the counseling tasks through the workflow routes (whose rules decide), letters
 * and feedback through their collections.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { conversationPath } from '../../../domain/messages';
import { displayName } from '../../../domain/patient-path';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, Spinner } from '../../ui/ui';
import { caseTasksQuery, submitTaskForm, type TaskRow } from '../tasks/api';
import { DueDate, useTaskName } from '../tasks/labels';
import { CaseExercisesSection } from '../therapy/CaseExercisesSection';
import { CaseLettersSection } from '../therapy/CaseLettersSection';
import { caseCounselingQuery, myCounselingCasesQuery, refetchAfterCounseling } from './api';

/** The address of one counseling on the counselor's home. */
export const counselingCasePath = (caseId: string) => `/?case=${encodeURIComponent(caseId)}`;

/** The counselor's counseling cases, each opening its counseling. */
export function CounselingCases() {
  const { t } = useTranslation();
  const { data, error, isPending } = useQuery(myCounselingCasesQuery());
  return (
    <section aria-labelledby="counseling-cases-title">
      <h2 id="counseling-cases-title">{t('counseling.counselor.title')}</h2>
      <p>{t('counseling.counselor.intro')}</p>
      <ErrorAlert error={error} />
      {isPending ? <Spinner /> : null}
      {data && data.length === 0 ? <p className="muted">{t('counseling.counselor.none')}</p> : null}
      {data && data.length > 0 ? (
        <ul className="plain-list my-cases">
          {data.map((c) => (
            <li key={c.id} className="card card--flat my-cases__item">
              <Link to={counselingCasePath(c.id)}>
                <bdi>{displayName(c.patient, t('counseling.counselor.patientWord'))}</bdi>
              </Link>
              <span className="muted">{t(`caseStages.${c.stage}`, { defaultValue: '' })}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** What the counselor does at each of their steps: a confirmed completion, or a hint. */
const STEP_ACTIONS: Record<string, { label: string; title: string; message: string; danger?: boolean } | { hint: string }> = {
  counselingSessionsTask: { label: 'counseling.counselor.sessionsDone', title: 'counseling.counselor.sessionsConfirmTitle', message: 'counseling.counselor.sessionsConfirm' },
  counselingLetterTask: { hint: 'counseling.counselor.letterHint' },
  closeCounselingTask: { label: 'counseling.counselor.closeDone', title: 'counseling.counselor.closeConfirmTitle', message: 'counseling.counselor.closeConfirm', danger: true },
};

function CounselorStep({ task, caseId, now, onDone }: { task: TaskRow; caseId: string; now: Date; onDone(text: string): void }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  const confirm = useConfirm();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const action = STEP_ACTIONS[task.taskDefinitionKey];
  const complete = async (how: { label: string; title: string; message: string; danger?: boolean }) => {
    const sure = await confirm({ title: t(how.title), message: t(how.message), confirmLabel: t(how.label), ...(how.danger ? { danger: true } : {}) });
    if (!sure) return;
    setBusy(true);
    const result = await submitTaskForm(task.id, {});
    setBusy(false);
    if (result.ok) onDone(t('counseling.counselor.done', { step: taskName(task) }));
    refetchAfterCounseling(client, caseId);
  };
  return (
    <li className="card card--flat counseling-step">
      <h3 className="counseling-step__title">{taskName(task)}</h3>
      <p className="muted">
        <DueDate due={task.due} now={now} />
      </p>
      {action && 'hint' in action ? <p>{t(action.hint)}</p> : null}
      {action && 'label' in action ? (
        <button type="button" className={action.danger ? 'button button--danger' : 'button'} disabled={busy} onClick={() => void complete(action)}>
          {t(action.label)}
        </button>
      ) : null}
    </li>
  );
}

/** One counseling, as its counselor works on it. */
export function CounselorCaseView({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const cases = useQuery(myCounselingCasesQuery());
  const counseling = useQuery(caseCounselingQuery(caseId));
  const tasks = useQuery(caseTasksQuery(caseId));
  const [done, setDone] = useState<string | null>(null);
  const found = cases.data?.find((c) => c.id === caseId);
  const name = displayName(found?.patient, t('counseling.counselor.patientWord'));
  const mine = (tasks.data ?? []).filter((task) => task.candidateGroups.includes('counselors'));
  const now = new Date(tasks.dataUpdatedAt || Date.now());
  const running = counseling.data?.process?.state === 'ACTIVE';
  const openMessages = () => {
    session.setCurrentCase(caseId);
    void navigate(conversationPath(caseId));
  };
  return (
    <Page title={t('counseling.counselor.caseTitle', { name })}>
      <nav className="button-row toolbar" aria-label={t('counseling.counselor.title')}>
        <Link to="/">{t('counseling.counselor.back')}</Link>
        <button type="button" className="button button--secondary button--small" onClick={openMessages}>
          {t('counseling.counselor.messages')}
        </button>
      </nav>
      <ErrorAlert error={cases.error ?? counseling.error ?? tasks.error} />
      {cases.isPending ? <Spinner /> : null}
      {found ? (
        <dl className="facts">
          <dt>{t('counseling.counselor.stage')}</dt>
          <dd>{t(`caseStages.${found.stage}`, { defaultValue: '' })}</dd>
        </dl>
      ) : null}
      <section aria-labelledby="counseling-steps-title">
        <h2 id="counseling-steps-title">{t('counseling.counselor.nextSteps')}</h2>
        {done ? <Alert kind="success">{done}</Alert> : null}
        {counseling.data && !running ? <p className="muted">{t('counseling.counselor.ended')}</p> : null}
        {tasks.data && mine.length === 0 && running ? <p className="muted">{t('counseling.counselor.noSteps')}</p> : null}
        {mine.length > 0 ? (
          <ul className="plain-list counseling-steps">
            {mine.map((task) => (
              <CounselorStep key={task.id} task={task} caseId={caseId} now={now} onDone={setDone} />
            ))}
          </ul>
        ) : null}
      </section>
      <CaseLettersSection caseId={caseId} />
      <CaseExercisesSection caseId={caseId} />
    </Page>
  );
}
