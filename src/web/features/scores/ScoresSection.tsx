/**
 * A case's questionnaire scores for staff: each instrument's total, band, flags, subscales and
 * provisional diagnoses per time of measurement, and charts of PHQ-9, GAD-7 and PCL-5 over
 * time. Labels of bands, flags and scores come from the instrument definitions, which carry
 * them in ar, de and en.
 */
import { isolateLatin } from '../../../domain/bidi';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { INSTRUMENTS, type InstrumentDefinition } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { useQuery } from '@tanstack/react-query';
import { currentLocale } from '../../i18n/i18n';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { caseScoresQuery, type ScoreRow } from './api';
import { ScoreChart } from './ScoreChart';
import { arrangeScores, chartSeries, timesInUse } from './table';

function formatNumber(value: number, locale: Locale): string {
  return new Intl.NumberFormat(locale === 'ar' ? 'ar' : locale, { maximumFractionDigits: 2 }).format(value);
}

function FlagList({ row, definition, locale }: { row: ScoreRow; definition: InstrumentDefinition; locale: Locale }) {
  if (!row.flags || row.flags.length === 0) return null;
  return (
    <ul className="plain-list score-flags">
      {row.flags.map((code) => {
        const flag = definition.flags.find((f) => f.code === code);
        return (
          <li key={code} className={`badge badge--inline${flag?.kind === 'safety' ? ' badge--danger' : ''}`}>
            {(flag ? isolateLatin(flag.labels[locale]) : code)}
          </li>
        );
      })}
    </ul>
  );
}

function ScoreDetails({ row, definition, locale }: { row: ScoreRow; definition: InstrumentDefinition; locale: Locale }) {
  const { t } = useTranslation();
  const subscales = definition.subscales.filter((s) => typeof row.subscales?.[s.id] === 'number');
  const diagnoses = definition.diagnoses.filter((d) => typeof row.diagnoses?.[d.code] === 'boolean');
  if (subscales.length === 0 && diagnoses.length === 0) return null;
  return (
    <details className="score-details">
      <summary>{t('scores.more')}</summary>
      <dl className="facts">
        {subscales.map((s) => (
          <Fragment key={s.id}>
            <dt>{isolateLatin(s.labels[locale])}</dt>
            <dd>{formatNumber(row.subscales![s.id]!, locale)}</dd>
          </Fragment>
        ))}
        {diagnoses.map((d) => (
          <Fragment key={d.code}>
            <dt>{isolateLatin(d.labels[locale])}</dt>
            <dd>{row.diagnoses![d.code] ? t('scores.diagnosisMet') : t('scores.diagnosisNotMet')}</dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}

function ScoreCell({ row, definition, locale }: { row: ScoreRow | undefined; definition: InstrumentDefinition; locale: Locale }) {
  const { t } = useTranslation();
  if (!row) return <span className="muted">–</span>;
  const band = definition.bands?.find((b) => b.code === row.band);
  return (
    <>
      {typeof row.total === 'number' ? (
        <span className="score-total">
          <strong>{formatNumber(row.total, locale)}</strong>
          {band ? <span> · {isolateLatin(band.labels[locale])}</span> : null}
        </span>
      ) : (
        <span className="muted">{row.complete === false ? t('scores.incomplete') : t('scores.noTotal')}</span>
      )}
      <FlagList row={row} definition={definition} locale={locale} />
      <ScoreDetails row={row} definition={definition} locale={locale} />
    </>
  );
}

export function ScoresSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const locale = currentLocale();
  const { data, error, isPending: loading } = useQuery(caseScoresQuery(caseId));
  const scores = arrangeScores(data ?? []);
  const times = timesInUse(scores);
  const series = chartSeries(scores);
  return (
    <section aria-labelledby="scores-title">
      <h2 id="scores-title">{t('scores.title')}</h2>
      <ErrorAlert error={error} />
      {loading && !data ? <Spinner /> : null}
      {data && scores.length === 0 ? <p className="muted">{t('scores.none')}</p> : null}
      {series.length > 0 ? (
        <div className="score-charts">
          {series.map((s) => (
            <ScoreChart key={s.code} series={s} />
          ))}
        </div>
      ) : null}
      {scores.length > 0 ? (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t('scores.table')}>
          <table className="data-table score-table">
            <thead>
              <tr>
                <th scope="col">{t('scores.instrument')}</th>
                {times.map((time) => (
                  <th key={time} scope="col">
                    {t(`scores.times.${time}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {scores.map((entry) => {
                const definition = INSTRUMENTS[entry.code];
                return (
                  <tr key={entry.code}>
                    <th scope="row">{isolateLatin(definition.labels[locale])}</th>
                    {times.map((time) => (
                      <td key={time}>
                        <ScoreCell row={entry.byTime[time]} definition={definition} locale={locale} />
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
