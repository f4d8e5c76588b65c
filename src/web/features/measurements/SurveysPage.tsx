/**
 * /frageboegen: the signed-in patient's questionnaires across all times of measurement, each
 * with where they stand (not started, in progress, complete) and a link into the form. The times
 * the workflow says are due now (an open questionnaire task of the trial) come first, marked,
 * with their due date. One request per scheduled questionnaire reads its records of every time
 * at once.
 */
import { TextWithIdents } from '../../ui/Ident';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { INSTRUMENTS, wordingFor, type InstrumentCode } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { MEASUREMENT_TIMES, recordStatus, scheduledInstruments, type MeasurementSchedule, type MeasurementTime } from '../../../domain/measurements';
import { dueMeasurementTimes } from '../../../domain/workflow-tasks';
import { dueTasksQuery } from '../tasks/api';
import { useDateTime } from '../tasks/labels';
import { useSession } from '../../session/session';
import { Alert, Page, Spinner } from '../../ui/ui';
import { recordsByTimeQuery, scheduleQuery, type StoredRecord } from './api';
import { measurementPath, TIME_ROUTES } from './MeasurementPage';
import { ExcludedNotice, NoPatientCase, SignInPrompt } from './notices';
import './measurements.css';

type Records = Partial<Record<InstrumentCode, Partial<Record<MeasurementTime, StoredRecord>>>>;

interface Overview {
  schedule: MeasurementSchedule;
  records: Records;
  /** Times due now by the workflow, with their due date; empty when the workflow cannot say. */
  due: Map<MeasurementTime, string | null>;
}

/** The schedule, the case's records of every scheduled questionnaire, and what is due. */
function useOverview(caseId: string): { data: Overview | null; error: unknown } {
  const schedule = useQuery(scheduleQuery());
  const codes = schedule.data ? scheduledInstruments(schedule.data) : [];
  const records = useQueries({ queries: codes.map((code) => recordsByTimeQuery(code, caseId)) });
  // The questionnaires stay usable without the workflow's word: a failed read marks nothing.
  const tasks = useQuery(dueTasksQuery());
  const error = schedule.error ?? records.find((r) => r.error)?.error ?? null;
  if (!schedule.data || records.some((r) => !r.data) || tasks.isPending) return { data: null, error };
  const ownTasks = (tasks.data ?? []).filter((task) => task.caseId === caseId);
  return {
    data: { schedule: schedule.data, records: Object.fromEntries(codes.map((code, i) => [code, records[i]!.data])), due: dueMeasurementTimes(ownTasks) },
    error,
  };
}

export function SurveysPage() {
  const { t } = useTranslation();
  const { user, currentCaseId } = useSession();
  const title = t('nav.surveys');
  let body;
  if (!user) body = <SignInPrompt />;
  else if (user.excluded) body = <ExcludedNotice />;
  else if (!user.is_patient_account || !currentCaseId) body = <NoPatientCase patient={user.is_patient_account} />;
  else body = <Overview caseId={currentCaseId} />;
  return (
    <Page title={title} width="reading">
      {body}
    </Page>
  );
}

function Overview({ caseId }: { caseId: string }) {
  const { t, i18n } = useTranslation();
  const dateTime = useDateTime();
  const { data, error } = useOverview(caseId);
  if (error) return <Alert kind="error">{t('measurements.loadFailed')}</Alert>;
  if (!data) return <Spinner />;
  const scheduled = MEASUREMENT_TIMES.filter((time) => data.schedule[time].length > 0);
  const times = [...scheduled.filter((time) => data.due.has(time)), ...scheduled.filter((time) => !data.due.has(time))];
  return (
    <>
      <p>{t('measurements.surveysIntro')}</p>
      {times.map((time) => (
        <section key={time} className={data.due.has(time) ? 'card survey-time survey-time--due' : 'card survey-time'} aria-labelledby={`time-${time}`}>
          <h2 id={`time-${time}`}>
            <Link to={measurementPath(time)}>{t(`nav.${TIME_ROUTES[time]}`)}</Link>
          </h2>
          {data.due.has(time) ? <DueNote due={data.due.get(time) ?? null} format={dateTime} /> : null}
          <ul className="battery__list">
            {data.schedule[time].map((code) => {
              const status = recordStatus(INSTRUMENTS[code], data.records[code]?.[time]);
              const name = wordingFor(INSTRUMENTS[code], { kind: 'title' }, i18n.language as Locale) ?? code;
              return (
                <li key={code} className="battery__item">
                  <Link to={measurementPath(time, code)}>
                    <TextWithIdents text={name} />
                  </Link>
                  <span className={`status status--${status}`}>{t(`measurements.status.${status}`)}</span>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </>
  );
}

/** "Due now", and until when when the workflow set a date. */
function DueNote({ due, format }: { due: string | null; format(value: string): string }) {
  const { t } = useTranslation();
  return <p className="survey-time__due">{due ? t('measurements.dueUntil', { date: format(due) }) : t('measurements.dueNow')}</p>;
}
