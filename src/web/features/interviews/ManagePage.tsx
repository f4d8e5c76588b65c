/**
 * /interviews/manage: an interviewer's time slots (spec §4 offer lifecycle) as a week view and
 * as the classification lists (upcoming, cancelled, running, past, adoptible). Create one slot
 * or a weekly series in one action; cancel, uncancel, adopt; select a slot for editing with an
 * intent (move it, set its meeting link) and stop editing. Times are entered and shown in the
 * person's own zone and stored in UTC. Coordinators may act for any interviewer.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { dayKey, fromLocalInput, toLocalInput } from '../../../domain/format';
import { classifyOffers, isJoinable, workflowMessageAfter, type InterviewAction } from '../../../domain/interviews';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Checkbox, Page, SelectField, Spinner, TextField } from '../../ui/ui';
import {
  createOffer,
  createOfferSeries,
  interviewersQuery,
  offersQuery,
  offerAction,
  rescheduleOffer,
  setExternalLink,
  updateOffer,
  type Offer,
} from './api';
import { dayHeading, JoinLink, shiftWeek, useNow, useZone, weekFrom, weekOf, ZoneNote, type Week } from './shared';
import { useLoaded, useRefetchAfter } from './useInterviewData';
import { sendOfferMessage } from './workflowMessages';

type Intent = 'reschedule' | 'link';
interface Editing {
  offerId: string;
  intent: Intent;
}

export function ManagePage() {
  const { t } = useTranslation();
  const session = useSession();
  const { timeZone, clock } = useZone();
  const now = useNow();
  const confirm = useConfirm();
  const offers = useLoaded(offersQuery());
  const refetchAfter = useRefetchAfter();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [monday, setMonday] = useState(() => weekOf(new Date(), timeZone));
  const me = session.user?.id ?? '';
  const isCoordinator = Boolean(session.user?.is_coordinator_account);

  /** Runs an action, then the spec's refetches and workflow message; errors stay on screen. */
  async function run(action: InterviewAction, offerId: string | null, work: () => Promise<void>, message: string): Promise<boolean> {
    setError(null);
    setDone(null);
    try {
      await work();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught)));
      return false;
    }
    await refetchAfter(action);
    setDone(message);
    const workflowMessage = workflowMessageAfter(action);
    if (workflowMessage && offerId) await sendOfferMessage(workflowMessage, offerId);
    return true;
  }

  const cancel = async (offer: Offer) => {
    const booked = offer.activeBookings.length > 0;
    const ok = await confirm({
      title: t('interviews.manage.cancelTitle'),
      message: booked ? t('interviews.manage.cancelBookedMessage') : t('interviews.manage.cancelMessage'),
      confirmLabel: t('interviews.manage.cancel'),
      danger: true,
    });
    if (ok) await run('cancel', offer.id, () => offerAction('cancelOffer', offer.id), t('interviews.manage.canceled'));
  };

  const list = offers.data ?? [];
  const classes = classifyOffers(list, me, now);
  const editedOffer = editing ? list.find((o) => o.id === editing.offerId) : undefined;
  const week = weekFrom(monday, timeZone);

  const actions: OfferActions = {
    cancel,
    uncancel: (o) => run('uncancel', o.id, () => offerAction('uncancelOffer', o.id), t('interviews.manage.uncanceled')),
    adopt: (o) => run('adopt', o.id, () => offerAction('adoptOffer', o.id), t('interviews.manage.adopted')),
    markHeld: (o) => run('update', o.id, () => updateOffer(o.id, { hasTakenPlace: true }), t('interviews.manage.markedHeld')),
    edit: (o, intent) => {
      setEditing({ offerId: o.id, intent });
      setError(null);
      setDone(null);
    },
    // The form opens beside the slot's own buttons (issue 26: it opened far above them), takes
    // the focus, and gives it back to the button that opened it when editing stops.
    editor: (o) =>
      editing && editedOffer && editing.offerId === o.id ? (
        <EditPanel
          offer={editedOffer}
          intent={editing.intent}
          timeZone={timeZone}
          clock={clock}
          onStop={() => setEditing(null)}
          onReschedule={async (start, end) => {
            if (await run('reschedule', editedOffer.id, () => rescheduleOffer(editedOffer.id, start, end), t('interviews.manage.moved'))) setEditing(null);
          }}
          onLink={async (link) => {
            if (await run('link', editedOffer.id, () => setExternalLink(editedOffer.id, link), t('interviews.manage.linkSaved'))) setEditing(null);
          }}
        />
      ) : null,
  };

  return (
    <Page title={t('interviews.manage.title')}>
      <ZoneNote timeZone={timeZone} />
      <CreateForm
        timeZone={timeZone}
        isCoordinator={isCoordinator}
        onCreate={(work, message) => run('create', null, work, message)}
      />
      <div aria-live="polite">
        {done ? <Alert kind="success">{done}</Alert> : null}
        <ErrorAlert error={error} focusOnShow />
      </div>
      {offers.loading && !offers.data ? <Spinner /> : null}
      <ErrorAlert error={offers.error} />
      <WeekView week={week} offers={list.filter((o) => o.interviewerId === me || isCoordinator)} onWeek={(n) => setMonday(n === 0 ? weekOf(new Date(), timeZone) : shiftWeek(monday, n))} />
      <OfferSection title={t('interviews.manage.upcoming')} offers={classes.upcoming} me={me} now={now} actions={actions} empty={t('interviews.manage.noUpcoming')} />
      <OfferSection title={t('interviews.manage.present')} offers={classes.present} me={me} now={now} actions={actions} />
      <OfferSection title={t('interviews.manage.canceledList')} offers={classes.canceled} me={me} now={now} actions={actions} />
      <OfferSection title={t('interviews.manage.adoptible')} offers={classes.adoptible.filter((o) => o.timeSlot.start > now)} me={me} now={now} actions={actions} />
      <OfferSection title={t('interviews.manage.past')} offers={[...classes.past].reverse().slice(0, 50)} me={me} now={now} actions={actions} />
    </Page>
  );
}

interface OfferActions {
  cancel(o: Offer): Promise<void>;
  uncancel(o: Offer): Promise<boolean>;
  adopt(o: Offer): Promise<boolean>;
  markHeld(o: Offer): Promise<boolean>;
  edit(o: Offer, intent: Intent): void;
  /** The edit form of this slot, when it is the one being edited. */
  editor(o: Offer): ReactNode;
}

function CreateForm({
  timeZone,
  isCoordinator,
  onCreate,
}: {
  timeZone: string;
  isCoordinator: boolean;
  onCreate(work: () => Promise<void>, message: string): Promise<boolean>;
}) {
  const { t } = useTranslation();
  const [date, setDate] = useState('');
  const [start, setStart] = useState('10:00');
  const [end, setEnd] = useState('11:00');
  const [repeat, setRepeat] = useState(false);
  const [weeks, setWeeks] = useState('6');
  const [interviewerId, setInterviewerId] = useState('');
  const [busy, setBusy] = useState(false);
  const interviewers = useLoaded({ ...interviewersQuery(), enabled: isCoordinator });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const startsAt = fromLocalInput(`${date}T${start}`, timeZone);
    const endsAt = fromLocalInput(`${date}T${end}`, timeZone);
    if (!startsAt || !endsAt) return;
    setBusy(true);
    const owner = interviewerId || null;
    const ok = repeat
      ? await onCreate(() => createOfferSeries(startsAt, endsAt, Number(weeks), timeZone, owner), t('interviews.manage.seriesCreated', { weeks }))
      : await onCreate(() => createOffer(startsAt, endsAt, owner), t('interviews.manage.created'));
    setBusy(false);
    if (ok) setDate('');
  };

  return (
    <form className="card interview-form" onSubmit={submit} aria-labelledby="create-offer-heading">
      <h2 id="create-offer-heading">{t('interviews.manage.createTitle')}</h2>
      {isCoordinator ? (
        <SelectField
          label={t('interviews.manage.interviewer')}
          value={interviewerId}
          onChange={(e) => setInterviewerId(e.target.value)}
          options={[{ value: '', label: t('interviews.manage.myself') }, ...(interviewers.data ?? []).map((i) => ({ value: i.id, label: i.alias ?? i.username }))]}
        />
      ) : null}
      <div className="interview-form__row">
        <TextField label={t('interviews.manage.date')} type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
        <TextField label={t('interviews.manage.start')} type="time" required value={start} onChange={(e) => setStart(e.target.value)} />
        <TextField label={t('interviews.manage.end')} type="time" required value={end} onChange={(e) => setEnd(e.target.value)} />
      </div>
      <Checkbox label={t('interviews.manage.repeatWeekly')} checked={repeat} onChange={(e) => setRepeat(e.target.checked)} />
      {repeat ? (
        <TextField label={t('interviews.manage.weeks')} hint={t('interviews.manage.weeksHint')} type="number" min={1} max={52} required value={weeks} onChange={(e) => setWeeks(e.target.value)} />
      ) : null}
      <div className="button-row">
        <button type="submit" className="button" disabled={busy}>
          {repeat ? t('interviews.manage.createSeries') : t('interviews.manage.create')}
        </button>
      </div>
    </form>
  );
}

function EditPanel({
  offer,
  intent,
  timeZone,
  clock,
  onStop,
  onReschedule,
  onLink,
}: {
  offer: Offer;
  intent: Intent;
  timeZone: string;
  clock: ReturnType<typeof useZone>['clock'];
  onStop(): void;
  onReschedule(start: Date, end: Date): Promise<void>;
  onLink(link: string): Promise<void>;
}) {
  const { t } = useTranslation();
  const [date, setDate] = useState(() => dayKey(offer.timeSlot.start, timeZone));
  const [start, setStart] = useState(() => toLocalInput(offer.timeSlot.start, timeZone).slice(11));
  const [end, setEnd] = useState(() => toLocalInput(offer.timeSlot.end, timeZone).slice(11));
  const [link, setLink] = useState(offer.externalLink ?? '');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    heading.current?.focus();
    heading.current?.scrollIntoView?.({ block: 'nearest' });
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [intent]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (intent === 'link') return onLink(link);
    const startsAt = fromLocalInput(`${date}T${start}`, timeZone);
    const endsAt = fromLocalInput(`${date}T${end}`, timeZone);
    if (startsAt && endsAt) await onReschedule(startsAt, endsAt);
  };

  return (
    <form className="card interview-form interview-form--editing" onSubmit={submit} aria-labelledby="edit-offer-heading">
      <h2 id="edit-offer-heading" ref={heading} tabIndex={-1}>{intent === 'link' ? t('interviews.manage.editLinkTitle') : t('interviews.manage.rescheduleTitle')}</h2>
      <p>{clock.slot(offer.timeSlot.start, offer.timeSlot.end)}</p>
      {intent === 'link' ? (
        <TextField label={t('interviews.manage.link')} hint={t('interviews.manage.linkHint')} type="url" dir="ltr" value={link} onChange={(e) => setLink(e.target.value)} />
      ) : (
        <div className="interview-form__row">
          <TextField label={t('interviews.manage.date')} type="date" required value={date} onChange={(e) => setDate(e.target.value)} />
          <TextField label={t('interviews.manage.start')} type="time" required value={start} onChange={(e) => setStart(e.target.value)} />
          <TextField label={t('interviews.manage.end')} type="time" required value={end} onChange={(e) => setEnd(e.target.value)} />
        </div>
      )}
      <div className="button-row">
        <button type="submit" className="button">
          {t('common.save')}
        </button>
        <button type="button" className="button button--secondary" onClick={onStop}>
          {t('interviews.manage.stopEditing')}
        </button>
      </div>
    </form>
  );
}

function WeekView({ week, offers, onWeek }: { week: Week; offers: Offer[]; onWeek(n: number): void }) {
  const { t } = useTranslation();
  const { timeZone, clock } = useZone();
  const inWeek = offers.filter((o) => o.timeSlot.start >= week.since && o.timeSlot.start < week.until);
  return (
    <section className="week" aria-labelledby="week-heading">
      <div className="week__head">
        <h2 id="week-heading">{t('interviews.week', { week: week.number, year: week.year })}</h2>
        <div className="button-row">
          <button type="button" className="button button--secondary button--small" onClick={() => onWeek(-1)}>
            {t('interviews.previousWeek')}
          </button>
          <button type="button" className="button button--secondary button--small" onClick={() => onWeek(0)}>
            {t('interviews.thisWeek')}
          </button>
          <button type="button" className="button button--secondary button--small" onClick={() => onWeek(1)}>
            {t('interviews.nextWeek')}
          </button>
        </div>
      </div>
      <ol className="week__days">
        {week.days.map((day) => {
          const slots = inWeek.filter((o) => dayKey(o.timeSlot.start, timeZone) === day);
          return (
            <li key={day} className="week__day">
              <h3 className="week__day-name">{dayHeading(day, clock)}</h3>
              {slots.length === 0 ? (
                <p className="muted">{t('interviews.noSlots')}</p>
              ) : (
                <ul className="plain-list">
                  {slots.map((o) => (
                    <li key={o.id} className={`week__slot${o.canceled ? ' week__slot--canceled' : o.activeBookings.length ? ' week__slot--booked' : ''}`}>
                      {clock.time(o.timeSlot.start)}–{clock.time(o.timeSlot.end)}{' '}
                      <span className="muted">{o.canceled ? t('interviews.status.canceled') : o.activeBookings.length ? t('interviews.status.booked') : t('interviews.status.free')}</span>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function OfferSection({ title, offers, me, now, actions, empty }: { title: string; offers: Offer[]; me: string; now: Date; actions: OfferActions; empty?: string }) {
  if (offers.length === 0 && !empty) return null;
  return (
    <section className="offer-section" aria-label={title}>
      <h2>{title}</h2>
      {offers.length === 0 ? <p className="muted">{empty}</p> : null}
      <ul className="plain-list offer-list">
        {offers.map((o) => (
          <OfferItem key={o.id} offer={o} me={me} now={now} actions={actions} />
        ))}
      </ul>
    </section>
  );
}

function OfferItem({ offer, me, now, actions }: { offer: Offer; me: string; now: Date; actions: OfferActions }) {
  const { t } = useTranslation();
  const session = useSession();
  const { clock } = useZone();
  const mine = offer.interviewerId === me || Boolean(session.user?.is_coordinator_account);
  const upcoming = offer.timeSlot.start > now;
  const booking = offer.activeBookings[0];
  const when = clock.slot(offer.timeSlot.start, offer.timeSlot.end);
  return (
    <li className={`card offer${offer.canceled ? ' offer--canceled' : ''}${isJoinable(offer.timeSlot, now) ? ' offer--soon' : ''}`}>
      <p className="offer__time">{when}</p>
      <p className="offer__status">
        {offer.canceled ? (
          t('interviews.status.canceled')
        ) : booking ? (
          // Issue 26: an upcoming interview is a link: to the report that is prepared before it starts.
          <Link to={`/interviews/reports?booking=${booking.id}`}>
            <bdi>{t('interviews.status.bookedBy', { name: booking.interviewee?.username ?? '—' })}</bdi>
          </Link>
        ) : (
          t('interviews.status.free')
        )}
        {offer.interviewerId !== me && offer.interviewer ? ` · ${t('interviews.interviewerName', { name: offer.interviewer.username })}` : ''}
        {offer.hasTakenPlace ? ` · ${t('interviews.status.held')}` : ''}
      </p>
      {!offer.canceled ? <JoinLink link={offer.externalLink} slot={offer.timeSlot} now={now} /> : null}
      <div className="button-row">
        {mine && upcoming && !offer.canceled ? (
          <>
            <button type="button" className="button button--secondary button--small" onClick={() => actions.edit(offer, 'reschedule')} aria-label={`${t('interviews.manage.reschedule')}: ${when}`}>
              {t('interviews.manage.reschedule')}
            </button>
            <button type="button" className="button button--secondary button--small" onClick={() => actions.edit(offer, 'link')} aria-label={`${t('interviews.manage.setLink')}: ${when}`}>
              {t('interviews.manage.setLink')}
            </button>
            <button type="button" className="button button--danger button--small" onClick={() => void actions.cancel(offer)} aria-label={`${t('interviews.manage.cancel')}: ${when}`}>
              {t('interviews.manage.cancel')}
            </button>
          </>
        ) : null}
        {mine && upcoming && offer.canceled && offer.interviewerId === me ? (
          <button type="button" className="button button--secondary button--small" onClick={() => void actions.uncancel(offer)} aria-label={`${t('interviews.manage.uncancel')}: ${when}`}>
            {t('interviews.manage.uncancel')}
          </button>
        ) : null}
        {offer.canceled && offer.interviewerId !== me && upcoming && session.user?.is_interviewer_account ? (
          <button type="button" className="button button--small" onClick={() => void actions.adopt(offer)} aria-label={`${t('interviews.manage.adopt')}: ${when}`}>
            {t('interviews.manage.adopt')}
          </button>
        ) : null}
        {mine && !upcoming && !offer.canceled && !offer.hasTakenPlace ? (
          <button type="button" className="button button--secondary button--small" onClick={() => void actions.markHeld(offer)} aria-label={`${t('interviews.manage.markHeld')}: ${when}`}>
            {t('interviews.manage.markHeld')}
          </button>
        ) : null}
      </div>
      {actions.editor(offer)}
    </li>
  );
}
