/**
 * The engagement radar (route /admin/engagement, issue 32): the participants the person may see
 * (coordinators all, therapists and supporters their own cases), highest risk of dropping out
 * first, with their state in words, last activity, completed and overdue questionnaires and
 * worksheets, and whether a message of the patient waits for an answer. The server computes the
 * states and scopes the rows; this screen only shows them. Cards on phones, a table where there
 * is room; the table scrolls as a focusable named region.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { isolateIdent } from '../../../domain/bidi';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page } from '../../ui/ui';
import { useMediaQuery, WIDE_SCREEN } from '../../ui/useMediaQuery';
import { useDateTime } from '../tasks/labels';
import { ENGAGEMENT_STATES, RADAR_PAGE_SIZE, radarQuery, type EngagementState, type RadarRow } from './api';
import './engagement.css';

function StateBadge({ state }: { state: EngagementState }) {
  const { t } = useTranslation();
  return <span className={`engagement-state engagement-state--${state}`}>{t(`engagement.states.${state}`)}</span>;
}

function CaseName({ row }: { row: RadarRow }) {
  const { t } = useTranslation();
  const code = isolateIdent(row.shortId);
  const name = row.patientAlias?.trim();
  return (
    <Link to={`/admin/cases/${row.caseId}`}>
      <bdi>{name ? t('careTeam.taskPeople.caseOf', { name, code }) : t('careTeam.taskPeople.caseCode', { code })}</bdi>
    </Link>
  );
}

/** How long the patient has been waiting, in whole days or hours, or "nobody waits". */
function useWaiting(): (row: RadarRow) => string {
  const { t } = useTranslation();
  return (row) => {
    if (!row.waitingSince) return t('engagement.noWait');
    const hours = Math.max(0, Math.floor((Date.now() - Date.parse(row.waitingSince)) / 3_600_000));
    return hours >= 48 ? t('engagement.waitingDays', { count: Math.floor(hours / 24) }) : t('engagement.waitingHours', { count: hours });
  };
}

function Counts({ counts }: { counts: Record<EngagementState, number> }) {
  const { t } = useTranslation();
  return (
    <ul className="engagement-counts" aria-label={t('engagement.countsLabel')}>
      {ENGAGEMENT_STATES.map((state) => (
        <li key={state} className={`engagement-state--${state}`}>
          {t(`engagement.states.${state}`)}: {counts[state]}
        </li>
      ))}
    </ul>
  );
}

function RadarTable({ rows }: { rows: RadarRow[] }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const waiting = useWaiting();
  const when = (value: string | null) => (value ? <time dateTime={value}>{dateTime(value)}</time> : t('engagement.never'));
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={t('engagement.listLabel')}>
      <table className="data-table">
        <caption className="visually-hidden">{t('engagement.listLabel')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('engagement.participant')}</th>
            <th scope="col">{t('engagement.state')}</th>
            <th scope="col">{t('engagement.lastActivity')}</th>
            <th scope="col">{t('engagement.questionnaires')}</th>
            <th scope="col">{t('engagement.worksheets')}</th>
            <th scope="col">{t('engagement.lastFromPatient')}</th>
            <th scope="col">{t('engagement.lastToPatient')}</th>
            <th scope="col">{t('engagement.waiting')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.caseId}>
              <td>
                <CaseName row={row} />
              </td>
              <td>
                <StateBadge state={row.state} />
              </td>
              <td>{when(row.lastActivityAt)}</td>
              <td>{t('engagement.doneOverdue', { done: row.questionnairesDone, overdue: row.questionnairesOverdue })}</td>
              <td>{t('engagement.doneOverdue', { done: row.worksheetsDone, overdue: row.worksheetsOverdue })}</td>
              <td>{when(row.lastFromPatientAt)}</td>
              <td>{when(row.lastToPatientAt)}</td>
              <td>{waiting(row)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RadarCards({ rows }: { rows: RadarRow[] }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const waiting = useWaiting();
  const when = (value: string | null) => (value ? <time dateTime={value}>{dateTime(value)}</time> : t('engagement.never'));
  return (
    <ul className="engagement-cards" aria-label={t('engagement.listLabel')}>
      {rows.map((row) => (
        <li key={row.caseId} className="card">
          <CaseName row={row} /> <StateBadge state={row.state} />
          <dl>
            <dt>{t('engagement.lastActivity')}</dt>
            <dd>{when(row.lastActivityAt)}</dd>
            <dt>{t('engagement.questionnaires')}</dt>
            <dd>{t('engagement.doneOverdue', { done: row.questionnairesDone, overdue: row.questionnairesOverdue })}</dd>
            <dt>{t('engagement.worksheets')}</dt>
            <dd>{t('engagement.doneOverdue', { done: row.worksheetsDone, overdue: row.worksheetsOverdue })}</dd>
            <dt>{t('engagement.lastFromPatient')}</dt>
            <dd>{when(row.lastFromPatientAt)}</dd>
            <dt>{t('engagement.lastToPatient')}</dt>
            <dd>{when(row.lastToPatientAt)}</dd>
            <dt>{t('engagement.waiting')}</dt>
            <dd>{waiting(row)}</dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}

export function EngagementPage() {
  const { t } = useTranslation();
  const [offset, setOffset] = useState(0);
  const wide = useMediaQuery(WIDE_SCREEN);
  const query = useQuery({ ...radarQuery(offset), placeholderData: keepPreviousData });
  const data = query.data;
  return (
    <Page title={t('nav.adminEngagement')}>
      <p>{data ? t('engagement.intro', data.thresholds) : null}</p>
      {query.error ? <ErrorAlert error={query.error} /> : null}
      {query.isPending ? <p>{t('common.loading')}</p> : null}
      {data ? <Counts counts={data.counts} /> : null}
      {data && data.rows.length === 0 ? <p>{t('engagement.empty')}</p> : null}
      {data && data.rows.length > 0 ? wide ? <RadarTable rows={data.rows} /> : <RadarCards rows={data.rows} /> : null}
      {data && (offset > 0 || data.rows.length === RADAR_PAGE_SIZE) ? (
        <nav className="button-row paging" aria-label={t('engagement.paging')}>
          <button type="button" className="button button--secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - RADAR_PAGE_SIZE))}>
            {t('tasks.previous')}
          </button>
          <button type="button" className="button button--secondary" disabled={data.rows.length < RADAR_PAGE_SIZE} onClick={() => setOffset(offset + RADAR_PAGE_SIZE)}>
            {t('tasks.next')}
          </button>
        </nav>
      ) : null}
    </Page>
  );
}
