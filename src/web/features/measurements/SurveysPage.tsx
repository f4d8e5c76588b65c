/**
 * /frageboegen: the signed-in patient's questionnaires across all times of measurement, each
 * with where they stand (not started, in progress, complete) and a link into the form.
 * One request per scheduled questionnaire reads its records of every time at once.
 */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { INSTRUMENTS, wordingFor, type InstrumentCode } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { MEASUREMENT_TIMES, recordStatus, scheduledInstruments, type MeasurementSchedule, type MeasurementTime } from '../../../domain/measurements';
import { useLoad } from '../../api/useLoad';
import { useSession } from '../../session/session';
import { Alert, Page, Spinner } from '../../ui/ui';
import { loadRecordsByTime, loadSchedule, type StoredRecord } from './api';
import { measurementPath, TIME_ROUTES } from './MeasurementPage';
import { ExcludedNotice, NoPatientCase, SignInPrompt } from './notices';
import './measurements.css';

type Records = Partial<Record<InstrumentCode, Partial<Record<MeasurementTime, StoredRecord>>>>;

async function loadOverview(caseId: string): Promise<{ schedule: MeasurementSchedule; records: Records }> {
  const schedule = await loadSchedule();
  const codes = scheduledInstruments(schedule);
  const byCode = await Promise.all(codes.map((code) => loadRecordsByTime(code, caseId)));
  return { schedule, records: Object.fromEntries(codes.map((code, i) => [code, byCode[i]])) };
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
  const { data, error } = useLoad(() => loadOverview(caseId), caseId);
  if (error) return <Alert kind="error">{t('measurements.loadFailed')}</Alert>;
  if (!data) return <Spinner />;
  const times = MEASUREMENT_TIMES.filter((time) => data.schedule[time].length > 0);
  return (
    <>
      <p>{t('measurements.surveysIntro')}</p>
      {times.map((time) => (
        <section key={time} className="card survey-time" aria-labelledby={`time-${time}`}>
          <h2 id={`time-${time}`}>
            <Link to={measurementPath(time)}>{t(`nav.${TIME_ROUTES[time]}`)}</Link>
          </h2>
          <ul className="battery__list">
            {data.schedule[time].map((code) => {
              const status = recordStatus(INSTRUMENTS[code], data.records[code]?.[time]);
              const name = wordingFor(INSTRUMENTS[code], { kind: 'title' }, i18n.language as Locale) ?? code;
              return (
                <li key={code} className="battery__item">
                  <Link to={measurementPath(time, code)}>{name}</Link>
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
