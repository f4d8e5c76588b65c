/**
 * The "Safety" section of a case for staff (issue 13): open risk signals and the latest risk
 * answers with their dates, the anti-suicide contract (recorded on the patient's behalf when
 * needed), and the suicide-risk calls in call-date order (spec §7 SuicideCalls) with a form to
 * record or update one. Self-contained: the case detail page mounts it with one line.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { caseSafetyQuery, phq9Item9Query, suicideCallsQuery, type SafetySignal, type SuicideCall } from './api';
import { CallForm } from './CallForm';
import { ContractConfirmation } from './CrisisPanel';
import './safety.css';

function useWhen(): (value: string | null) => string {
  const clock = useClock();
  return (value) => (value ? clock.dateTime(value) : '');
}

function personOf(p: { alias: string | null; username: string } | null): string {
  return p ? p.alias?.trim() || p.username : '';
}

export function SignalText({ signal }: { signal: SafetySignal }) {
  const { t } = useTranslation();
  const d = signal.details;
  const parts = [t(`safety.source.${signal.source}`, { defaultValue: signal.source })];
  if (typeof d.item9 === 'number') parts.push(t('safety.signal.item9', { value: d.item9 }));
  if (typeof d.total === 'number' && signal.source === 'sbqr') parts.push(t('safety.signal.total', { value: d.total }));
  if (typeof d.timeOfMeasurement === 'string') parts.push(t(`safety.time.${d.timeOfMeasurement}`, { defaultValue: d.timeOfMeasurement }));
  return <>{parts.join(' · ')}</>;
}

function Signals({ signals }: { signals: SafetySignal[] }) {
  const { t } = useTranslation();
  const when = useWhen();
  if (signals.length === 0) return <p className="muted">{t('safety.signal.none')}</p>;
  return (
    <ul className="plain-list safety-list">
      {signals.map((s) => (
        <li key={s.id} className={s.resolvedAt ? 'safety-list__item' : 'safety-list__item safety-list__item--open'}>
          <span className={s.resolvedAt ? 'badge badge--inline' : 'badge badge--inline badge--danger'}>{s.resolvedAt ? t('safety.signal.resolved') : t('safety.signal.open')}</span>{' '}
          <SignalText signal={s} />
          <br />
          <span className="muted">
            <time dateTime={s.raisedAt}>{when(s.raisedAt)}</time>
            {s.resolvedAt ? <> · {t('safety.signal.resolvedAt', { time: when(s.resolvedAt) })}</> : null}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Phq9Answers({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const when = useWhen();
  const { data } = useQuery(phq9Item9Query(caseId));
  if (!data || data.length === 0) return null;
  return (
    <p>
      {t('safety.phq9Item9')}{' '}
      {data.map((row, i) => (
        <span key={row.time_of_measurement}>
          {i > 0 ? ' · ' : null}
          <strong>{row.item9 ?? '–'}</strong> ({t(`safety.time.${row.time_of_measurement}`, { defaultValue: row.time_of_measurement })}, <time dateTime={row.updated_at}>{when(row.updated_at)}</time>)
        </span>
      ))}
    </p>
  );
}

export function CallItem({ call, onEdit }: { call: SuicideCall; onEdit?: () => void }) {
  const { t } = useTranslation();
  const when = useWhen();
  const yes = (v: boolean) => (v ? t('safety.yes') : t('safety.no'));
  return (
    <li className="card card--flat safety-call">
      <h4 className="safety-call__title">
        <time dateTime={call.callDate}>{when(call.callDate)}</time> · {personOf(call.userByUserIdCaller) || t('safety.call.unknownCaller')}
      </h4>
      <dl className="facts">
        <dt>{t('safety.call.patientReached')}</dt>
        <dd>{yes(call.patientReached)}</dd>
        <dt>{t('safety.call.riskOfSuicide')}</dt>
        <dd>{call.riskOfSuicide ? t(`safety.risk.${call.riskOfSuicide}`) : t('safety.call.riskUnknown')}</dd>
        {call.suicideScore !== null ? (
          <>
            <dt>{t('safety.call.suicideScore')}</dt>
            <dd>{call.suicideScore}</dd>
          </>
        ) : null}
        {call.detailedDescription ? (
          <>
            <dt>{t('safety.call.detailedDescription')}</dt>
            <dd dir="auto" className="safety-call__text">
              {call.detailedDescription}
            </dd>
          </>
        ) : null}
        <dt>{t('safety.call.followUpContact')}</dt>
        <dd>
          {yes(call.followUpContact)}
          {call.followUpDate ? <> · <time dateTime={call.followUpDate}>{when(call.followUpDate)}</time></> : null}
          {call.followUpDescription ? (
            <>
              <br />
              <span dir="auto">{call.followUpDescription}</span>
            </>
          ) : null}
        </dd>
        <dt>{t('safety.call.informCoordinator')}</dt>
        <dd>
          {yes(call.informCoordinator)}
          {call.informCoordinator
            ? call.coordinatorContactDate
              ? ` · ${t('safety.call.contacted', { name: personOf(call.userByUserIdCoordinator), time: when(call.coordinatorContactDate) })}`
              : ` · ${t('safety.call.awaitingCoordinator')}`
            : null}
        </dd>
        {call.excludePatient ? (
          <>
            <dt>{t('safety.call.excludePatient')}</dt>
            <dd dir="auto">{call.exclusionReason}</dd>
          </>
        ) : null}
      </dl>
      {onEdit ? (
        <button type="button" className="button button--secondary button--small" onClick={onEdit}>
          {t('safety.call.edit')}
        </button>
      ) : null}
    </li>
  );
}

export function SafetySection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const safety = useQuery(caseSafetyQuery(caseId));
  const calls = useQuery(suicideCallsQuery(caseId));
  const [editing, setEditing] = useState<SuicideCall | 'new' | null>(null);
  const data = safety.data && calls.data ? { ...safety.data, calls: calls.data } : undefined;
  const error = safety.error ?? calls.error;
  const open = data?.signals.filter((s) => !s.resolvedAt).length ?? 0;
  return (
    <section aria-labelledby="case-safety-title" className="safety-section">
      <h2 id="case-safety-title">
        {t('safety.title')}
        {open > 0 ? <span className="badge badge--danger">{t('safety.openSignals', { count: open })}</span> : null}
      </h2>
      <ErrorAlert error={error} />
      {!data && !error ? <Spinner /> : null}
      {data ? (
        <>
          <h3>{t('safety.signal.title')}</h3>
          <Signals signals={data.signals} />
          <Phq9Answers caseId={caseId} />
          <h3>{t('safety.contract.title')}</h3>
          <ContractConfirmation caseId={caseId} confirmedAt={data.antiSuicideContractAt} onBehalf />
          <h3>{t('safety.call.title')}</h3>
          {data.calls.length === 0 ? <p className="muted">{t('safety.call.none')}</p> : null}
          <ol className="plain-list safety-calls">
            {data.calls.map((call) => (
              <CallItem key={call.id} call={call} onEdit={() => setEditing(call)} />
            ))}
          </ol>
          {editing ? (
            <CallForm
              key={editing === 'new' ? 'new' : editing.id}
              caseId={caseId}
              call={editing === 'new' ? null : editing}
              onSaved={() => setEditing(null)}
              onCancel={() => setEditing(null)}
            />
          ) : (
            <button type="button" className="button" onClick={() => setEditing('new')}>
              {t('safety.call.record')}
            </button>
          )}
        </>
      ) : null}
    </section>
  );
}
