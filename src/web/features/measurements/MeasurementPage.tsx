/**
 * /messungen/<time>: the questionnaires due at one time of measurement, in the schedule's
 * order. An overview says what is done; "start" or "continue" opens the first one not yet
 * complete (`?q=<code>` keeps the place across a reload), and finishing one opens the next.
 * After each screening questionnaire the profile is read again: the server may have excluded
 * the patient, who then sees a kind explanation instead of more questions.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { INSTRUMENTS, isInstrumentCode, wordingFor, type InstrumentCode } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { recordStatus, type MeasurementTime, type RecordStatus } from '../../../domain/measurements';
import { routeById } from '../../../domain/routes';
import { useSession } from '../../session/session';
import { Alert, Page, Spinner } from '../../ui/ui';
import { batteryQuery } from './api';
import { ExcludedNotice, NoPatientCase, SignInPrompt } from './notices';
import { QuestionnaireForm } from './QuestionnaireForm';
import { TextWithIdents } from '../../ui/Ident';
import './measurements.css';

export const TIME_ROUTES = {
  screening: 'measurementScreening',
  pre: 'measurementPre',
  post: 'measurementPost',
  fu1: 'measurementFu1',
  fu2: 'measurementFu2',
} as const satisfies Record<MeasurementTime, string>;

/** The path of a time's screen, optionally opening one questionnaire. */
export function measurementPath(time: MeasurementTime, code?: InstrumentCode): string {
  const path = routeById(TIME_ROUTES[time]).path;
  return code ? `${path}?q=${code}` : path;
}

type Statuses = Partial<Record<InstrumentCode, RecordStatus>>;

/**
 * The battery and where the patient stands with each questionnaire: read through the query
 * layer when the page opens; a questionnaire finished here counts as complete at once.
 */
function useBattery(time: MeasurementTime, caseId: string) {
  const query = useQuery(batteryQuery(time, caseId));
  const [finished, setFinished] = useState<InstrumentCode[]>([]);
  const battery = useMemo(() => query.data?.map((entry) => entry.code) ?? null, [query.data]);
  const statuses = useMemo<Statuses | null>(
    () => (query.data ? Object.fromEntries(query.data.map(({ code, record }) => [code, finished.includes(code) ? 'complete' : recordStatus(INSTRUMENTS[code], record)])) : null),
    [query.data, finished],
  );
  const markComplete = useCallback((code: InstrumentCode) => setFinished((done) => [...done, code]), []);
  const { refetch } = query;
  const retry = useCallback(() => void refetch(), [refetch]);
  return { battery, statuses, error: query.error, markComplete, retry };
}

export function MeasurementPage({ time }: { time: MeasurementTime }) {
  const { t } = useTranslation();
  const { user, currentCaseId } = useSession();
  const title = t(`nav.${TIME_ROUTES[time]}`);
  if (!user) {
    return (
      <Page title={title} width="reading">
        <SignInPrompt />
      </Page>
    );
  }
  if (user.excluded) {
    return (
      <Page title={title} width="reading">
        <ExcludedNotice />
      </Page>
    );
  }
  if (!user.is_patient_account || !currentCaseId) {
    return (
      <Page title={title} width="reading">
        <NoPatientCase patient={user.is_patient_account} />
      </Page>
    );
  }
  return (
    <Page title={title} width="reading">
      <Battery time={time} caseId={currentCaseId} userId={user.id} />
    </Page>
  );
}

function Battery({ time, caseId, userId }: { time: MeasurementTime; caseId: string; userId: string }) {
  const { t, i18n } = useTranslation();
  const { reloadProfile } = useSession();
  const [params, setParams] = useSearchParams();
  const { battery, statuses, error, markComplete, retry } = useBattery(time, caseId);

  if (error) {
    return (
      <Alert kind="error" title={t('measurements.loadFailed')}>
        <button type="button" className="button button--secondary button--small" onClick={retry}>
          {t('measurements.tryAgain')}
        </button>
      </Alert>
    );
  }
  if (!battery || !statuses) return <Spinner />;
  if (battery.length === 0) return <p>{t('measurements.nothingDue')}</p>;

  const open = params.get('q');
  const openCode = isInstrumentCode(open) && battery.includes(open) ? open : null;
  const firstOpen = battery.find((code) => statuses[code] !== 'complete');

  async function completed(code: InstrumentCode): Promise<void> {
    markComplete(code);
    // The screening's answers may have excluded the patient (the server decides); ask again.
    if (time === 'screening') await reloadProfile();
    const after = battery!.slice(battery!.indexOf(code) + 1).find((c) => statuses![c] !== 'complete');
    const next = after ?? battery!.find((c) => c !== code && statuses![c] !== 'complete');
    setParams(next ? { q: next } : {});
  }

  if (openCode) {
    return (
      <QuestionnaireForm
        key={openCode}
        code={openCode}
        time={time}
        caseId={caseId}
        userId={userId}
        position={battery.indexOf(openCode) + 1}
        count={battery.length}
        onComplete={() => void completed(openCode)}
      />
    );
  }

  const done = battery.filter((code) => statuses[code] === 'complete').length;
  return (
    <div className="battery">
      {firstOpen ? (
        <>
          <p>{t('measurements.intro', { count: battery.length })}</p>
          <p className="muted">{t('measurements.savedAsYouGo')}</p>
        </>
      ) : (
        <Alert kind="success" title={t('measurements.allDone')}>
          {t('measurements.allDoneBody')}
        </Alert>
      )}
      <p className="muted">{t('measurements.doneOf', { done, total: battery.length })}</p>
      <ol className="battery__list">
        {battery.map((code) => (
          <li key={code} className="battery__item">
            <span>
              <TextWithIdents text={wordingFor(INSTRUMENTS[code], { kind: 'title' }, i18n.language as Locale) ?? code} />
            </span>
            <span className={`status status--${statuses[code] ?? 'not_started'}`}>{t(`measurements.status.${statuses[code] ?? 'not_started'}`)}</span>
          </li>
        ))}
      </ol>
      {firstOpen ? (
        <button type="button" className="button" onClick={() => setParams({ q: firstOpen })}>
          {done > 0 || statuses[firstOpen] === 'in_progress' ? t('measurements.continue') : t('measurements.start')}
        </button>
      ) : null}
    </div>
  );
}
