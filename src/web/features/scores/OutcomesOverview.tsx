/**
 * PHQ-9 and GAD-7 totals of many cases at once (spec §7 DetailedCases), for following a trial's
 * outcomes from the case list. Loaded only when opened: it reads every visible case's scores.
 */
import { Ident } from '../../ui/Ident';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { detailedCasesQuery, type DetailedCase } from './api';
import { MEASUREMENT_TIMES } from './table';

const PAGE_SIZE = 200;

function totalsByTime(scores: DetailedCase['phq9']): string[] {
  return MEASUREMENT_TIMES.map((time) => {
    const total = scores.find((s) => s.timeOfMeasurement === time)?.total;
    return typeof total === 'number' ? String(total) : '–';
  });
}

function OutcomesTable({ offset, onPage }: { offset: number; onPage(offset: number): void }) {
  const { t } = useTranslation();
  const { data, error, isFetching: loading } = useQuery(detailedCasesQuery(PAGE_SIZE, offset));
  if (error) return <ErrorAlert error={error} />;
  if (!data) return loading ? <Spinner /> : null;
  if (data.nodes.length === 0) return <p className="muted">{t('scores.noCases')}</p>;
  return (
    <>
      <div className="table-scroll" tabIndex={0} role="region" aria-label={t('scores.overview')}>
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col" rowSpan={2}>
                {t('cases.case')}
              </th>
              <th scope="colgroup" colSpan={MEASUREMENT_TIMES.length}>
                PHQ-9
              </th>
              <th scope="colgroup" colSpan={MEASUREMENT_TIMES.length}>
                GAD-7
              </th>
            </tr>
            <tr>
              {[...MEASUREMENT_TIMES, ...MEASUREMENT_TIMES].map((time, index) => (
                <th key={`${time}-${index}`} scope="col">
                  {t(`scores.times.${time}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.nodes.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <Link to={`/admin/cases/${item.id}`}><Ident>{item.shortId ?? ''}</Ident></Link>
                </th>
                {[...totalsByTime(item.phq9), ...totalsByTime(item.gad7)].map((value, index) => (
                  <td key={index}>{value}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data.totalCount > PAGE_SIZE ? (
        <nav className="button-row paging" aria-label={t('cases.paging')}>
          <button type="button" className="button button--secondary" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - PAGE_SIZE))}>
            {t('cases.previous')}
          </button>
          <button type="button" className="button button--secondary" disabled={offset + PAGE_SIZE >= data.totalCount} onClick={() => onPage(offset + PAGE_SIZE)}>
            {t('cases.next')}
          </button>
        </nav>
      ) : null}
    </>
  );
}

export function OutcomesOverview() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [offset, setOffset] = useState(0);
  return (
    <details className="outcomes" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        <h2 className="outcomes__title">{t('scores.overview')}</h2>
      </summary>
      <p className="muted">{t('scores.overviewHint')}</p>
      {open ? <OutcomesTable offset={offset} onPage={setOffset} /> : null}
    </details>
  );
}
