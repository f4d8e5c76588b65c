/**
 * /admin/interview-calendar: a week of interview slots and their bookings, per interviewer.
 * A coordinator sees every interviewer's; others see what the database lets them see (an
 * interviewer their own slots and colleagues' cancelled ones).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dayKey } from '../../../domain/format';
import { Page, Spinner } from '../../ui/ui';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { calendarQuery, type Offer } from './api';
import { dayHeading, shiftWeek, useZone, weekFrom, weekOf, ZoneNote } from './shared';
import { useLoaded } from './useInterviewData';

export function CalendarPage() {
  const { t } = useTranslation();
  const { timeZone, clock } = useZone();
  const [monday, setMonday] = useState(() => weekOf(new Date(), timeZone));
  const week = weekFrom(monday, timeZone);
  const offers = useLoaded(calendarQuery(week.since, week.until));

  const byInterviewer = new Map<string, Offer[]>();
  for (const o of offers.data ?? []) {
    const name = o.interviewer?.username ?? '—';
    byInterviewer.set(name, [...(byInterviewer.get(name) ?? []), o]);
  }

  return (
    <Page title={t('interviews.calendar.title')}>
      <ZoneNote timeZone={timeZone} />
      <div className="week__head">
        <h2>{t('interviews.week', { week: week.number, year: week.year })}</h2>
        <div className="button-row">
          <button type="button" className="button button--secondary button--small" onClick={() => setMonday(shiftWeek(monday, -1))}>
            {t('interviews.previousWeek')}
          </button>
          <button type="button" className="button button--secondary button--small" onClick={() => setMonday(weekOf(new Date(), timeZone))}>
            {t('interviews.thisWeek')}
          </button>
          <button type="button" className="button button--secondary button--small" onClick={() => setMonday(shiftWeek(monday, 1))}>
            {t('interviews.nextWeek')}
          </button>
        </div>
      </div>
      <ErrorAlert error={offers.error} />
      {offers.loading && !offers.data ? <Spinner /> : null}
      {offers.data && byInterviewer.size === 0 ? <p className="muted">{t('interviews.calendar.empty')}</p> : null}
      {[...byInterviewer.entries()].map(([name, slots]) => (
        <section key={name} className="card calendar-person" aria-label={name}>
          <h3 dir="auto">{name}</h3>
          <ul className="plain-list">
            {week.days
              .filter((day) => slots.some((o) => dayKey(o.timeSlot.start, timeZone) === day))
              .map((day) => (
                <li key={day}>
                  <h4 className="week__day-name">{dayHeading(day, clock)}</h4>
                  <ul className="plain-list">
                    {slots
                      .filter((o) => dayKey(o.timeSlot.start, timeZone) === day)
                      .map((o) => (
                        <li key={o.id} className={`week__slot${o.canceled ? ' week__slot--canceled' : o.activeBookings.length ? ' week__slot--booked' : ''}`}>
                          {clock.time(o.timeSlot.start)}–{clock.time(o.timeSlot.end)}{' '}
                          <span className="muted">
                            {o.canceled
                              ? t('interviews.status.canceled')
                              : o.activeBookings[0]
                                ? t('interviews.status.bookedBy', { name: o.activeBookings[0].interviewee?.username ?? '—' })
                                : t('interviews.status.free')}
                          </span>
                        </li>
                      ))}
                  </ul>
                </li>
              ))}
          </ul>
        </section>
      ))}
    </Page>
  );
}
