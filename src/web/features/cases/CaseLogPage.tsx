/**
 * The case log (route /admin/cases/:caseId/log): the append-only audit log of the case,
 * newest first, filterable by table and operation. Who acted, when, and what changed; the
 * log never holds message subjects or bodies (0006-messages.sql redacts them).
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { auditChanges, auditSentence, mentionedPeople, PERSON_KEYS, type AuditChange } from '../../../domain/audit';
import { isKnownStage } from '../../../domain/case-stages';
import { useClock } from '../../ui/useClock';
import { currentLocale } from '../../i18n/i18n';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, SelectField, Spinner } from '../../ui/ui';
import type { Person } from '../messages/api';
import { personName } from '../messages/names';
import { AUDIT_PAGE_SIZE, caseLogQuery, personQuery, type AuditRow } from './api';
import { auditTableName } from './audit-table-name';

const TABLES = ['cases', 'case_members', 'case_messages', 'users'] as const;
const OPERATIONS = ['INSERT', 'UPDATE', 'DELETE'] as const;
/** The case itself is the page's subject; repeating its id on every row says nothing. */
const UNSHOWN_KEYS = new Set(['case_id']);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Names for the people a log page mentions, each asked once per session (personQuery). */
function usePeople(rows: readonly AuditRow[] | undefined): Map<string, Person> {
  const ids = useMemo(() => [...new Set((rows ?? []).flatMap((row) => [...(row.actorId ? [row.actorId] : []), ...mentionedPeople(asRecord(row.oldData), asRecord(row.newData))]))], [rows]);
  const results = useQueries({ queries: ids.map((id) => personQuery(id)) });
  const people = new Map<string, Person>();
  for (const result of results) if (result.data) people.set(result.data.id, result.data);
  return people;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

function Value({ field, value, people }: { field: string; value: unknown; people: Map<string, Person> }) {
  const clock = useClock();
  const { t } = useTranslation();
  if (value === null || value === undefined || value === '') return <span className="muted">{t('cases.empty')}</span>;
  if (typeof value === 'boolean') return <>{value ? t('cases.yes') : t('cases.no')}</>;
  if (PERSON_KEYS.has(field) && typeof value === 'string') return <span dir="auto">{personName(people.get(value)) ?? t('caseLog.unknownPerson')}</span>;
  if (field === 'stage' && typeof value === 'string' && isKnownStage(value)) return <>{t(`caseStages.${value}`)}</>;
  if (typeof value === 'string' && TIMESTAMP.test(value)) return <time dateTime={value}>{clock.dateTime(value)}</time>;
  if (typeof value === 'string') return <span dir="auto">{value}</span>;
  return <span dir="ltr">{JSON.stringify(value)}</span>;
}

function ChangeList({ operation, changes, people }: { operation: string; changes: AuditChange[]; people: Map<string, Person> }) {
  const { t } = useTranslation();
  const shown = changes.filter((c) => !UNSHOWN_KEYS.has(c.key));
  if (shown.length === 0) return null;
  return (
    <dl className="facts changes">
      {shown.map((change) => (
        <div key={change.key} className="changes__row">
          <dt>{t(`auditFields.${change.key}`, { defaultValue: change.key })}</dt>
          <dd>
            {operation === 'UPDATE' ? (
              <>
                <Value field={change.key} value={change.before} people={people} />
                <span aria-hidden="true">{t('caseLog.arrow')}</span>
                <span className="visually-hidden">{t('caseLog.becomes')}</span>
                <Value field={change.key} value={change.after} people={people} />
              </>
            ) : (
              <Value field={change.key} value={operation === 'DELETE' ? change.before : change.after} people={people} />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The entry as a sentence in the reader's language; names of people isolated (<bdi>). */
function Sentence({ row, who, people }: { row: AuditRow; who: string; people: Map<string, Person> }) {
  const { t } = useTranslation();
  const said = auditSentence({ tableName: row.tableName, operation: row.operation, oldData: asRecord(row.oldData), newData: asRecord(row.newData) });
  const name = (id: string | null) => (id ? (personName(people.get(id)) ?? t('caseLog.unknownPerson')) : t('caseLog.unknownPerson'));
  const roles = (list: string[]) => list.map((role) => t(`roles.${role}`, { defaultValue: role })).join(t('caseLog.and'));
  const stage = (code: string) => (isKnownStage(code) ? t(`caseStages.${code}`) : code);
  switch (said.kind) {
    case 'memberAdded':
      return <>{t('caseLog.said.memberAdded', { who, member: name(said.member), roles: roles(said.roles) })}</>;
    case 'memberRemoved':
      return <>{t('caseLog.said.memberRemoved', { who, member: name(said.member) })}</>;
    case 'memberRoles':
      return <>{t('caseLog.said.memberRoles', { who, member: name(said.member), roles: roles(said.roles) })}</>;
    case 'stage':
      return <>{t('caseLog.said.stage', { from: stage(said.from), to: stage(said.to) })}</>;
    case 'caseFields':
      return <>{t('caseLog.said.caseFields', { who, fields: said.fields.map((f) => t(`auditFields.${f}`, { defaultValue: f })).join(t('caseLog.and')) })}</>;
    case 'other':
      return (
        <>
          {t('caseLog.said.other', {
            who,
            change: t(`caseLog.operations.${said.operation}`, { defaultValue: said.operation }),
            record: auditTableName(t, said.table, currentLocale()),
          })}
        </>
      );
    case 'caseCreated':
    case 'messageSent':
    case 'draftSaved':
    case 'messageDeleted':
    case 'messageRead':
      return <>{t(`caseLog.said.${said.kind}`, { who })}</>;
  }
}

function LogEntry({ row, people }: { row: AuditRow; people: Map<string, Person> }) {
  const clock = useClock();
  const { t } = useTranslation();
  // No actor: the change came from the server itself (the CLI, the workflow, a migration).
  const who = row.actorId ? (personName(people.get(row.actorId)) ?? t('caseLog.unknownPerson')) : t('caseLog.system');
  const changes = auditChanges(row.operation, asRecord(row.oldData), asRecord(row.newData));
  return (
    <li className="card card--flat log-entry">
      <p className="log-entry__what">
        <Sentence row={row} who={who} people={people} />
      </p>
      <p className="muted">
        <time dateTime={row.at}>{clock.dateTime(row.at)}</time>
      </p>
      {changes.some((c) => !UNSHOWN_KEYS.has(c.key)) ? (
        <details className="log-entry__raw">
          <summary>{t('caseLog.showChange')}</summary>
          <ChangeList operation={row.operation} changes={changes} people={people} />
        </details>
      ) : null}
    </li>
  );
}

export function CaseLogPage() {
  const { t } = useTranslation();
  const { caseId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tableName = params.get('table') ?? '';
  const operation = params.get('operation') ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const { data: page, error, isFetching: loading } = useQuery(caseLogQuery(caseId, { tableName, operation, offset }));
  const people = usePeople(page?.nodes);
  const heading = useRef<HTMLHeadingElement>(null);

  const update = (next: { table?: string; operation?: string; offset?: number }) => {
    const merged = { table: tableName, operation, offset, ...next };
    const search = new URLSearchParams();
    if (merged.table) search.set('table', merged.table);
    if (merged.operation) search.set('operation', merged.operation);
    if (merged.offset) search.set('offset', String(merged.offset));
    setParams(search);
  };

  const toPage = (next: number) => {
    update({ offset: next });
    heading.current?.focus();
  };

  const total = page?.totalCount ?? 0;
  const shown = page?.nodes.length ?? 0;
  return (
    <Page title={page?.shortId ? t('caseLog.title', { shortId: page.shortId }) : t('nav.adminCaseLog')}>
      <nav className="button-row toolbar" aria-label={t('cases.caseNavigation')}>
        <Link to={`/admin/cases/${caseId}`}>{t('caseLog.backToCase')}</Link>
        <Link to="/admin/cases">{t('cases.backToList')}</Link>
      </nav>
      <form className="filters" aria-label={t('caseLog.filters')} onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label={t('caseLog.table')}
          name="table"
          value={tableName}
          onChange={(e) => update({ table: e.target.value, offset: 0 })}
          options={[{ value: '', label: t('caseLog.allTables') }, ...TABLES.map((name) => ({ value: name, label: t(`caseLog.tables.${name}`) }))]}
        />
        <SelectField
          label={t('caseLog.operation')}
          name="operation"
          value={operation}
          onChange={(e) => update({ operation: e.target.value, offset: 0 })}
          options={[{ value: '', label: t('caseLog.allOperations') }, ...OPERATIONS.map((op) => ({ value: op, label: t(`caseLog.operations.${op}`) }))]}
        />
      </form>
      <ErrorAlert error={error} />
      <h2 ref={heading} tabIndex={-1} aria-live="polite">
        {page ? (shown === 0 ? t('caseLog.empty') : t('cases.range', { from: offset + 1, to: offset + shown, total })) : t('cases.results')}
      </h2>
      {loading && !page ? <Spinner /> : null}
      {page && shown > 0 ? (
        <ol className="log-list" aria-busy={loading || undefined}>
          {page.nodes.map((row) => (
            <LogEntry key={row.id} row={row} people={people} />
          ))}
        </ol>
      ) : null}
      {page && (offset > 0 || offset + AUDIT_PAGE_SIZE < total) ? (
        <nav className="button-row paging" aria-label={t('cases.paging')}>
          <button type="button" className="button button--secondary" disabled={offset === 0} onClick={() => toPage(Math.max(0, offset - AUDIT_PAGE_SIZE))}>
            {t('cases.previous')}
          </button>
          <button type="button" className="button button--secondary" disabled={offset + AUDIT_PAGE_SIZE >= total} onClick={() => toPage(offset + AUDIT_PAGE_SIZE)}>
            {t('cases.next')}
          </button>
        </nav>
      ) : null}
    </Page>
  );
}
