/**
 * The safety banner of every staff home (issue 26): while a risk task the person can act on is
 * open, it says so at the top, names the patient and the case, says whether anyone has taken it
 * on, and links to the task. Coordinators see every open risk task; the others theirs
 * (app_public.my_open_risk_tasks, db/migrations/0131). Nothing shows when there is none.
 */
import { Ident } from '../../ui/Ident';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useClock } from '../../ui/useClock';
import { isOverdue } from '../../../domain/workflow-tasks';
import { myOpenRiskTasksQuery } from './api';
import './safety.css';

export function SafetyBanner() {
  const clock = useClock();
  const { t } = useTranslation();
  const { data } = useQuery(myOpenRiskTasksQuery());
  if (!data || data.length === 0) return null;
  const when = (value: string) => clock.dateTime(value);
  const now = new Date();
  return (
    <section className="safety-banner" aria-labelledby="safety-banner-title" role="region">
      <h2 id="safety-banner-title" className="safety-banner__title">
        {t('safetyLoop.banner.title', { count: data.length })}
      </h2>
      <ul className="plain-list safety-banner__list">
        {data.map((task) => {
          const patient = task.caseByCaseId?.patient;
          const name = patient ? patient.alias?.trim() || patient.username : null;
          return (
            <li key={task.id} className="safety-banner__item">
              <Link className="safety-banner__link" to={`/admin/tasks/${task.id}`}>
                <bdi>{name ?? t('safetyLoop.noPatient')}</bdi> · {t('safetyLoop.case')} <Ident>{task.caseByCaseId?.shortId ?? ''}</Ident>: {t('safetyLoop.banner.openTask')}
              </Link>
              <span className="safety-banner__meta">
                {t('safetyLoop.banner.since', { time: when(task.created) })}
                {' · '}
                {task.safetySignal?.acknowledgedAt ? t('safetyLoop.banner.takenOn') : <strong>{t('safetyLoop.banner.nobody')}</strong>}
                {task.due && isOverdue(task.due, now) ? <> · <strong>{t('tasks.overdue')}</strong></> : null}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
