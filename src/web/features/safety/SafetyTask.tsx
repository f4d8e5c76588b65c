/**
 * A safety task on the task page (/admin/tasks/{id}, issue 26): who it is about (patient, case),
 * the risk answer with its questionnaire, item, answer, score and time, who took it on and when
 * it was escalated, the calls on the case with one click to record the call for this risk
 * answer, and closing it: only with a call or a documented reason, after a confirmation that
 * names the consequence (the server enforces the same rule, db/migrations/0130). The review of a
 * call and a follow-up contact show their call in words. No id or process variable is shown.
 */
import { Ident } from '../../ui/Ident';
import { SignatureManifests } from '../signing/SignatureManifests';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useClock } from '../../ui/useClock';
import { instrumentFor, totalRange } from '../../../domain/instruments';
import { describeSignalAnswer } from '../../../domain/safety';
import { asApiError } from '../../api/query';
import { currentLocale } from '../../i18n/i18n';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Spinner, TextArea } from '../../ui/ui';
import { refetchAfterTaskCompleted, submitTaskForm } from '../tasks/api';
import type { TaskListState } from '../tasks/TaskListPage';
import { acknowledgeSignal, refetchAfterSafetyChange, safetyTaskQuery, suicideCallsQuery, type SafetySignal, type SafetyTaskData } from './api';
import { CallForm } from './CallForm';
import { SafetyError } from './SafetyError';
import { CallItem } from './SafetySection';
import './safety.css';

/** The safety process's user tasks (workflows/safety.bpmn). */
export const SAFETY_TASK_KEYS = ['safetySignalTask', 'reviewSuicideCall', 'suicideCallFollowUp'] as const;

export function isSafetyTaskKey(key: string): boolean {
  return (SAFETY_TASK_KEYS as readonly string[]).includes(key);
}

type Person = { alias: string | null; username: string } | null | undefined;
const nameOf = (person: Person): string | null => (person ? person.alias?.trim() || person.username : null);

function useWhen(): (value: string | null | undefined) => string {
  const clock = useClock();
  return (value) => (value ? clock.dateTime(value) : '');
}

/** The patient and the case the task is about. */
function Patient({ task }: { task: SafetyTaskData }) {
  const { t } = useTranslation();
  const c = task.caseByCaseId;
  return (
    <dl className="facts card safety-task__patient">
      <dt>{t('safetyLoop.patient')}</dt>
      <dd>
        <bdi>{nameOf(c?.patient) ?? t('safetyLoop.noPatient')}</bdi>
      </dd>
      <dt>{t('safetyLoop.case')}</dt>
      <dd>
        <Link to={`/admin/cases/${task.caseId}`}>
          <Ident>{c?.shortId ?? ''}</Ident>
        </Link>
      </dd>
    </dl>
  );
}

/** The risk answer: questionnaire, item and answer, total, flags, time of measurement, when. */
function RiskAnswer({ signal }: { signal: SafetySignal }) {
  const { t } = useTranslation();
  const when = useWhen();
  const locale = currentLocale();
  const instrument = instrumentFor(signal.source);
  const answer = describeSignalAnswer(signal.source, signal.details, locale, instrument, instrument ? (totalRange(instrument)?.[1] ?? null) : null);
  const d = signal.details;
  return (
    <section className="card" aria-labelledby="safety-answer-title">
      <h2 id="safety-answer-title">{t('safetyLoop.answer.title')}</h2>
      <dl className="facts">
        <dt>{t('safetyLoop.answer.source')}</dt>
        <dd>{answer.questionnaire ?? t(`safety.source.${signal.source}`, { defaultValue: t('safetyLoop.answer.otherSource') })}</dd>
        {answer.item ? (
          <>
            <dt>{answer.item.label}</dt>
            <dd>
              <strong>{answer.item.answer}</strong>
            </dd>
          </>
        ) : null}
        {typeof d.suicideRisk === 'string' ? (
          <>
            <dt>{t('safetyLoop.answer.interviewRisk')}</dt>
            <dd>
              <strong>{t(`safety.risk.${d.suicideRisk}`, { defaultValue: d.suicideRisk })}</strong>
              {typeof d.suicidalityScore === 'number' ? ` · ${t('safetyLoop.answer.interviewScore', { value: d.suicidalityScore })}` : null}
            </dd>
          </>
        ) : null}
        {answer.total ? (
          <>
            <dt>{t('safetyLoop.answer.total')}</dt>
            <dd>{answer.total.max !== null ? t('safetyLoop.answer.totalOf', { value: answer.total.value, max: answer.total.max }) : answer.total.value}</dd>
          </>
        ) : null}
        {answer.flags.length > 0 ? (
          <>
            <dt>{t('safetyLoop.answer.flags')}</dt>
            <dd>{answer.flags.join(' · ')}</dd>
          </>
        ) : null}
        {typeof d.timeOfMeasurement === 'string' ? (
          <>
            <dt>{t('safetyLoop.answer.timeOfMeasurement')}</dt>
            <dd>{t(`safety.time.${d.timeOfMeasurement}`, { defaultValue: d.timeOfMeasurement })}</dd>
          </>
        ) : null}
        <dt>{t('safetyLoop.answer.when')}</dt>
        <dd>
          <time dateTime={signal.raisedAt}>{when(signal.raisedAt)}</time>
        </dd>
      </dl>
    </section>
  );
}

/** Who took the task on ("I am on it"), and the escalations so far. */
function Acknowledgement({ task, signal }: { task: SafetyTaskData; signal: NonNullable<SafetyTaskData['safetySignal']> }) {
  const { t } = useTranslation();
  const when = useWhen();
  const client = useQueryClient();
  const acknowledge = useMutation({ mutationFn: () => acknowledgeSignal(signal.id), onSettled: () => refetchAfterSafetyChange(client) });
  const error = acknowledge.error ? asApiError(acknowledge.error) : null;
  const open = !task.endTime;
  return (
    <section className="card safety-task__ack" aria-labelledby="safety-ack-title">
      <h2 id="safety-ack-title">{t('safetyLoop.ack.title')}</h2>
      {signal.acknowledgedAt ? (
        <p>{t('safetyLoop.ack.by', { name: nameOf(signal.userByAcknowledgedBy) ?? t('safetyLoop.ack.someone'), time: when(signal.acknowledgedAt) })}</p>
      ) : (
        <p className="safety-task__waiting">{t('safetyLoop.ack.none')}</p>
      )}
      {signal.escalatedToCoordinatorsAt ? <p className="muted">{t('safetyLoop.ack.escalatedCoordinators', { time: when(signal.escalatedToCoordinatorsAt) })}</p> : null}
      {signal.escalatedToOnCallAt ? <p className="muted">{t('safetyLoop.ack.escalatedOnCall', { time: when(signal.escalatedToOnCallAt) })}</p> : null}
      {open && task.mayComplete && !signal.acknowledgedAt ? (
        <button type="button" className="button" onClick={() => acknowledge.mutate()} disabled={acknowledge.isPending}>
          {t('safetyLoop.ack.button')}
        </button>
      ) : null}
      {error ? <SafetyError error={error} focusOnShow /> : null}
    </section>
  );
}

/** The calls on the case, oldest first, and "record the call" prefilled for this risk answer. */
function Calls({ task, signalId }: { task: SafetyTaskData; signalId: string | null }) {
  const { t } = useTranslation();
  const calls = useQuery(suicideCallsQuery(task.caseId));
  const [recording, setRecording] = useState(false);
  const mayRecord = !task.endTime && task.mayComplete && signalId !== null;
  return (
    <section className="card" aria-labelledby="safety-calls-title">
      <h2 id="safety-calls-title">{t('safetyLoop.calls.title')}</h2>
      <ErrorAlert error={calls.error} />
      {calls.isPending ? <Spinner /> : null}
      {calls.data && calls.data.length === 0 ? <p className="muted">{t('safetyLoop.calls.none')}</p> : null}
      {calls.data && calls.data.length > 0 ? (
        <ol className="plain-list safety-calls">
          {calls.data.map((call) => (
            <CallItem key={call.id} call={call} />
          ))}
        </ol>
      ) : null}
      {mayRecord && recording ? (
        <CallForm caseId={task.caseId} call={null} safetySignalId={signalId} onSaved={() => setRecording(false)} onCancel={() => setRecording(false)} />
      ) : null}
      {mayRecord && !recording ? (
        <button type="button" className="button" onClick={() => setRecording(true)}>
          {t('safetyLoop.calls.record')}
        </button>
      ) : null}
    </section>
  );
}

/** Completes the task after a confirmation that names what follows; the server has the last word. */
function useCloseTask(task: SafetyTaskData) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<{ status: number; body: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const close = async (message: string, variables: Record<string, { value: unknown; type: string }> = {}) => {
    const yes = await confirm({ title: t(`safetyLoop.close.confirmTitle.${task.taskDefinitionKey}`), message, confirmLabel: t('safetyLoop.close.confirmButton') });
    if (!yes) return;
    setBusy(true);
    setFailure(null);
    const outcome = await submitTaskForm(task.id, variables as never);
    setBusy(false);
    if (!outcome.ok) {
      setFailure(outcome);
      return;
    }
    await Promise.all([refetchAfterTaskCompleted(client, task.id), refetchAfterSafetyChange(client)]);
    const state: TaskListState = { completed: t(`safety.taskNames.${task.taskDefinitionKey}`) };
    void navigate('/admin/tasks', { state });
  };
  return { close, failure, busy };
}

function CloseFailure({ failure }: { failure: { status: number; body: string } | null }) {
  const { t } = useTranslation();
  if (!failure) return null;
  let code: string | undefined;
  try {
    code = (JSON.parse(failure.body) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  return (
    <Alert kind="error" title={t('safetyLoop.close.failed')} focusOnShow focusKey={failure}>
      {failure.status === 0 ? t('errorCodes.network') : t(`safetyLoop.errors.${code ?? 'unknown'}`, { defaultValue: t(`refusals.${code ?? 'unknown'}`, { defaultValue: t('safetyLoop.errors.unknown') }) })}
    </Alert>
  );
}

/** Closing the risk task: with the call (when there is one) or with a reason. */
function CloseRiskTask({ task, signal }: { task: SafetyTaskData; signal: NonNullable<SafetyTaskData['safetySignal']> }) {
  const { t } = useTranslation();
  const when = useWhen();
  const { close, failure, busy } = useCloseTask(task);
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const callAt = signal.firstCallAt;
  const withReason = () => {
    if (!reason.trim()) {
      setMissing(true);
      return;
    }
    setMissing(false);
    void close(t('safetyLoop.close.confirmWithReason'), { closingReason: { value: reason.trim(), type: 'String' } });
  };
  return (
    <section className="card" aria-labelledby="safety-close-title">
      <h2 id="safety-close-title">{t('safetyLoop.close.title')}</h2>
      {callAt ? (
        <>
          <p>{t('safetyLoop.close.withCall', { time: when(callAt) })}</p>
          <button type="button" className="button" disabled={busy} onClick={() => void close(t('safetyLoop.close.confirmWithCall', { time: when(callAt) }))}>
            {t('safetyLoop.close.button')}
          </button>
        </>
      ) : (
        <>
          <p>{t('safetyLoop.close.needCall')}</p>
          <TextArea
            label={t('safetyLoop.close.reason')}
            hint={t('safetyLoop.close.reasonHint')}
            name="closingReason"
            rows={3}
            maxLength={4000}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            errors={missing ? [{ code: 'closing_reason_missing', message: t('safetyLoop.close.reasonMissing') }] : []}
          />
          <button type="button" className="button button--secondary" disabled={busy} onClick={withReason}>
            {t('safetyLoop.close.buttonWithReason')}
          </button>
        </>
      )}
      <CloseFailure failure={failure} />
    </section>
  );
}

/** The review of a call or a follow-up contact: the call in words, and done after a confirmation. */
function CallTask({ task }: { task: SafetyTaskData }) {
  const { t } = useTranslation();
  const { close, failure, busy } = useCloseTask(task);
  return (
    <>
      <section className="card" aria-labelledby="safety-call-title">
        <h2 id="safety-call-title">{t(`safetyLoop.callTask.title.${task.taskDefinitionKey}`)}</h2>
        {task.suicideCall ? (
          <ol className="plain-list safety-calls">
            <CallItem call={task.suicideCall} />
          </ol>
        ) : (
          <p className="muted">{t('safetyLoop.callTask.missing')}</p>
        )}
      </section>
      {!task.endTime && task.mayComplete ? (
        <section className="card" aria-labelledby="safety-close-title">
          <h2 id="safety-close-title">{t('safetyLoop.close.title')}</h2>
          <button type="button" className="button" disabled={busy} onClick={() => void close(t(`safetyLoop.close.confirm.${task.taskDefinitionKey}`))}>
            {t(`safetyLoop.close.done.${task.taskDefinitionKey}`)}
          </button>
          <CloseFailure failure={failure} />
        </section>
      ) : null}
    </>
  );
}

export function SafetyTaskView({ taskId }: { taskId: string }) {
  const { t } = useTranslation();
  const { data: task, error, isPending } = useQuery(safetyTaskQuery(taskId));
  if (isPending) return <Spinner />;
  if (!task) return <ErrorAlert error={error} />;
  const signal = task.safetySignal;
  const open = !task.endTime;
  return (
    <div className="safety-task">
      <Patient task={task} />
      {open && !task.mayComplete ? <Alert kind="info">{t('tasks.notYours')}</Alert> : null}
      {task.taskDefinitionKey === 'safetySignalTask' ? (
        <>
          {signal ? <RiskAnswer signal={signal} /> : null}
          {signal ? <Acknowledgement task={task} signal={signal} /> : null}
          <Calls task={task} signalId={signal?.id ?? null} />
          {signal && open && task.mayComplete ? <CloseRiskTask task={task} signal={signal} /> : null}
          {signal?.closingReason ? (
            <Alert kind="info" title={t('safetyLoop.close.reasonGiven')}>
              <span dir="auto">{signal.closingReason}</span>
            </Alert>
          ) : null}
        </>
      ) : (
        <>
          <CallTask task={task} />
          <Calls task={task} signalId={null} />
        </>
      )}
      {/* Issue 30: closing a safety task is signed; its manifest shows with the task. */}
      {open ? null : <SignatureManifests by={{ recordId: task.id }} />}
    </div>
  );
}
