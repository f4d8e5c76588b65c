/**
 * The staff case list (route /admin/cases, spec §7 PagedCases): search by short id, title or
 * patient, filter by stage or "unassigned only", sort, page through 200 at a time, and see per
 * case its treatment, care team, open tasks, next waiting date and latest PHQ-9 item 9. The
 * filters and the sort live in the address, so the back button and a shared link show the same list.
 */
import { Ident } from '../../ui/Ident';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import type { TFunction } from 'i18next';
import { CASE_STAGES } from '../../../domain/case-stages';
import { useClock } from '../../ui/useClock';
import { currentLocale } from '../../i18n/i18n';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Checkbox, Page, SelectField, Spinner, TextField } from '../../ui/ui';
import { personName } from '../messages/names';
import { CASE_SORTS, caseListQuery, type CaseListFilter, type CaseListItem, type CaseSort } from './api';
import { RoleList, StageName } from './labels';
import { OutcomesOverview } from '../scores/OutcomesOverview';
import { ResearchExport } from '../export/ResearchExport';
import { SafetyMark } from '../safety/SafetyMark';
import { SafetyOverview } from '../safety/SafetyOverview';
import { TrialSection } from '../trial/TrialSection';
import { useMediaQuery, WIDE_SCREEN } from '../../ui/useMediaQuery';
import { armName } from '../trial/arm-name';

const SEARCH_DEBOUNCE_MS = 300;

function readSort(params: URLSearchParams): CaseSort {
  const sort = params.get('sort');
  return (CASE_SORTS as readonly string[]).includes(sort ?? '') ? (sort as CaseSort) : 'shortId';
}

const time = (value: string | null | undefined): number => (value ? Date.parse(value) : Number.POSITIVE_INFINITY);

/** Orders the page shown; ties keep the server's order (newest first). */
export function sortCases(items: CaseListItem[], sort: CaseSort): CaseListItem[] {
  const key: Record<CaseSort, (item: CaseListItem) => number> = {
    shortId: () => 0,
    newest: (item) => -Date.parse(item.createdAt),
    nextWaitingDate: (item) => time(item.nextWaitingDate),
    therapistOverdue: (item) => -(item.therapistTasks?.countOfOverdue ?? 0),
    patientOpen: (item) => -(item.patientTasks?.countOfOpen ?? 0),
    phq9Item9: (item) => -(item.latestPhq9Item9 ?? -1),
  };
  const by = key[sort];
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => by(a.item) - by(b.item) || a.index - b.index)
    .map(({ item }) => item);
}

function readFilter(params: URLSearchParams): CaseListFilter {
  return {
    search: params.get('q') ?? '',
    stage: params.get('stage') ?? '',
    unassigned: params.get('unassigned') === '1',
    offset: Math.max(0, Number(params.get('offset')) || 0),
  };
}

function writeFilter(filter: CaseListFilter, sort: CaseSort): URLSearchParams {
  const params = new URLSearchParams();
  if (sort !== 'shortId') params.set('sort', sort);
  if (filter.search) params.set('q', filter.search);
  if (filter.stage) params.set('stage', filter.stage);
  if (filter.unassigned) params.set('unassigned', '1');
  if (filter.offset) params.set('offset', String(filter.offset));
  return params;
}

function Filters({
  filter,
  sort,
  onChange,
  onSort,
}: {
  filter: CaseListFilter;
  sort: CaseSort;
  onChange(next: Partial<CaseListFilter>, replace?: boolean): void;
  onSort(sort: CaseSort): void;
}) {
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
        options={[
          { value: '', label: t('cases.allStages') },
          ...CASE_STAGES.map((stage) => ({
            value: stage,
            label: t(`caseStages.${stage}`),
          })),
        ]}
      />
      <SelectField
        label={t('cases.list.sort')}
        name="sort"
        value={sort}
        onChange={(e) => onSort(e.target.value as CaseSort)}
        options={CASE_SORTS.map((value) => ({
          value,
          label: t(`cases.list.sorts.${value}`),
        }))}
      />
      <Checkbox label={t('cases.unassignedOnly')} name="unassigned" checked={filter.unassigned} onChange={(e) => onChange({ unassigned: e.target.checked, offset: 0 })} />
    </form>
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
  const percent = new Intl.NumberFormat(currentLocale(), {
    style: 'percent',
    maximumFractionDigits: 0,
  }).format(value ?? 0);
  return <>{percent}</>;
}

/** The randomized arm (issue 15) by its translated name, or a dash before randomization. */
function treatmentOf(t: TFunction, item: CaseListItem): string {
  return armName(t, item.treatmentAssignmentsByCaseIdList?.[0]?.treatment);
}

function caseName(item: CaseListItem): string {
  return personName(item.patient) ?? item.title ?? '';
}

type Team = CaseListItem['therapistsList'];

/** The members of one care role, by name; a dash when nobody holds it. */
function TeamNames({ team }: { team: Team }) {
  const names = (team ?? []).map((member) => personName(member.user) ?? '').filter(Boolean);
  if (names.length === 0) return <span className="muted">—</span>;
  return <span dir="auto">{new Intl.ListFormat(currentLocale(), { type: 'unit' }).format(names)}</span>;
}

function When({ value }: { value: string | null | undefined }) {
  const clock = useClock();
  if (!value) return <span className="muted">—</span>;
  return <time dateTime={value}>{clock.dateTime(value)}</time>;
}

/** The patients' open tasks and when the next one is due. */
function PatientTasks({ item }: { item: CaseListItem }) {
  const { t } = useTranslation();
  const open = item.patientTasks?.countOfOpen ?? 0;
  const due = item.patientTasks?.nextTime ?? item.patientTasks?.latestDue;
  return (
    <span className="task-stats">
      {t('cases.list.open', { value: formatCount(open) })}
      {open > 0 && due ? (
        <>
          {' · '}
          {t('cases.list.due')} <When value={due} />
        </>
      ) : null}
    </span>
  );
}

/** The therapists' open tasks, overdue ones marked. */
function TherapistTasks({ item }: { item: CaseListItem }) {
  const { t } = useTranslation();
  const open = item.therapistTasks?.countOfOpen ?? 0;
  const overdue = item.therapistTasks?.countOfOverdue ?? 0;
  return (
    <span className="task-stats">
      {t('cases.list.open', { value: formatCount(open) })}
      {overdue > 0 ? (
        <>
          {' · '}
          <span className="badge badge--inline badge--danger" data-testid="overdue">
            {t('cases.list.overdue', { value: formatCount(overdue) })}
          </span>
        </>
      ) : null}
    </span>
  );
}

function formatCount(value: number): string {
  return new Intl.NumberFormat(currentLocale()).format(value);
}

/** The latest answer to PHQ-9 item 9 (thoughts of self-harm); 1 or more is marked. */
function Phq9Item9({ value }: { value: number | null | undefined }) {
  const { t } = useTranslation();
  if (value == null) return <span className="muted">—</span>;
  if (value < 1) return <span data-phq9-item9={value}>{formatCount(value)}</span>;
  return (
    <span className="badge badge--inline badge--danger" data-phq9-item9={value} title={t('cases.list.phq9Risk')}>
      {formatCount(value)}
      <span className="visually-hidden"> {t('cases.list.phq9Risk')}</span>
    </span>
  );
}

/** The labelled values of one case, shared by the phone cards and (as cells) the table. */
function columns(t: TFunction, searching: boolean) {
  const list: {
    key: string;
    label: string;
    cell(item: CaseListItem): ReactNode;
    ltr?: boolean;
  }[] = [
    {
      key: 'stage',
      label: t('cases.stage'),
      cell: (item) => <StageName stage={item.stage} />,
    },
    {
      key: 'treatment',
      label: t('trial.case.treatment'),
      cell: (item) => treatmentOf(t, item),
    },
    {
      key: 'therapists',
      label: t('cases.list.therapists'),
      cell: (item) => <TeamNames team={item.therapistsList} />,
    },
    {
      key: 'counselors',
      label: t('cases.list.counselors'),
      cell: (item) => <TeamNames team={item.counselorsList} />,
    },
    {
      key: 'interviewers',
      label: t('cases.list.interviewers'),
      cell: (item) => <TeamNames team={item.interviewersList} />,
    },
    {
      key: 'patientTasks',
      label: t('cases.list.patientTasks'),
      cell: (item) => <PatientTasks item={item} />,
    },
    {
      key: 'therapistTasks',
      label: t('cases.list.therapistTasks'),
      cell: (item) => <TherapistTasks item={item} />,
    },
    {
      key: 'nextWaitingDate',
      label: t('cases.list.nextWaitingDate'),
      cell: (item) => <When value={item.nextWaitingDate} />,
    },
    {
      key: 'phq9Item9',
      label: t('cases.list.phq9Item9'),
      cell: (item) => <Phq9Item9 value={item.latestPhq9Item9} />,
    },
    {
      key: 'newMessages',
      label: t('cases.newMessages'),
      cell: (item) => <NewMessages count={item.newMessages} />,
    },
    {
      key: 'myRoles',
      label: t('cases.myRoles'),
      cell: (item) => <RoleList involvement={item.myInvolvement} />,
    },
  ];
  if (searching)
    list.push({
      key: 'match',
      label: t('cases.match'),
      cell: (item) => <Similarity value={item.searchSimilarity} />,
    });
  return list;
}

/** Phones: one card per case, every value labelled. */
function CaseCards({ items, searching }: { items: CaseListItem[]; searching: boolean }) {
  const { t } = useTranslation();
  const cols = columns(t, searching);
  return (
    <ul className="case-cards">
      {items.map((item) => (
        <li key={item.id} className="card card--flat" data-case={item.shortId}>
          <h3 className="case-cards__title">
            <Link to={`/admin/cases/${item.id}`}>
              <Ident>{item.shortId ?? ''}</Ident> <span dir="auto">{caseName(item)}</span>
            </Link>
            <SafetyMark count={item.openSafetySignals} />
          </h3>
          <dl className="facts">
            {cols.map((col) => (
              <Fragment key={col.key}>
                <dt>{col.label}</dt>
                <dd data-col={col.key}>{col.ltr ? <bdi dir="ltr">{col.cell(item)}</bdi> : col.cell(item)}</dd>
              </Fragment>
            ))}
          </dl>
        </li>
      ))}
    </ul>
  );
}

/** Wider screens: a table to compare cases at a glance. */
function CaseTable({ items, searching }: { items: CaseListItem[]; searching: boolean }) {
  const { t } = useTranslation();
  const cols = columns(t, searching);
  return (
    <div className="table-scroll">
      <table className="data-table case-table">
        <caption className="visually-hidden">{t('nav.adminCases')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('cases.case')}</th>
            <th scope="col">{t('cases.patient')}</th>
            {cols.map((col) => (
              <th scope="col" key={col.key}>
                {col.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} data-case={item.shortId}>
              <td>
                <Link to={`/admin/cases/${item.id}`}>
                  <Ident>{item.shortId ?? ''}</Ident>
                </Link>
                <SafetyMark count={item.openSafetySignals} />
              </td>
              <td>
                <span dir="auto">{caseName(item)}</span>
              </td>
              {cols.map((col) => (
                <td key={col.key} data-col={col.key}>
                  {col.ltr ? <bdi dir="ltr">{col.cell(item)}</bdi> : col.cell(item)}
                </td>
              ))}
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
  const sort = readSort(params);
  const wide = useMediaQuery(WIDE_SCREEN);
  const resultsHeading = useRef<HTMLHeadingElement>(null);
  const query = useQuery({
    ...caseListQuery(filter),
    placeholderData: keepPreviousData,
  });
  const { data: result, error } = query;
  const loading = query.isFetching;

  // Stable for the debounce effect; reads the current address when called.
  const latest = useRef({ filter, sort, setParams });
  useEffect(() => {
    latest.current = { filter, sort, setParams };
  });
  const onChange = useCallback((next: Partial<CaseListFilter>, replace = false) => {
    latest.current.setParams(writeFilter({ ...latest.current.filter, ...next }, latest.current.sort), { replace });
  }, []);

  const onSort = (next: CaseSort) => setParams(writeFilter(filter, next), { replace: true });

  const page = (offset: number) => {
    onChange({ offset });
    resultsHeading.current?.focus();
  };

  const searching = Boolean(filter.search.trim());
  const total = result?.totalCount ?? 0;
  const shown = result?.nodes.length ?? 0;
  const items = result ? sortCases(result.nodes, sort) : [];

  return (
    <Page title={t('nav.adminCases')}>
      {user?.is_coordinator_account ? <SafetyOverview /> : null}
      <Filters filter={filter} sort={sort} onChange={onChange} onSort={onSort} />
      <ErrorAlert error={error} />
      <h2 ref={resultsHeading} tabIndex={-1} aria-live="polite">
        {result
          ? shown === 0
            ? t('cases.noResults')
            : t('cases.range', {
                from: filter.offset + 1,
                to: filter.offset + shown,
                total,
              })
          : t('cases.results')}
      </h2>
      {loading && !result ? <Spinner /> : null}
      {result && shown > 0 ? (
        <div aria-busy={loading || undefined}>{wide ? <CaseTable items={items} searching={searching} /> : <CaseCards items={items} searching={searching} />}</div>
      ) : null}
      {result ? <Paging offset={filter.offset} pageSize={result.pageSize} total={total} onPage={page} /> : null}
      <OutcomesOverview />
      {user?.is_coordinator_account ? <ResearchExport /> : null}
      <TrialSection />
    </Page>
  );
}
