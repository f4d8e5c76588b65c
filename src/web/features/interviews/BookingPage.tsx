/**
 * /interviews/booking: a patient books an interview for their current case (spec §4 Booking):
 * free slots grouped by day in their own time zone, one tap to book; then the booking with its
 * interviewer, the video link (prominent from 20 minutes before the start) and cancelling after
 * the confirmation of spec §8. A coordinator first chooses the case to book for.
 */
import { isolateIdent } from '../../../domain/bidi';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dayKey } from '../../../domain/format';
import { isPast, isUpcoming, type InterviewAction } from '../../../domain/interviews';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, SelectField, Spinner } from '../../ui/ui';
import { shortId } from '../../../domain/short-id';
import { availableDatesQuery, bookInterview, cancelInterviewBooking, caseBookingsQuery, casesForBookingQuery, type AvailableDate, type CaseBooking } from './api';
import { dayHeading, JoinLink, useNow, useZone, ZoneNote } from './shared';
import { useLoaded, useRefetchAfter } from './useInterviewData';

export function BookingPage() {
  const { t } = useTranslation();
  const session = useSession();
  const isCoordinator = Boolean(session.user?.is_coordinator_account);
  const [chosenCase, setChosenCase] = useState('');
  const cases = useLoaded({ ...casesForBookingQuery(), enabled: isCoordinator });
  const caseId = isCoordinator ? chosenCase : session.currentCaseId;

  return (
    <Page title={t('interviews.booking.title')}>
      {isCoordinator ? (
        <SelectField
          label={t('interviews.booking.case')}
          value={chosenCase}
          onChange={(e) => setChosenCase(e.target.value)}
          options={[
            { value: '', label: t('interviews.booking.chooseCase') },
            ...(cases.data ?? []).map((c) => ({ value: c.id, label: `${isolateIdent(shortId(c.id))} · ${c.patient?.alias ?? c.patient?.username ?? ''}` })),
          ]}
        />
      ) : null}
      {caseId ? <CaseBookingView key={caseId} caseId={caseId} /> : !isCoordinator ? <Alert kind="info">{t('interviews.booking.noCase')}</Alert> : null}
    </Page>
  );
}

function CaseBookingView({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const { timeZone, clock } = useZone();
  const now = useNow();
  const confirm = useConfirm();
  const bookings = useLoaded(caseBookingsQuery(caseId));
  const dates = useLoaded(availableDatesQuery());
  const refetchAfter = useRefetchAfter();
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: InterviewAction, work: () => Promise<void>, message: string) {
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      await work();
      setDone(message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught)));
    }
    // Also after a failure: a slot someone else just took must disappear from the list.
    await refetchAfter(action);
    setBusy(false);
  }

  const current = (bookings.data ?? []).find((b) => b.offer && !isPast(b.offer.timeSlot, now));

  /** Booking asks first, naming the time in the person's zone (issue 18: a tap is no commitment). */
  const book = async (date: AvailableDate) => {
    const ok = await confirm({
      title: t('interviews.booking.bookTitle'),
      message: t('interviews.booking.bookMessage', { when: clock.slot(date.timeSlot.start, date.timeSlot.end) }),
      confirmLabel: t('interviews.booking.bookConfirm'),
    });
    if (ok) await run('book', () => bookInterview(date.id, caseId), t('interviews.booking.booked'));
  };

  const cancel = async (booking: CaseBooking) => {
    const ok = await confirm({
      title: t('interviews.booking.cancelTitle'),
      message: t('interviews.booking.cancelMessage'),
      confirmLabel: t('interviews.booking.cancelConfirm'),
      danger: true,
    });
    if (ok) await run('cancelBooking', () => cancelInterviewBooking(booking.id), t('interviews.booking.canceled'));
  };

  return (
    <>
      <ZoneNote timeZone={timeZone} />
      <div aria-live="polite">
        {done ? <Alert kind="success">{done}</Alert> : null}
        <ErrorAlert error={error} focusOnShow />
      </div>
      <ErrorAlert error={bookings.error ?? dates.error} />
      {bookings.loading && !bookings.data ? <Spinner /> : null}
      {current ? (
        <BookingCard booking={current} now={now} busy={busy} onCancel={() => void cancel(current)} />
      ) : bookings.data ? (
        <FreeSlots
          // The server may answer from its read cache, kept for up to a minute: a slot that has
          // started since is not offered (booking it would be refused anyway).
          dates={dates.data?.filter((d) => isUpcoming(d.timeSlot, now)) ?? null}
          loading={dates.loading} busy={busy} onBook={(d) => void book(d)} />
      ) : null}
    </>
  );
}

function BookingCard({ booking, now, busy, onCancel }: { booking: CaseBooking; now: Date; busy: boolean; onCancel(): void }) {
  const { t } = useTranslation();
  const { clock } = useZone();
  const offer = booking.offer!;
  const started = offer.timeSlot.start <= now;
  return (
    <section className="card booking" aria-labelledby="booking-heading">
      <h2 id="booking-heading">{t('interviews.booking.yourInterview')}</h2>
      <p className="booking__time">{clock.slot(offer.timeSlot.start, offer.timeSlot.end)}</p>
      {offer.interviewer ? <p>{t('interviews.interviewerName', { name: offer.interviewer.username })}</p> : null}
      {offer.externalLink ? <JoinLink link={offer.externalLink} slot={offer.timeSlot} now={now} /> : <p className="muted">{t('interviews.booking.linkLater')}</p>}
      {!started ? (
        <div className="button-row">
          <button type="button" className="button button--danger" disabled={busy} onClick={onCancel}>
            {t('interviews.booking.cancel')}
          </button>
        </div>
      ) : null}
    </section>
  );
}

function FreeSlots({ dates, loading, busy, onBook }: { dates: AvailableDate[] | null; loading: boolean; busy: boolean; onBook(d: AvailableDate): void }) {
  const { t } = useTranslation();
  const { timeZone, clock } = useZone();
  if (!dates) return loading ? <Spinner /> : null;
  if (dates.length === 0) return <Alert kind="info">{t('interviews.booking.noSlots')}</Alert>;
  const days = new Map<string, AvailableDate[]>();
  for (const d of dates) {
    const key = dayKey(d.timeSlot.start, timeZone);
    days.set(key, [...(days.get(key) ?? []), d]);
  }
  return (
    <section aria-labelledby="free-heading">
      <h2 id="free-heading">{t('interviews.booking.chooseTime')}</h2>
      <ol className="plain-list slot-days">
        {[...days.entries()].map(([key, slots]) => (
          <li key={key} className="slot-day">
            <h3>{dayHeading(key, clock)}</h3>
            <ul className="plain-list slot-buttons">
              {slots.map((d) => {
                const time = `${clock.time(d.timeSlot.start)}–${clock.time(d.timeSlot.end)}`;
                return (
                  <li key={d.id}>
                    <button
                      type="button"
                      className="button button--secondary slot-button"
                      disabled={busy}
                      onClick={() => onBook(d)}
                      aria-label={t('interviews.booking.bookAt', { when: clock.slot(d.timeSlot.start, d.timeSlot.end) })}
                    >
                      {time}
                      {d.gender ? <span className="muted"> · {t(`interviews.gender.${d.gender}`)}</span> : null}
                    </button>
                  </li>
                );
              })}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}
