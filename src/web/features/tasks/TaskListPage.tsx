/**
 * The staff task list (route /admin/tasks): open workflow tasks of the cases the person may
 * see (all for coordinators), filtered by due window, overdue, candidate group and case short id,
 * sorted by due date, priority or creation, paged on the server (openWorkflowTasks, 0014). The
 * filter lives in the address, so the back button and a shared link show the same list. Cards on
 * phones, a table where there is room. No spinner (spec §2): the list says when it is loading.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import {
  readTaskFilter,
  TASK_DUE_WINDOWS,
  TASK_GROUPS,
  TASK_PAGE_SIZE,
  TASK_SORTS,
  writeTaskFilter,
  type TaskListFilter,
} from '../../../domain/workflow-tasks';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Checkbox, Page, SelectField, TextField } from '../../ui/ui';
import { useMediaQuery, WIDE_SCREEN } from '../../ui/useMediaQuery';
import { openTasksQuery, type TaskRow } from './api';
import { FailedJobs } from './FailedJobs';
import { DueDate, TaskCaseName, TaskGroups, useTaskName } from './labels';

function Filters({ filter, onChange }: { filter: TaskListFilter; onChange(next: Partial<TaskListFilter>): void }) {
  const { t } = useTranslation();
  const [caseText, setCaseText] = useState(filter.caseSearch);
  useEffect(() => setCaseText(filter.caseSearch), [filter.caseSearch]);
  // The short id is searched when the person asks (Enter or the button): a short id is typed
  // or pasted whole, and a request per key would page through thousands of tasks for nothing.
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({ caseSearch: caseText, offset: 0 });
  };
  return (
    <form className="filters" role="search" aria-label={t('tasks.filters')} onSubmit={submit}>
      <SelectField
        label={t('tasks.dueFilter')}
        name="due"
        value={filter.due}
        onChange={(e) => onChange({ due: e.target.value as TaskListFilter['due'], offset: 0 })}
        options={TASK_DUE_WINDOWS.map((w) => ({ value: w, label: t(`tasks.dueWindows.${w}`) }))}
      />
      <SelectField
        label={t('tasks.group')}
        name="group"
        value={filter.group}
        onChange={(e) => onChange({ group: e.target.value as TaskListFilter['group'], offset: 0 })}
        options={[{ value: '', label: t('tasks.allGroups') }, ...TASK_GROUPS.map((g) => ({ value: g, label: t(`tasks.groups.${g}`) }))]}
      />
      <SelectField
        label={t('tasks.sort')}
        name="sort"
        value={filter.sort}
        onChange={(e) => onChange({ sort: e.target.value as TaskListFilter['sort'], offset: 0 })}
        options={TASK_SORTS.map((s) => ({ value: s, label: t(`tasks.sorts.${s}`) }))}
      />
      <div className="inline-form">
        <TextField label={t('tasks.caseSearch')} hint={t('tasks.caseSearchHint')} type="search" name="case" dir="ltr" value={caseText} onChange={(e) => setCaseText(e.target.value)} />
        <button type="submit" className="button button--secondary">
          {t('tasks.search')}
        </button>
      </div>
      <Checkbox label={t('tasks.overdueOnly')} name="overdue" checked={filter.overdue} onChange={(e) => onChange({ overdue: e.target.checked, offset: 0 })} />
    </form>
  );
}

function CaseLink({ task }: { task: TaskRow }) {
  return (
    <Link to={`/admin/cases/${task.caseId}`}>
      <TaskCaseName task={task} />
    </Link>
  );
}

function TaskCards({ tasks, now }: { tasks: TaskRow[]; now: Date }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  return (
    <ul className="case-cards">
      {tasks.map((task) => (
        <li key={task.id} className="card card--flat">
          <h3 className="case-cards__title">
            <Link to={`/admin/tasks/${task.id}`}>{taskName(task)}</Link>
          </h3>
          <dl className="facts">
            <dt>{t('tasks.due')}</dt>
            <dd>
              <DueDate due={task.due} now={now} patientZone={task.caseByCaseId?.patient?.timeZone} />
            </dd>
            <dt>{t('tasks.case')}</dt>
            <dd>
              <CaseLink task={task} />
            </dd>
            <dt>{t('tasks.for')}</dt>
            <dd>
              <TaskGroups groups={task.candidateGroups} assignee={task.assignee} assigneePerson={task.assigneePerson} />
            </dd>
            <dt>{t('tasks.priority')}</dt>
            <dd>{task.priority}</dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}

function TaskTable({ tasks, now }: { tasks: TaskRow[]; now: Date }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">{t('nav.adminTasks')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('tasks.task')}</th>
            <th scope="col">{t('tasks.case')}</th>
            <th scope="col">{t('tasks.for')}</th>
            <th scope="col">{t('tasks.due')}</th>
            <th scope="col">{t('tasks.priority')}</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.id}>
              <td>
                <Link to={`/admin/tasks/${task.id}`}>{taskName(task)}</Link>
              </td>
              <td>
                <CaseLink task={task} />
              </td>
              <td>
                <TaskGroups groups={task.candidateGroups} assignee={task.assignee} assigneePerson={task.assigneePerson} />
              </td>
              <td>
                <DueDate due={task.due} now={now} patientZone={task.caseByCaseId?.patient?.timeZone} />
              </td>
              <td>{task.priority}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Paging({ offset, total, onPage }: { offset: number; total: number; onPage(offset: number): void }) {
  const { t } = useTranslation();
  if (total <= TASK_PAGE_SIZE && offset === 0) return null;
  return (
    <nav className="button-row paging" aria-label={t('tasks.paging')}>
      <button type="button" className="button button--secondary" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - TASK_PAGE_SIZE))}>
        {t('tasks.previous')}
      </button>
      <button type="button" className="button button--secondary" disabled={offset + TASK_PAGE_SIZE >= total} onClick={() => onPage(offset + TASK_PAGE_SIZE)}>
        {t('tasks.next')}
      </button>
    </nav>
  );
}

/** Set by the task screen after a completion, shown once above the list. */
export interface TaskListState {
  completed?: string;
}

export function TaskListPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const filter = readTaskFilter(params);
  const wide = useMediaQuery(WIDE_SCREEN);
  const resultsHeading = useRef<HTMLHeadingElement>(null);
  const completed = (location.state as TaskListState | null)?.completed;
  const timeZone = user?.time_zone ?? 'UTC';
  const query = useQuery({ ...openTasksQuery(filter, timeZone), placeholderData: keepPreviousData });
  const data = query.data?.page;
  const now = query.data?.at ?? new Date();
  const { error } = query;
  const loading = query.isFetching;

  const onChange = (next: Partial<TaskListFilter>) => setParams(writeTaskFilter({ ...filter, ...next }));
  const page = (offset: number) => {
    onChange({ offset });
    resultsHeading.current?.focus();
  };
  const shown = data?.nodes.length ?? 0;

  return (
    <Page title={t('nav.adminTasks')}>
      {completed ? <Alert kind="success">{t('tasks.completedNamed', { name: completed })}</Alert> : null}
      <FailedJobs />
      <Filters filter={filter} onChange={onChange} />
      <ErrorAlert error={error} />
      <h2 ref={resultsHeading} tabIndex={-1} aria-live="polite">
        {data ? (shown === 0 ? t('tasks.noResults') : t('tasks.range', { from: filter.offset + 1, to: filter.offset + shown, total: data.totalCount })) : loading ? t('common.loading') : t('tasks.results')}
      </h2>
      {data && shown > 0 ? <div aria-busy={loading || undefined}>{wide ? <TaskTable tasks={data.nodes} now={now} /> : <TaskCards tasks={data.nodes} now={now} />}</div> : null}
      {data ? <Paging offset={filter.offset} total={data.totalCount} onPage={page} /> : null}
    </Page>
  );
}
