/**
 * The coordinators' response-time report (issue 26): for the risk answers of a period, the time
 * from the signal to someone taking the task on and to the first call, overall and per case
 * (count, still open, not taken on, median and maximum), and two CSV files for a safety board
 * (one line per risk answer; one per case with the overall line). The database answers
 * coordinators only (app_public.safety_response_times); the figures are src/domain/safety-report.ts.
 */
import { Ident } from '../../ui/Ident';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fromLocalInput } from '../../../domain/format';
import { responseRowsCsv, responseSummaryCsv, summarizeResponses, type ResponseFigures } from '../../../domain/safety-report';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner, TextField } from '../../ui/ui';
import { saveBlob } from '../trial/api';
import { safetyReportQuery } from './api';
import './safety.css';

function useMinutes(): (value: number | null) => string {
  const { t } = useTranslation();
  return (value) => (value === null ? '–' : t('safetyLoop.report.minutes', { value }));
}

function Figures({ figures }: { figures: ResponseFigures }) {
  const { t } = useTranslation();
  const minutes = useMinutes();
  return (
    <dl className="facts">
      <dt>{t('safetyLoop.report.count')}</dt>
      <dd>{figures.count}</dd>
      <dt>{t('safetyLoop.report.open')}</dt>
      <dd>{figures.open}</dd>
      <dt>{t('safetyLoop.report.notAcknowledged')}</dt>
      <dd>{figures.notAcknowledged}</dd>
      <dt>{t('safetyLoop.report.toAcknowledgement')}</dt>
      <dd>{t('safetyLoop.report.medianMax', { median: minutes(figures.acknowledgement.median), max: minutes(figures.acknowledgement.max) })}</dd>
      <dt>{t('safetyLoop.report.toCall')}</dt>
      <dd>{t('safetyLoop.report.medianMax', { median: minutes(figures.call.median), max: minutes(figures.call.max) })}</dd>
      <dt>{t('safetyLoop.report.withoutCall')}</dt>
      <dd>{figures.withoutCall}</dd>
    </dl>
  );
}

const dayStart = (date: string, zone: string) => (date ? (fromLocalInput(`${date}T00:00`, zone)?.toISOString() ?? null) : null);

export function SafetyReport() {
  const { t } = useTranslation();
  const { user } = useSession();
  const zone = user?.time_zone ?? 'UTC';
  const minutes = useMinutes();
  const [from, setFrom] = useState('');
  const [until, setUntil] = useState('');
  // "until" includes that day: the period ends at the start of the next one.
  const before = until ? dayStart(new Date(Date.parse(`${until}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10), zone) : null;
  const { data, error, isPending } = useQuery(safetyReportQuery(dayStart(from, zone), before));
  const summary = data ? summarizeResponses(data) : null;
  const download = (kind: 'answers' | 'cases') => {
    if (!data || !summary) return;
    const text = kind === 'answers' ? responseRowsCsv(data) : responseSummaryCsv(summary);
    saveBlob(new Blob([text], { type: 'text/csv;charset=utf-8' }), `safety-response-times-${kind}.csv`);
  };
  return (
    <section className="safety-report" id="safety-report" aria-labelledby="safety-report-title">
      <h2 id="safety-report-title">{t('safetyLoop.report.title')}</h2>
      <p className="muted">{t('safetyLoop.report.intro')}</p>
      <div className="safety-report__period">
        <TextField label={t('safetyLoop.report.from')} type="date" name="safetyReportFrom" value={from} onChange={(e) => setFrom(e.target.value)} />
        <TextField label={t('safetyLoop.report.until')} type="date" name="safetyReportUntil" value={until} onChange={(e) => setUntil(e.target.value)} />
      </div>
      <ErrorAlert error={error} />
      {isPending ? <Spinner /> : null}
      {summary ? (
        <>
          <h3>{t('safetyLoop.report.overall')}</h3>
          <Figures figures={summary.overall} />
          <div className="button-row">
            <button type="button" className="button button--secondary button--small" onClick={() => download('answers')} disabled={summary.overall.count === 0}>
              {t('safetyLoop.report.csvAnswers')}
            </button>
            <button type="button" className="button button--secondary button--small" onClick={() => download('cases')} disabled={summary.overall.count === 0}>
              {t('safetyLoop.report.csvCases')}
            </button>
          </div>
          <h3>{t('safetyLoop.report.perCase')}</h3>
          {summary.cases.length === 0 ? <p className="muted">{t('safetyLoop.report.none')}</p> : null}
          {summary.cases.length > 0 ? (
            <div className="safety-report__scroll">
              <table className="safety-report__table">
                <thead>
                  <tr>
                    <th scope="col">{t('safetyLoop.report.case')}</th>
                    <th scope="col">{t('safetyLoop.report.count')}</th>
                    <th scope="col">{t('safetyLoop.report.open')}</th>
                    <th scope="col">{t('safetyLoop.report.toAcknowledgementShort')}</th>
                    <th scope="col">{t('safetyLoop.report.toCallShort')}</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.cases.map((c) => (
                    <tr key={c.caseId}>
                      <th scope="row">
                        <Link to={`/admin/cases/${c.caseId}`}><Ident>{c.shortId ?? ''}</Ident></Link>
                      </th>
                      <td>{c.figures.count}</td>
                      <td>{c.figures.open}</td>
                      <td>{t('safetyLoop.report.medianMax', { median: minutes(c.figures.acknowledgement.median), max: minutes(c.figures.acknowledgement.max) })}</td>
                      <td>{t('safetyLoop.report.medianMax', { median: minutes(c.figures.call.median), max: minutes(c.figures.call.max) })}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
