/**
 * The coordinators' safety overview (issue 13): risk signals still open, safety tasks past
 * their due date, and calls waiting for a coordinator's contact; plus a notice while crisis
 * contacts are missing in a language. What each person sees is decided by the database (a
 * coordinator sees every case). Mounted on the staff case list for coordinators.
 */
import { Ident } from '../../ui/Ident';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useClock } from '../../ui/useClock';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Spinner } from '../../ui/ui';
import { safetyOverviewQuery } from './api';
import { SafetyReport } from './SafetyReport';
import { SignalText } from './SafetySection';
import './safety.css';

function CaseLink({ c }: { c: { id: string; shortId: string | null } | null }) {
  if (!c) return null;
  return (
    <Link to={`/admin/cases/${c.id}`}>
      <Ident>{c.shortId ?? ''}</Ident>
    </Link>
  );
}

export function SafetyOverview() {
  const clock = useClock();
  const { t } = useTranslation();
  const { data, error, refetch, isFetching } = useQuery(safetyOverviewQuery());
  const when = (value: string | null) => (value ? clock.dateTime(value) : '');
  return (
    <section className="safety-overview" aria-labelledby="safety-overview-title">
      <h2 id="safety-overview-title">{t('safety.overview.title')}</h2>
      <ErrorAlert error={error} />
      {!data && !error ? <Spinner /> : null}
      {data ? (
        <>
          {data.missingLocales && data.missingLocales.length > 0 ? (
            <Alert kind="warning" title={t('safety.overview.noContactsTitle')}>
              {t('safety.overview.noContacts', { locales: data.missingLocales.map((l) => t(`safety.locale.${l}`, { defaultValue: l })).join(', ') })}
            </Alert>
          ) : null}
          <div className="safety-overview__grid">
            <div>
              <h3>
                {t('safety.overview.openSignals')} <span className="badge badge--inline">{data.signals.length}</span>
              </h3>
              {data.signals.length === 0 ? <p className="muted">{t('safety.overview.noneOpen')}</p> : null}
              <ul className="plain-list safety-list">
                {data.signals.map((s) => (
                  <li key={s.id} className="safety-list__item safety-list__item--open">
                    <CaseLink c={s.caseByCaseId} /> · <SignalText signal={s} />
                    <br />
                    <span className="muted">
                      {when(s.raisedAt)} · {t(`safety.group.${s.responsibleGroup}`, { defaultValue: s.responsibleGroup })}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
            <div>
              <h3>
                {t('safety.overview.overdueTasks')} <span className="badge badge--inline">{data.overdue.length}</span>
              </h3>
              {data.overdue.length === 0 ? <p className="muted">{t('safety.overview.noneOverdue')}</p> : null}
              <ul className="plain-list safety-list">
                {data.overdue.map((task) => (
                  <li key={task.id} className="safety-list__item">
                    <Link to={`/admin/tasks/${task.id}`}>{t(`safety.taskNames.${task.taskDefinitionKey}`, { defaultValue: task.name ?? task.taskDefinitionKey })}</Link> ·{' '}
                    <CaseLink c={task.caseByCaseId} />
                    <br />
                    <span className="muted">{t('safety.overview.dueAt', { time: when(task.due) })}</span>
                  </li>
                ))}
              </ul>
            </div>
            <div>
              <h3>
                {t('safety.overview.callsWaiting')} <span className="badge badge--inline">{(data.callsWaiting ?? []).length}</span>
              </h3>
              {(data.callsWaiting ?? []).length === 0 ? <p className="muted">{t('safety.overview.noneWaiting')}</p> : null}
              <ul className="plain-list safety-list">
                {(data.callsWaiting ?? []).map((call) => (
                  <li key={call.id} className="safety-list__item">
                    <CaseLink c={call.caseByCaseId} /> · {call.riskOfSuicide ? t(`safety.risk.${call.riskOfSuicide}`) : t('safety.call.riskUnknown')}
                    <br />
                    <span className="muted">
                      {when(call.callDate)} · {call.userByUserIdCaller ? call.userByUserIdCaller.alias?.trim() || call.userByUserIdCaller.username : ''}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          </div>
          <button type="button" className="button button--secondary button--small" onClick={() => void refetch()} disabled={isFetching}>
            {t('safety.overview.refresh')}
          </button>
        </>
      ) : null}
      {/* The response-time report (issue 26): the overview is shown to coordinators only. */}
      <SafetyReport />
    </section>
  );
}
