/**
 * Invoice items per month: coordinators see everyone's (grouped by person) and set the
 * short-term notice; therapists and interviewers see their own. CSV download of the month.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import { ApiError } from '../../api/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { Alert, TextField } from '../../ui/ui';
import { downloadFile, invoicesQuery, refetchAfterTrialChange, setShortNotice, type InvoiceItem } from './api';
import { TrialError } from './TrialError';

function monthValue(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}`;
}

function statusKey(item: InvoiceItem): string {
  if (item.has_taken_place) return 'held';
  if (item.canceled_short_term) return item.canceled_by_therapist ? 'canceledShortByTherapist' : 'canceledShort';
  return item.canceled_by_therapist ? 'canceledByTherapist' : 'canceled';
}

function NoticeForm({ hours, onSaved }: { hours: number; onSaved(): void }) {
  const { t } = useTranslation();
  const [value, setValue] = useState(String(hours));
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      className="trial-inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        setDone(false);
        setShortNotice(Number(value)).then(
          () => {
            setDone(true);
            onSaved();
          },
          (caught: unknown) => setError(caught as ApiError),
        );
      }}
    >
      <TextField label={t('trial.invoices.notice')} hint={t('trial.invoices.noticeHint')} name="notice" inputMode="numeric" dir="ltr" value={value} onChange={(e) => setValue(e.target.value)} />
      <button type="submit" className="button button--secondary button--small">
        {t('common.save')}
      </button>
      <TrialError error={error} />
      {done ? <p role="status">{t('trial.invoices.noticeSaved')}</p> : null}
    </form>
  );
}

export function InvoicesPanel() {
  const clock = useClock();
  const { t } = useTranslation();
  const { user } = useSession();
  const [month, setMonth] = useState(() => monthValue(new Date()));
  const client = useQueryClient();
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const { data, error } = useQuery(invoicesQuery(year, monthNumber));
  const [failed, setFailed] = useState<ApiError | null>(null);
  const coordinator = Boolean(user?.is_coordinator_account);
  const people = new Map<string, InvoiceItem[]>();
  for (const item of data?.items ?? []) {
    const key = item.alias ?? item.username ?? '—';
    people.set(key, [...(people.get(key) ?? []), item]);
  }
  const download = async () => {
    setFailed(null);
    try {
      await downloadFile(`/api/trial/invoices.csv?year=${year}&month=${monthNumber}`, `sanad-invoices-${month}.csv`);
    } catch (caught) {
      setFailed(caught as ApiError);
    }
  };

  return (
    <section className="trial-panel" aria-labelledby="invoices-title">
      <h2 id="invoices-title">{coordinator ? t('trial.invoices.title') : t('trial.invoices.mine')}</h2>
      <div className="trial-inline-form">
        <TextField label={t('trial.invoices.month')} type="month" name="month" value={month} onChange={(e) => e.target.value && setMonth(e.target.value)} />
        <button type="button" className="button button--secondary button--small" onClick={() => void download()}>
          {t('trial.invoices.download')}
        </button>
      </div>
      <TrialError error={error ? asApiError(error) : failed} />
      {data && data.items.length === 0 ? <Alert kind="info">{t('trial.invoices.none')}</Alert> : null}
      {[...people.entries()].map(([person, items]) => (
        <div key={person} className="table-scroll">
          <table className="data-table">
            <caption dir="auto">{t('trial.invoices.person', { person, n: items.length })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('trial.invoices.date')}</th>
                <th scope="col">{t('trial.invoices.type')}</th>
                <th scope="col">{t('trial.invoices.status')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  <td>{clock.dateTime(item.date)}</td>
                  <td>{t(`trial.invoices.types.${item.invoice_type}`)}</td>
                  <td>{t(`trial.invoices.statuses.${statusKey(item)}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {coordinator && data ? <NoticeForm key={data.shortNoticeHours} hours={data.shortNoticeHours} onSaved={() => void refetchAfterTrialChange(client)} /> : null}
    </section>
  );
}
