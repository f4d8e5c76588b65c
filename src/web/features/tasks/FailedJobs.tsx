/**
 * Stuck workflow steps on the staff task list: a service-task handler that failed too often
 * (WORKFLOW_MAX_ATTEMPTS) stops, and its case waits until someone retries it. Shown only when
 * there is one; each can be tried again (PUT /job/{id}/retries). The error text is technical,
 * so it is folded away for whoever has to report it.
 */
import { Ident } from '../../ui/Ident';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Alert } from '../../ui/ui';
import { failedJobsQuery, retryJob, workflowKeys, type FailedJob } from './api';
import { useDateTime } from './labels';

function FailedJobItem({ job, onRetried }: { job: FailedJob; onRetried(ok: boolean): void }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const [busy, setBusy] = useState(false);
  const retry = async () => {
    setBusy(true);
    const result = await retryJob(job.id);
    setBusy(false);
    onRetried(result.ok);
  };
  return (
    <li className="card card--flat">
      <dl className="facts">
        <dt>{t('tasks.failed.step')}</dt>
        <dd>{job.activityName ?? job.activityId}</dd>
        <dt>{t('tasks.case')}</dt>
        <dd>{job.caseByCaseId ? <Link to={`/admin/cases/${job.caseByCaseId.id}`}><Ident>{job.caseByCaseId.shortId ?? ''}</Ident></Link> : '—'}</dd>
        <dt>{t('tasks.failed.failedAt')}</dt>
        <dd>{dateTime(job.failedAt)}</dd>
        <dt>{t('tasks.failed.attempts')}</dt>
        <dd>{job.attempts}</dd>
      </dl>
      {job.lastError ? (
        <details>
          <summary>{t('tasks.failed.error')}</summary>
          <pre className="failed-job__error" dir="ltr">{job.lastError}</pre>
        </details>
      ) : null}
      <button type="button" className="button button--secondary" disabled={busy} onClick={() => void retry()}>
        {t('tasks.failed.retry')}
      </button>
    </li>
  );
}

export function FailedJobs() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [outcome, setOutcome] = useState<'retried' | 'retryFailed' | null>(null);
  const { data } = useQuery(failedJobsQuery());
  const onRetried = (ok: boolean) => {
    setOutcome(ok ? 'retried' : 'retryFailed');
    void client.invalidateQueries({ queryKey: workflowKeys.all });
  };
  const message = outcome ? <Alert kind={outcome === 'retried' ? 'success' : 'error'}>{t(`tasks.failed.${outcome}`)}</Alert> : null;
  if (!data || data.length === 0) return message;
  return (
    <section aria-labelledby="failed-jobs-title" className="failed-jobs">
      <h2 id="failed-jobs-title">{t('tasks.failed.title', { count: data.length })}</h2>
      {message}
      <p>{t('tasks.failed.intro')}</p>
      <ul className="case-cards">
        {data.map((job) => (
          <FailedJobItem key={job.id} job={job} onRetried={onRetried} />
        ))}
      </ul>
    </section>
  );
}
