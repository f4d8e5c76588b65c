/**
 * My process (route /workflows, signed in): the person's running processes with the current
 * trial first (the newest process whose business key is "trial", spec §4), their dates
 * (/api/my_dates) and the task log (/api/my_task_log), all through the workflow reads of spec §7.
 * The task log loads incrementally (src/domain/workflow-reads.ts): after the first load only open
 * tasks and those that ended since the latest known end are fetched.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentTrial, type RunningProcess } from '../../../domain/workflow-reads';
import { homeKind } from '../../../domain/navigation';
import { accountFlags } from '../../session/profile';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PatientWorkflows } from '../patient/PatientWorkflows';
import { Page } from '../../ui/ui';
import { processesQuery, taskLogQueryOptions, type DateEntry, type LoggedTask } from './api';
import { processName, useDateTime, useTaskName, useTimerLabel } from './labels';

/** The log shows this many entries at first; the rest on request. */
const LOG_SHOWN = 50;

function ProcessFacts({ process }: { process: RunningProcess }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  return (
    <dl className="facts">
      <dt>{t('tasks.state')}</dt>
      <dd>{t(`tasks.states.${process.state}`, { defaultValue: process.state })}</dd>
      <dt>{t('tasks.started')}</dt>
      <dd>{dateTime(process.start_time)}</dd>
      {process.end_time ? (
        <>
          <dt>{t('tasks.ended')}</dt>
          <dd>{dateTime(process.end_time)}</dd>
        </>
      ) : null}
      <dt>{t('tasks.pendingTimers')}</dt>
      <dd>{process.pending_timers}</dd>
    </dl>
  );
}

function Processes({ processes }: { processes: RunningProcess[] }) {
  const { t } = useTranslation();
  const trial = currentTrial(processes);
  const others = processes.filter((p) => p !== trial);
  return (
    <section aria-labelledby="processes-title">
      <h2 id="processes-title">{t('tasks.processes')}</h2>
      {processes.length === 0 ? <p>{t('tasks.noProcesses')}</p> : null}
      {trial ? (
        <div className="card card--flat">
          <h3 className="case-cards__title">{t('tasks.currentTrial')}</h3>
          <ProcessFacts process={trial} />
        </div>
      ) : null}
      {others.length > 0 ? (
        <ul className="case-cards">
          {others.map((process) => (
            <li key={process.id} className="card card--flat">
              {/* The process by its translated name, never its business key (an id) or model id (issue 26). */}
              <h3 className="case-cards__title">{processName(t, process.definition_key)}</h3>
              <ProcessFacts process={process} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function Dates({ dates }: { dates: DateEntry[] }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const timerLabel = useTimerLabel();
  return (
    <section aria-labelledby="dates-title">
      <h2 id="dates-title">{t('tasks.dates')}</h2>
      {dates.length === 0 ? (
        <p>{t('tasks.noDates')}</p>
      ) : (
        <ul className="plain-list">
          {dates.map((entry) => (
            <li key={entry.id}>
              <time dateTime={entry.timestamp}>{dateTime(entry.timestamp)}</time>: {timerLabel(entry)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TaskLog({ entries }: { entries: LoggedTask[] }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const taskName = useTaskName();
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? entries : entries.slice(0, LOG_SHOWN);
  return (
    <section aria-labelledby="log-title">
      <h2 id="log-title">{t('tasks.taskLog')}</h2>
      {entries.length === 0 ? <p>{t('tasks.noTaskLog')}</p> : null}
      <ul className="case-cards">
        {shown.map((entry) => (
          <li key={entry.id} className="card card--flat">
            <h3 className="case-cards__title">{taskName({ taskDefinitionKey: entry.task_definition_key, name: entry.name })}</h3>
            <p className="muted">
              {entry.end_time
                ? t(entry.delete_reason === 'completed' ? 'tasks.logCompleted' : 'tasks.logClosed', { when: dateTime(entry.end_time) })
                : entry.due
                  ? t('tasks.logOpenDue', { when: dateTime(entry.due) })
                  : t('tasks.logOpen')}
            </p>
          </li>
        ))}
      </ul>
      {entries.length > shown.length ? (
        <button type="button" className="button button--secondary" onClick={() => setShowAll(true)}>
          {t('tasks.showAll', { total: entries.length })}
        </button>
      ) : null}
    </section>
  );
}

export function WorkflowsPage() {
  const { user } = useSession();
  const flags = accountFlags(user);
  // Patients see only the steps written for them (src/domain/patient-facing.ts, issue 25).
  if (user && flags && homeKind(flags, user.is_counselor_account) === 'patient') return <PatientWorkflows />;
  return <StaffWorkflows />;
}

function StaffWorkflows() {
  const { t } = useTranslation();
  const processesRead = useQuery(processesQuery());
  const processes = { data: processesRead.data, error: processesRead.error, loading: processesRead.isPending };
  const logRead = useQuery(taskLogQueryOptions());
  const log = { entries: logRead.data ?? null, error: logRead.error };
  const [running, dates] = processes.data ?? [null, null];
  return (
    <Page title={t('nav.workflows')}>
      <ErrorAlert error={processes.error ?? log.error} />
      {!processes.data && processes.loading ? <p role="status">{t('common.loading')}</p> : null}
      {running ? <Processes processes={running} /> : null}
      {dates ? <Dates dates={dates} /> : null}
      {log.entries ? <TaskLog entries={log.entries} /> : null}
    </Page>
  );
}
