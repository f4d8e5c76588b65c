/**
 * The top of a case for a clinician: who the patient is, the stage, risk flags (safety flags of
 * the newest scores and the patient's exclusion flags), the next dates (open tasks and the
 * interview booking), open tasks and my unread messages, on one card. Everything here is read
 * through the same queries the sections below use, so nothing is fetched twice.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { isolateLatin } from '../../../domain/bidi';
import { useClock } from '../../ui/useClock';
import { INSTRUMENTS, type InstrumentCode } from '../../../domain/instruments';
import { currentLocale } from '../../i18n/i18n';
import { caseBookingsQuery } from '../interviews/api';
import { personName } from '../messages/names';
import { caseScoresQuery } from '../scores/api';
import { caseTasksQuery } from '../tasks/api';
import { useTaskName } from '../tasks/labels';
import { StageName } from './labels';
import { PATIENT_FLAGS, type CaseDetail } from './api';

/** Safety flags of each instrument's newest score (e.g. PHQ-9 item 9), newest first. */
function useRiskFlags(caseId: string): string[] {
  const locale = currentLocale();
  const { data } = useQuery(caseScoresQuery(caseId));
  const newest = new Map<string, NonNullable<typeof data>[number]>();
  for (const row of data ?? []) {
    const kept = newest.get(row.instrument);
    if (!kept || row.createdAt > kept.createdAt) newest.set(row.instrument, row);
  }
  const flags: string[] = [];
  for (const row of newest.values()) {
    const definition = INSTRUMENTS[row.instrument as InstrumentCode];
    for (const code of row.flags ?? []) {
      const flag = definition?.flags.find((f) => f.code === code);
      if (flag?.kind === 'safety') flags.push(isolateLatin(flag.labels[locale]));
    }
  }
  return flags;
}

export function CaseSummary({ detail }: { detail: CaseDetail }) {
  const clock = useClock();
  const { t } = useTranslation();
  const taskName = useTaskName();
  const when = (iso: string) => clock.dateTime(iso);
  const risks = useRiskFlags(detail.id);
  const tasks = useQuery(caseTasksQuery(detail.id)).data ?? [];
  const bookings = useQuery(caseBookingsQuery(detail.id)).data ?? [];
  const nextBooking = bookings.filter((b) => b.offer && b.offer.timeSlot.end.getTime() > Date.now()).sort((a, b) => a.offer!.timeSlot.start.getTime() - b.offer!.timeSlot.start.getTime())[0];
  const nextTask = tasks.filter((task) => task.due).sort((a, b) => a.due!.localeCompare(b.due!))[0];
  const exclusions = detail.patient ? PATIENT_FLAGS.filter((flag) => detail.patient![flag]) : [];
  // Counted from the messages themselves: what the reader sees as unread below.
  const unread = (detail.sentMessagesList ?? []).filter((m) => m.isUnread).length;

  return (
    <section className="card case-summary" aria-labelledby="case-summary-title">
      <h2 id="case-summary-title" className="visually-hidden">
        {t('caseDetail.summary')}
      </h2>
      <dl className="summary-grid">
        <div>
          <dt>{t('cases.patient')}</dt>
          <dd>{detail.patient ? <bdi>{personName(detail.patient)}</bdi> : <span className="muted">{t('cases.noPatient')}</span>}</dd>
        </div>
        <div>
          <dt>{t('caseDetail.stage')}</dt>
          <dd>
            <StageName stage={detail.stage} />
          </dd>
        </div>
        <div>
          <dt>{t('caseDetail.risk')}</dt>
          <dd>
            {risks.length === 0 && exclusions.length === 0 ? <span className="muted">{t('caseDetail.noRisk')}</span> : null}
            {risks.map((risk) => (
              <span key={risk} className="badge badge--inline badge--danger">
                {risk}
              </span>
            ))}
            {exclusions.map((flag) => (
              <span key={flag} className="badge badge--inline">
                {t(`patientFlags.${flag}`)}
              </span>
            ))}
          </dd>
        </div>
        <div>
          <dt>{t('caseDetail.nextDates')}</dt>
          <dd>
            {nextBooking?.offer ? <p className="summary-line">{t('caseDetail.interviewAt', { when: when(nextBooking.offer.timeSlot.start.toISOString()) })}</p> : null}
            {nextTask?.due ? <p className="summary-line">{t('caseDetail.taskDue', { task: taskName(nextTask), when: when(nextTask.due) })}</p> : null}
            {!nextBooking && !nextTask ? <span className="muted">{t('caseDetail.noDates')}</span> : null}
          </dd>
        </div>
        <div>
          <dt>{t('caseDetail.openTasks')}</dt>
          <dd>{t('caseDetail.openTaskCount', { count: tasks.length })}</dd>
        </div>
        <div>
          <dt>{t('caseDetail.unread')}</dt>
          <dd>{unread > 0 ? <span className="badge badge--inline">{t('home.unread', { count: unread })}</span> : t('home.allRead')}</dd>
        </div>
      </dl>
    </section>
  );
}
