/**
 * The staff case list (route /admin/cases, spec §7 CaseListWithMessageCounts): search by short
 * id, title or patient, filter by stage or "unassigned only", page through, and see new
 * messages and the latest message per case. The filters live in the address, so the back
 * button and a shared link show the same list.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { CASE_STAGES } from '../../../domain/case-stages';
import { formatDateTime } from '../../../domain/format';
import { currentLocale } from '../../i18n/i18n';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Checkbox, Page, SelectField, Spinner, TextField } from '../../ui/ui';
import { personName } from '../messages/names';
import { caseListQuery, type CaseListFilter, type CaseListItem } from './api';
import { RoleList, StageName } from './labels';
import { OutcomesOverview } from '../scores/OutcomesOverview';
import { ResearchExport } from '../export/ResearchExport';
import { SafetyMark } from '../safety/SafetyMark';
import { SafetyOverview } from '../safety/SafetyOverview';
import { TrialSection } from '../trial/TrialSection';
import { useMediaQuery, WIDE_SCREEN } from '../../ui/useMediaQuery';

const SEARCH_DEBOUNCE_MS = 300;

function readFilter(params: URLSearchParams): CaseListFilter {
  return {
    search: params.get('q') ?? '',
    stage: params.get('stage') ?? '',
    unassigned: params.get('unassigned') === '1',
    offset: Math.max(0, Number(params.get('offset')) || 0),
  };
}

function writeFilter(filter: CaseListFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.search) params.set('q', filter.search);
  if (filter.stage) params.set('stage', filter.stage);
  if (filter.unassigned) params.set('unassigned', '1');
  if (filter.offset) params.set('offset', String(filter.offset));
  return params;
}

function Filters({ filter, onChange }: { filter: CaseListFilter; onChange(next: Partial<CaseListFilter>, replace?: boolean): void }) {
  const { t } = useTranslation();
  const [text, setText] = useState(filter.search);
  // True while typed text has not reached the address yet.
  const typing = useRef(false);
  // The address changed by other means (back button, a link): show its search.
  useEffect(() => {
    if (!typing.current) setText(filter.search);
  }, [filter.search]);
  // Searching as one types, but only once typing pauses: one request per pause, not per key.
  useEffect(() => {
    if (!typing.current) return;
    const timer = setTimeout(() => {
      typing.current = false;
      onChange({ search: text, offset: 0 }, true);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, onChange]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    typing.current = false;
    onChange({ search: text, offset: 0 });
  };
  return (
    <form className="filters" role="search" aria-label={t('cases.filters')} onSubmit={submit}>
      <TextField
        label={t('cases.search')}
        hint={t('cases.searchHint')}
        type="search"
        name="q"
        dir="auto"
        value={text}
        onChange={(e) => {
          typing.current = true;
          setText(e.target.value);
        }}
      />
      <SelectField
        label={t('cases.stage')}
        name="stage"
        value={filter.stage}
        onChange={(e) => onChange({ stage: e.target.value, offset: 0 })}
        options={[{ value: '', label: t('cases.allStages') }, ...CASE_STAGES.map((stage) => ({ value: stage, label: t(`caseStages.${stage}`) }))]}
      />
      <Checkbox label={t('cases.unassignedOnly')} name="unassigned" checked={filter.unassigned} onChange={(e) => onChange({ unassigned: e.target.checked, offset: 0 })} />
    </form>
  );
}

function LatestMessage({ item }: { item: CaseListItem }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const latest = item.latestMessage;
  if (!latest?.sentAt) return <span className="muted">{t('cases.noMessages')}</span>;
  return (
    <>
      <span dir="auto">{latest.subject?.trim() || t('messages.noSubject')}</span>
      <br />
      <time className="muted" dateTime={latest.sentAt}>
        {formatDateTime(new Date(latest.sentAt), currentLocale(), user?.time_zone ?? 'UTC')}
      </time>
    </>
  );
}

function NewMessages({ count }: { count: number | null }) {
  const { t } = useTranslation();
  if (!count) return <span className="muted">0</span>;
  return (
    <span className="badge badge--inline" aria-label={t('messages.unreadBadge', { count })}>
      {count}
    </span>
  );
}

function Similarity({ value }: { value: number | null }) {
  const percent = new Intl.NumberFormat(currentLocale(), { style: 'percent', maximumFractionDigits: 0 }).format(value ?? 0);
  return <>{percent}</>;
}

/** The randomized arm (issue 15), or a dash before randomization. */
function treatmentOf(item: CaseListItem): string {
  return item.treatmentAssignmentsByCaseIdList?.[0]?.treatment ?? '—';
}

function caseName(item: CaseListItem): string {
  return personName(item.patient) ?? item.title ?? '';
}

/** Phones: one card per case, every value labelled. */
function CaseCards({ items, searching }: { items: CaseListItem[]; searching: boolean }) {
  const { t } = useTranslation();
  return (
    <ul className="case-cards">
      {items.map((item) => (
        <li key={item.id} className="card card--flat">
          <h3 className="case-cards__title">
            <Link to={`/admin/cases/${item.id}`}>
              <span dir="ltr">{item.shortId}</span> <span dir="auto">{caseName(item)}</span>
            </Link>
            <SafetyMark count={item.openSafetySignals} />
          </h3>
          <dl className="facts">
            <dt>{t('cases.stage')}</dt>
            <dd>
              <StageName stage={item.stage} />
            </dd>
            <dt>{t('cases.newMessages')}</dt>
            <dd>
              <NewMessages count={item.newMessages} />
            </dd>
            <dt>{t('cases.latestMessage')}</dt>
            <dd>
              <LatestMessage item={item} />
            </dd>
            <dt>{t('cases.myRoles')}</dt>
            <dd>
              <RoleList involvement={item.myInvolvement} />
            </dd>
            <dt>{t('trial.case.treatment')}</dt>
            <dd dir="ltr">{treatmentOf(item)}</dd>
            {searching ? (
              <>
                <dt>{t('cases.match')}</dt>
                <dd>
                  <Similarity value={item.searchSimilarity} />
                </dd>
              </>
            ) : null}
          </dl>
        </li>
      ))}
    </ul>
  );
}

/** Wider screens: a table to compare cases at a glance. */
function CaseTable({ items, searching }: { items: CaseListItem[]; searching: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">{t('nav.adminCases')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('cases.case')}</th>
            <th scope="col">{t('cases.patient')}</th>
            <th scope="col">{t('cases.stage')}</th>
            <th scope="col">{t('cases.newMessages')}</th>
            <th scope="col">{t('cases.latestMessage')}</th>
            <th scope="col">{t('cases.myRoles')}</th>
            <th scope="col">{t('trial.case.treatment')}</th>
            {searching ? <th scope="col">{t('cases.match')}</th> : null}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id}>
              <td>
                <Link to={`/admin/cases/${item.id}`} dir="ltr">
                  {item.shortId}
                </Link>
                <SafetyMark count={item.openSafetySignals} />
              </td>
              <td>
                <span dir="auto">{caseName(item)}</span>
              </td>
              <td>
                <StageName stage={item.stage} />
              </td>
              <td>
                <NewMessages count={item.newMessages} />
              </td>
              <td>
                <LatestMessage item={item} />
              </td>
              <td>
                <RoleList involvement={item.myInvolvement} />
              </td>
              <td dir="ltr">{treatmentOf(item)}</td>
              {searching ? (
                <td>
                  <Similarity value={item.searchSimilarity} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Paging({ offset, pageSize, total, onPage }: { offset: number; pageSize: number; total: number; onPage(offset: number): void }) {
  const { t } = useTranslation();
  if (total <= pageSize && offset === 0) return null;
  return (
    <nav className="button-row paging" aria-label={t('cases.paging')}>
      <button type="button" className="button button--secondary" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - pageSize))}>
        {t('cases.previous')}
      </button>
      <button type="button" className="button button--secondary" disabled={offset + pageSize >= total} onClick={() => onPage(offset + pageSize)}>
        {t('cases.next')}
      </button>
    </nav>
  );
}

export function CaseListPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const filter = readFilter(params);
  const wide = useMediaQuery(WIDE_SCREEN);
  const resultsHeading = useRef<HTMLHeadingElement>(null);
  const query = useQuery({ ...caseListQuery(filter), placeholderData: keepPreviousData });
  const { data: result, error } = query;
  const loading = query.isFetching;

  // Stable for the debounce effect; reads the current address when called.
  const latest = useRef({ filter, setParams });
  useEffect(() => {
    latest.current = { filter, setParams };
  });
  const onChange = useCallback((next: Partial<CaseListFilter>, replace = false) => {
    latest.current.setParams(writeFilter({ ...latest.current.filter, ...next }), { replace });
  }, []);

  const page = (offset: number) => {
    onChange({ offset });
    resultsHeading.current?.focus();
  };

  const searching = Boolean(filter.search.trim());
  const total = result?.totalCount ?? 0;
  const shown = result?.nodes.length ?? 0;

  return (
    <Page title={t('nav.adminCases')}>
      {user?.is_coordinator_account ? <SafetyOverview /> : null}
      <Filters filter={filter} onChange={onChange} />
      <ErrorAlert error={error} />
      <h2 ref={resultsHeading} tabIndex={-1} aria-live="polite">
        {result ? (shown === 0 ? t('cases.noResults') : t('cases.range', { from: filter.offset + 1, to: filter.offset + shown, total })) : t('cases.results')}
      </h2>
      {loading && !result ? <Spinner /> : null}
      {result && shown > 0 ? (
        <div aria-busy={loading || undefined}>{wide ? <CaseTable items={result.nodes} searching={searching} /> : <CaseCards items={result.nodes} searching={searching} />}</div>
      ) : null}
      {result ? <Paging offset={filter.offset} pageSize={result.pageSize} total={total} onPage={page} /> : null}
      <OutcomesOverview />
      {user?.is_coordinator_account ? <ResearchExport /> : null}
      <TrialSection />
    </Page>
  );
}
