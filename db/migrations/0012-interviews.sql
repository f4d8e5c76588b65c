-- Why: interview scheduling (spec §3 InterviewOffer, InterviewBooking, Available interview
-- date; §4 offer lifecycle and booking; DESIGN.md §3 visibility). Interviewers publish time
-- slots ("offers", tstzrange [start, end)); a patient, or a coordinator for a chosen case,
-- books a free upcoming slot. The rules that must hold under concurrency live here:
--   * one interviewer's live (not cancelled) slots never overlap: an exclusion constraint.
--     Cancelled slots do not count: a cancelled slot is free time again (its owner may publish
--     another slot there) and waits to be adopted by a colleague, whose own slots it must then
--     not overlap (checked when the adoption makes it live again);
--   * at most one active booking per slot: a partial unique index, so twenty parallel bookings
--     of one slot give one booking and nineteen "no longer available";
--   * at most one active upcoming booking per case: checked under a lock on the case row by
--     the only code path that creates bookings.
-- Every action is a security-definer function with the spec's name (BookInterview,
-- CancelOffer, …) that checks who may do it, raises a coded error (SQLSTATE P0001, the code
-- in HINT) a person can act on, tells the workflow (app_hidden.notify_workflow) and queues
-- the calendar mails in the same transaction, so a rolled-back action leaves no trace.

-- Tables ------------------------------------------------------------------------------------

create table app_public.interview_offers (
  id uuid primary key default gen_random_uuid(),
  interviewer_id uuid not null references app_public.users (id) on delete cascade,
  time_slot tstzrange not null,
  -- the bounds as columns, so lists sort by start (spec §3) and indexes serve time windows
  starts_at timestamptz not null generated always as (lower(time_slot)) stored,
  ends_at timestamptz not null generated always as (upper(time_slot)) stored,
  canceled boolean not null default false,
  canceled_at timestamptz,
  external_link text
    constraint interview_offers_external_link_format check (external_link ~ '^https://[^\s<>"]{3,}$' and length(external_link) <= 2000),
  has_taken_place boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint interview_offers_time_slot_bounds check (
    not isempty(time_slot) and lower_inc(time_slot) and not upper_inc(time_slot)
    and not lower_inf(time_slot) and not upper_inf(time_slot)),
  constraint interview_offers_time_slot_length check (upper(time_slot) - lower(time_slot) <= interval '12 hours'),
  constraint interview_offers_canceled_at check (canceled = (canceled_at is not null)),
  constraint interview_offers_no_overlap exclude using gist (interviewer_id with =, time_slot with &&) where (not canceled)
);
comment on table app_public.interview_offers is
  'A time slot an interviewer offers for an intake interview: start inclusive, end exclusive.';
comment on column app_public.interview_offers.time_slot is 'When the interview takes place, [start, end), stored in UTC.';
comment on column app_public.interview_offers.external_link is 'The https link of the video meeting, shown from 20 minutes before the start.';
comment on column app_public.interview_offers.has_taken_place is 'Set by the interviewer once the interview was held.';
-- (starts_at, id) is the free-slot list's order: the earliest free slots come straight from
-- the index and the page size stops the scan (available_interview_dates).
create index interview_offers_start_idx on app_public.interview_offers (starts_at, id) include (interviewer_id) where not canceled;
create index interview_offers_interviewer_idx on app_public.interview_offers (interviewer_id, starts_at);
create index interview_offers_canceled_idx on app_public.interview_offers (starts_at) where canceled;

create table app_public.interview_bookings (
  id uuid primary key default gen_random_uuid(),
  offer_id uuid not null references app_public.interview_offers (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- the patient of the case at booking time
  interviewee_id uuid references app_public.users (id) on delete set null,
  -- the slot's interviewer at booking time: only a cancelled slot changes hands (adoption),
  -- and its bookings are all cancelled by then, so the next interviewer does not see them
  interviewer_id uuid references app_public.users (id) on delete set null,
  booked_by uuid references app_public.users (id) on delete set null,
  canceled boolean not null default false,
  canceled_at timestamptz,
  -- the calendar SEQUENCE of this booking's invitation (RFC 5545): raised on every change mailed
  sequence integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint interview_bookings_canceled_at check (canceled = (canceled_at is not null))
);
comment on table app_public.interview_bookings is 'A booked interview: one case in one offered time slot.';
comment on column app_public.interview_bookings.sequence is 'Revision of the calendar invitation; raised with each mailed change.';
create unique index interview_bookings_one_active_per_offer on app_public.interview_bookings (offer_id) where not canceled;
create index interview_bookings_case_idx on app_public.interview_bookings (case_id, created_at);
create index interview_bookings_offer_idx on app_public.interview_bookings (offer_id);
create index interview_bookings_interviewee_idx on app_public.interview_bookings (interviewee_id);
create index interview_bookings_interviewer_idx on app_public.interview_bookings (interviewer_id);
create index interview_bookings_booked_by_idx on app_public.interview_bookings (booked_by);

comment on constraint interview_bookings_offer_id_fkey on app_public.interview_bookings is E'@fieldName offer\n@foreignFieldName bookings';

create trigger _100_set_updated_at before update on app_public.interview_offers
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _100_set_updated_at before update on app_public.interview_bookings
  for each row execute function app_hidden.tg_set_updated_at();
-- Offers belong to no case; bookings are case data. Both are audited.
create trigger _900_audit after insert or update or delete on app_public.interview_offers
  for each row execute function app_hidden.tg_audit('-');
create trigger _900_audit after insert or update or delete on app_public.interview_bookings
  for each row execute function app_hidden.tg_audit('case_id', 'sequence');

-- The calendar mails of bookings, queued in the transaction of the change and sent by the
-- server's worker (src/server/interviews/mail-worker.ts). Each row is a snapshot of what the
-- mail says, so a later change cannot rewrite an earlier invitation.
create table app_private.interview_mail_queue (
  id bigint generated always as identity primary key,
  booking_id uuid not null references app_public.interview_bookings (id) on delete cascade,
  user_id uuid not null references app_public.users (id) on delete cascade,
  -- booked, canceled, rescheduled, link_changed
  kind text not null check (kind in ('booked', 'canceled', 'rescheduled', 'link_changed')),
  method text not null check (method in ('REQUEST', 'CANCEL')),
  sequence integer not null,
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  external_link text,
  interviewer_name text not null,
  created_at timestamptz not null default now(),
  attempts integer not null default 0,
  run_after timestamptz not null default now()
);
create index interview_mail_queue_run_idx on app_private.interview_mail_queue (run_after);
alter table app_private.interview_mail_queue enable row level security;

-- Helpers -----------------------------------------------------------------------------------

create function app_hidden.is_interviewer() returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return coalesce(
    (select u.is_interviewer_account from app_public.users u where u.id = app_public.current_user_id()),
    false);
end;
$$;

-- Offers the signed-in person may see as the patient of a booking (their own interview).
-- One branch per index: an OR of the two would read every booking.
create function app_hidden.my_booked_offer_ids() returns setof uuid
  language sql stable security definer
  rows 10
  set search_path = pg_catalog
as $$
  select b.offer_id from app_public.interview_bookings b
   where b.interviewee_id = app_public.current_user_id()
  union
  select b.offer_id from app_public.interview_bookings b
   where b.case_id in (select app_hidden.my_case_ids_as('patient'))
$$;

grant execute on function app_hidden.is_interviewer(), app_hidden.my_booked_offer_ids() to sanad_user;

-- Queues the calendar mail of a booking for its patient and its interviewer.
create function app_hidden.queue_interview_mails(booking_id uuid, kind text) returns void
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  insert into app_private.interview_mail_queue
    (booking_id, user_id, kind, method, sequence, starts_at, ends_at, external_link, interviewer_name)
  select b.id, r.user_id, queue_interview_mails.kind,
         case when queue_interview_mails.kind = 'canceled' then 'CANCEL' else 'REQUEST' end,
         b.sequence, lower(o.time_slot), upper(o.time_slot), o.external_link,
         coalesce(iu.alias, iu.username::text)
    from app_public.interview_bookings b
    join app_public.interview_offers o on o.id = b.offer_id
    join app_public.users iu on iu.id = o.interviewer_id
    cross join lateral (values (b.interviewee_id), (o.interviewer_id)) r (user_id)
   where b.id = queue_interview_mails.booking_id and r.user_id is not null
$$;

-- The offer as the caller may act on it; raises NOT_FOUND for an unknown or invisible offer.
create function app_hidden.offer_for_action(offer_id uuid) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers;
begin
  select * into offer from app_public.interview_offers o where o.id = offer_id for update;
  if offer.id is null
     or not (offer.interviewer_id = app_public.current_user_id() or app_hidden.is_coordinator()
             or (offer.canceled and app_hidden.is_interviewer())) then
    raise exception 'This time slot does not exist, or you cannot see it' using errcode = 'P0001', hint = 'OFFER_NOT_FOUND';
  end if;
  return offer;
end;
$$;

-- Only the slot's interviewer and coordinators change a slot.
create function app_hidden.require_offer_owner(offer app_public.interview_offers) returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if offer.interviewer_id is distinct from app_public.current_user_id() and not app_hidden.is_coordinator() then
    raise exception 'Only the interviewer of this time slot or a coordinator can change it' using errcode = 'P0001', hint = 'NOT_OWNER';
  end if;
end;
$$;

-- A new or moved slot: start before end, in the future, at most 12 hours.
create function app_hidden.check_new_slot(time_slot tstzrange) returns void
  language plpgsql stable
  set search_path = pg_catalog
as $$
begin
  if time_slot is null or lower(time_slot) is null or upper(time_slot) is null then
    raise exception 'A time slot needs a start and an end' using errcode = 'P0001', hint = 'SLOT_INCOMPLETE';
  end if;
  if upper(time_slot) <= lower(time_slot) then
    raise exception 'The end of a time slot must be after its start' using errcode = 'P0001', hint = 'END_BEFORE_START';
  end if;
  if lower(time_slot) <= now() then
    raise exception 'A time slot must start in the future' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  if upper(time_slot) - lower(time_slot) > interval '12 hours' then
    raise exception 'A time slot can be at most 12 hours long' using errcode = 'P0001', hint = 'SLOT_TOO_LONG';
  end if;
end;
$$;

-- Writes a slot change and turns the overlap constraint into the coded error people read.
create function app_hidden.save_offer(offer app_public.interview_offers) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  saved app_public.interview_offers;
begin
  update app_public.interview_offers o
     set interviewer_id = offer.interviewer_id, time_slot = offer.time_slot, canceled = offer.canceled,
         canceled_at = offer.canceled_at, external_link = offer.external_link, has_taken_place = offer.has_taken_place
   where o.id = offer.id
  returning o.* into saved;
  return saved;
exception when exclusion_violation then
  raise exception 'This time overlaps another of the interviewer''s time slots' using errcode = 'P0001', hint = 'SLOT_OVERLAPS';
end;
$$;

-- The active booking of an offer, if any.
create function app_hidden.active_booking(offer_id uuid) returns app_public.interview_bookings
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select b.* from app_public.interview_bookings b where b.offer_id = active_booking.offer_id and not b.canceled
$$;

-- Row-level security ------------------------------------------------------------------------

alter table app_public.interview_offers enable row level security;
alter table app_public.interview_bookings enable row level security;

-- An interviewer sees their own slots and the cancelled slots of others (to adopt them); a
-- patient the slots of their own bookings (free slots come through available_interview_dates,
-- which shows no more than time and gender); a coordinator all.
create policy select_visible on app_public.interview_offers for select to sanad_user using (
  interviewer_id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or (canceled and (select app_hidden.is_interviewer()))
  or id in (select app_hidden.my_booked_offer_ids())
);
-- Bookings: the patient of the case, the interviewer of the slot, coordinators.
create policy select_visible on app_public.interview_bookings for select to sanad_user using (
  interviewee_id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_case_ids_as('patient'))
  or interviewer_id = (select app_public.current_user_id())
);
-- No insert, update or delete grants: every change goes through the functions below.
grant select on app_public.interview_offers, app_public.interview_bookings to sanad_user;

-- Computed fields -------------------------------------------------------------------------

-- The person of an offer or booking, shown wherever the offer or booking is visible.
create type app_public.interview_person as (id uuid, username text, gender app_public.gender);
comment on type app_public.interview_person is 'An interviewer or interviewee as the interview screens show them.';

-- A list asks these once per row. Security definer (the person's user row is not visible to
-- everyone who sees the offer), so not inlinable; plain SQL, whose plan lives as long as the
-- query, measured a third of the PL/pgSQL version's cost per call (11 against 32 µs).
create function app_public.interview_offers_interviewer(o app_public.interview_offers) returns app_public.interview_person
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select u.id, u.username::text, u.gender from app_public.users u where u.id = o.interviewer_id
$$;
comment on function app_public.interview_offers_interviewer(app_public.interview_offers) is 'The interviewer: id, username and gender.';

create function app_public.interview_bookings_interviewee(b app_public.interview_bookings) returns app_public.interview_person
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select u.id, u.username::text, u.gender from app_public.users u where u.id = b.interviewee_id
$$;
comment on function app_public.interview_bookings_interviewee(app_public.interview_bookings) is 'The interviewee: id, username and gender.';

-- Time classes (spec §3; the same rules as src/domain/interviews.ts).
create function app_public.interview_offers_upcoming(o app_public.interview_offers) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$ select lower(o.time_slot) > now() $$;
create function app_public.interview_offers_soon(o app_public.interview_offers) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$ select lower(o.time_slot) > now() and lower(o.time_slot) <= now() + interval '20 minutes' $$;
create function app_public.interview_offers_present(o app_public.interview_offers) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$ select lower(o.time_slot) <= now() and now() < upper(o.time_slot) $$;
create function app_public.interview_offers_past(o app_public.interview_offers) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$ select upper(o.time_slot) <= now() $$;
create function app_public.interview_offers_is_post(o app_public.interview_offers) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$ select upper(o.time_slot) <= now() and now() < upper(o.time_slot) + interval '24 hours' $$;
comment on function app_public.interview_offers_soon(app_public.interview_offers) is 'Starts within the next 20 minutes.';
comment on function app_public.interview_offers_is_post(app_public.interview_offers) is 'Ended within the last 24 hours: time to write the report.';

-- Active bookings oldest first; cancelled bookings newest cancellation first (spec §3).
-- Inlinable (no `set search_path`, names qualified with pg_catalog, as cases_short_id in 0003):
-- a list of offers then reads their bookings in one plan, and the bookings' row-level security
-- sub-plans run once per query instead of once per offer.
create function app_public.interview_offers_active_bookings(o app_public.interview_offers) returns setof app_public.interview_bookings
  language sql stable
as $$
  select b.* from app_public.interview_bookings b
   where b.offer_id operator(pg_catalog.=) o.id and not b.canceled
   order by b.created_at, b.id
$$;
create function app_public.interview_offers_canceled_bookings(o app_public.interview_offers) returns setof app_public.interview_bookings
  language sql stable
as $$
  select b.* from app_public.interview_bookings b
   where b.offer_id operator(pg_catalog.=) o.id and b.canceled
   order by b.canceled_at desc, b.id
$$;

grant execute on function app_public.interview_offers_interviewer(app_public.interview_offers),
  app_public.interview_bookings_interviewee(app_public.interview_bookings),
  app_public.interview_offers_upcoming(app_public.interview_offers), app_public.interview_offers_soon(app_public.interview_offers),
  app_public.interview_offers_present(app_public.interview_offers), app_public.interview_offers_past(app_public.interview_offers),
  app_public.interview_offers_is_post(app_public.interview_offers),
  app_public.interview_offers_active_bookings(app_public.interview_offers),
  app_public.interview_offers_canceled_bookings(app_public.interview_offers) to sanad_user;

-- Reads -------------------------------------------------------------------------------------

-- Free upcoming slots (spec §3 "Available interview date"): id, time slot and the
-- interviewer's gender, nothing about other patients. Any signed-in person may ask; the
-- interval bounds the answer (a patient's screen asks for the next weeks).
create type app_public.available_interview_date as (id uuid, time_slot tstzrange, gender app_public.gender);
comment on type app_public.available_interview_date is 'A free, upcoming interview time slot.';

-- Free slots, read through a view owned by the schema owner: the view sees past the offers'
-- row-level security (a patient may not read offers) and shows only id, time and gender. The
-- function over it is inlinable, so the page size of the request reaches the plan: the earliest
-- free slots come straight from the (starts_at, id) index, each checked against the active
-- booking of its slot, and the scan stops at the page size, instead of joining every future
-- slot with every booking and sorting them (measured 1.7 against 12-25 ms for the first 200 of
-- 5,500 free slots). The order is the view's own: the security barrier keeps an order asked
-- for outside it from reaching the index, and an outer ORDER BY would make the planner plan
-- the view for every row.
create view app_hidden.free_interview_slots with (security_barrier) as
  select o.id, o.time_slot, o.starts_at, u.gender
    from app_public.interview_offers o
    join app_public.users u on u.id = o.interviewer_id
   where not o.canceled
     and not exists (select 1 from app_public.interview_bookings b where b.offer_id = o.id and not b.canceled)
   order by o.starts_at, o.id;
grant select on app_hidden.free_interview_slots to sanad_user;

create function app_public.available_interview_dates(since timestamptz default null, until timestamptz default null)
  returns setof app_public.available_interview_date
  language sql stable
as $$
  select f.id, f.time_slot, f.gender
    from app_hidden.free_interview_slots f
   where app_public.current_user_id() is not null
     and f.starts_at operator(pg_catalog.>) pg_catalog.now()
     and (available_interview_dates.since is null or f.starts_at operator(pg_catalog.>=) available_interview_dates.since)
     and (available_interview_dates.until is null or f.starts_at operator(pg_catalog.<) available_interview_dates.until)
$$;
comment on function app_public.available_interview_dates(timestamptz, timestamptz) is
  'Free upcoming time slots, earliest first, optionally starting within [since, until).';

-- The active bookings of a case (spec §7 queryBookingInfoByCaseId); row-level security applies.
create function app_public.query_booking_info_by_case_id(case_id uuid) returns setof app_public.interview_bookings
  language sql stable
  set search_path = pg_catalog
as $$
  select b.* from app_public.interview_bookings b
   where b.case_id = query_booking_info_by_case_id.case_id and not b.canceled
   order by b.created_at, b.id
$$;
comment on function app_public.query_booking_info_by_case_id(uuid) is 'The active (not cancelled) interview bookings of a case.';

-- The slots starting in a time window, by start (the interview calendar's week). Row-level
-- security applies: a coordinator sees every interviewer's, an interviewer their own and the
-- cancelled ones of others.
create function app_public.interview_calendar(since timestamptz, until timestamptz) returns setof app_public.interview_offers
  language sql stable
  set search_path = pg_catalog
as $$
  select o.* from app_public.interview_offers o
   where o.starts_at >= interview_calendar.since and o.starts_at < interview_calendar.until
   order by o.starts_at, o.interviewer_id, o.id
$$;
comment on function app_public.interview_calendar(timestamptz, timestamptz) is 'Time slots starting within [since, until), earliest first.';

-- The offers the manage screen lists (spec §7 InterviewOffers): those starting at or after
-- `since` (the screen asks for the last 30 days and everything ahead) that are the person's
-- own; for an interviewer also the upcoming cancelled slots of colleagues (the adoptible ones:
-- a slot that has started can no longer be taken over); for a patient the slots of their
-- bookings; for a coordinator every slot. Row-level security still decides what is seen: this
-- function only finds the candidates, one index per reason to see an offer. Reading the table
-- under the policy alone cannot use an index (its OR includes "is a coordinator", true or
-- false for every row alike), so every request would read every slot ever offered.
-- Inlinable (no `set search_path`, names qualified), so the page size and the computed fields
-- join in the request's plan; the is-interviewer and is-coordinator checks become one-time
-- filters that skip whole branches.
create function app_public.interview_offers_from(since timestamptz default null) returns setof app_public.interview_offers
  language sql stable
as $$
  select mine.* from (
    select o.* from app_public.interview_offers o
     where not (select app_hidden.is_coordinator())
       and o.interviewer_id operator(pg_catalog.=) (select app_public.current_user_id())
       and o.starts_at operator(pg_catalog.>=) coalesce(interview_offers_from.since, '-infinity'::pg_catalog.timestamptz)
    union all
    select o.* from app_public.interview_offers o
     where not (select app_hidden.is_coordinator()) and (select app_hidden.is_interviewer())
       and o.canceled and o.starts_at operator(pg_catalog.>) pg_catalog.now()
       and o.starts_at operator(pg_catalog.>=) coalesce(interview_offers_from.since, '-infinity'::pg_catalog.timestamptz)
       and o.interviewer_id operator(pg_catalog.<>) (select app_public.current_user_id())
    union all
    select o.* from app_public.interview_offers o
     where not (select app_hidden.is_coordinator())
       and o.id in (select app_hidden.my_booked_offer_ids())
       and o.starts_at operator(pg_catalog.>=) coalesce(interview_offers_from.since, '-infinity'::pg_catalog.timestamptz)
       and o.interviewer_id operator(pg_catalog.<>) (select app_public.current_user_id())
       and not (o.canceled and o.starts_at operator(pg_catalog.>) pg_catalog.now() and (select app_hidden.is_interviewer()))
    union all
    -- Through the calendar function: not inlined, it stands for its 1000 estimated rows instead
    -- of the whole table, so the request's plan is not priced (and JIT-compiled) as though every
    -- caller were a coordinator reading every slot.
    select c.* from app_public.interview_calendar(coalesce(interview_offers_from.since, '-infinity'::pg_catalog.timestamptz), 'infinity') c
     where (select app_hidden.is_coordinator())
  ) mine
   order by mine.starts_at, mine.id
$$;
comment on function app_public.interview_offers_from(timestamptz) is
  'The time slots to manage, by start: those starting at or after `since` (all when empty) that are your own; for interviewers also the upcoming cancelled slots of colleagues, which can be taken over; for coordinators every slot.';

grant execute on function app_public.available_interview_dates(timestamptz, timestamptz),
  app_public.query_booking_info_by_case_id(uuid), app_public.interview_calendar(timestamptz, timestamptz),
  app_public.interview_offers_from(timestamptz) to sanad_user;

-- Offer actions -----------------------------------------------------------------------------

-- The interviewer a new slot belongs to: oneself (an interviewer) or, for a coordinator, any
-- interviewer account.
create function app_hidden.offer_owner_for_create(interviewer_id uuid) returns uuid
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  owner uuid := coalesce(interviewer_id, app_public.current_user_id());
begin
  if owner = app_public.current_user_id() then
    if not (app_hidden.is_interviewer() or app_hidden.is_coordinator()) then
      raise exception 'Only interviewers and coordinators can offer interview times' using errcode = 'P0001', hint = 'NOT_INTERVIEWER';
    end if;
    return owner;
  end if;
  if not app_hidden.is_coordinator() then
    raise exception 'Only a coordinator can offer times for another interviewer' using errcode = 'P0001', hint = 'NOT_OWNER';
  end if;
  if not exists (select 1 from app_public.users u where u.id = owner and u.is_interviewer_account) then
    raise exception 'This person is not an interviewer' using errcode = 'P0001', hint = 'NOT_INTERVIEWER';
  end if;
  return owner;
end;
$$;

create function app_hidden.insert_offer(interviewer_id uuid, time_slot tstzrange) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  created app_public.interview_offers;
begin
  perform app_hidden.check_new_slot(time_slot);
  insert into app_public.interview_offers (interviewer_id, time_slot)
  values (insert_offer.interviewer_id, insert_offer.time_slot)
  returning * into created;
  return created;
exception when exclusion_violation then
  raise exception 'This time overlaps another of the interviewer''s time slots (%)', lower(time_slot)
    using errcode = 'P0001', hint = 'SLOT_OVERLAPS';
end;
$$;

create function app_public.create_offer(starts_at timestamptz, ends_at timestamptz, interviewer_id uuid default null)
  returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if starts_at is not null and ends_at is not null and ends_at <= starts_at then
    raise exception 'The end of a time slot must be after its start' using errcode = 'P0001', hint = 'END_BEFORE_START';
  end if;
  return app_hidden.insert_offer(app_hidden.offer_owner_for_create(interviewer_id), tstzrange(starts_at, ends_at, '[)'));
end;
$$;
comment on function app_public.create_offer(timestamptz, timestamptz, uuid) is
  'Offers a time slot [startsAt, endsAt); an interviewer for themselves, a coordinator for any interviewer.';

-- A weekly series in one action, all or nothing: the same local wall-clock time every week in
-- the given time zone (the caller's own by default), so a series stays at 10:00 across a
-- daylight-saving change.
create function app_public.create_offer_series(
  starts_at timestamptz, ends_at timestamptz, weeks integer, time_zone text default null, interviewer_id uuid default null
) returns setof app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  owner uuid;
  zone text := coalesce(time_zone, (select u.time_zone from app_public.users u where u.id = app_public.current_user_id()), 'UTC');
  local_start timestamp;
  local_end timestamp;
  week integer;
begin
  if weeks is null or weeks < 1 or weeks > 52 then
    raise exception 'A series has 1 to 52 weeks' using errcode = 'P0001', hint = 'SERIES_LENGTH';
  end if;
  if not app_hidden.is_time_zone(zone) then
    raise exception 'Unknown time zone %', zone using errcode = 'P0001', hint = 'TIME_ZONE_UNKNOWN';
  end if;
  if starts_at is not null and ends_at is not null and ends_at <= starts_at then
    raise exception 'The end of a time slot must be after its start' using errcode = 'P0001', hint = 'END_BEFORE_START';
  end if;
  owner := app_hidden.offer_owner_for_create(interviewer_id);
  local_start := starts_at at time zone zone;
  local_end := ends_at at time zone zone;
  for week in 0 .. weeks - 1 loop
    return next app_hidden.insert_offer(owner, tstzrange(
      (local_start + make_interval(days => 7 * week)) at time zone zone,
      (local_end + make_interval(days => 7 * week)) at time zone zone, '[)'));
  end loop;
end;
$$;
comment on function app_public.create_offer_series(timestamptz, timestamptz, integer, text, uuid) is
  'Offers the same time slot every week for the given number of weeks, at the same local time in the time zone; all or nothing.';

create function app_public.cancel_offer(id uuid) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers := app_hidden.offer_for_action(cancel_offer.id);
  booking app_public.interview_bookings;
begin
  perform app_hidden.require_offer_owner(offer);
  if offer.canceled then
    raise exception 'This time slot is cancelled already' using errcode = 'P0001', hint = 'OFFER_CANCELED';
  end if;
  if lower(offer.time_slot) <= now() then
    raise exception 'This time slot has started or is over and cannot be cancelled' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  -- The interview will not take place at this time: its booking ends too, and the patient is
  -- told (mail, workflow) so they can choose another time.
  booking := app_hidden.active_booking(offer.id);
  if booking.id is not null then
    perform app_hidden.cancel_booking_row(booking, 'offerCanceled');
  end if;
  offer.canceled := true;
  offer.canceled_at := now();
  return app_hidden.save_offer(offer);
end;
$$;
comment on function app_public.cancel_offer(uuid) is 'Cancels a time slot and its booking; colleagues may then adopt it.';

create function app_public.uncancel_offer(id uuid) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers := app_hidden.offer_for_action(uncancel_offer.id);
begin
  perform app_hidden.require_offer_owner(offer);
  if not offer.canceled then
    raise exception 'This time slot is not cancelled' using errcode = 'P0001', hint = 'OFFER_NOT_CANCELED';
  end if;
  if lower(offer.time_slot) <= now() then
    raise exception 'A time slot must start in the future' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  offer.canceled := false;
  offer.canceled_at := null;
  return app_hidden.save_offer(offer);
end;
$$;
comment on function app_public.uncancel_offer(uuid) is 'Offers a cancelled time slot again.';

create function app_public.adopt_offer(id uuid) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers := app_hidden.offer_for_action(adopt_offer.id);
begin
  if not app_hidden.is_interviewer() then
    raise exception 'Only interviewers can take over a time slot' using errcode = 'P0001', hint = 'NOT_INTERVIEWER';
  end if;
  if not offer.canceled or offer.interviewer_id = app_public.current_user_id() then
    raise exception 'Only a cancelled time slot of another interviewer can be taken over' using errcode = 'P0001', hint = 'NOT_ADOPTIBLE';
  end if;
  if lower(offer.time_slot) <= now() then
    raise exception 'A time slot must start in the future' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  offer.interviewer_id := app_public.current_user_id();
  offer.canceled := false;
  offer.canceled_at := null;
  offer.external_link := null;
  return app_hidden.save_offer(offer);
end;
$$;
comment on function app_public.adopt_offer(uuid) is 'Takes over another interviewer''s cancelled time slot and offers it again.';

-- Moves a slot; a booking moves with it (invitation updated, SEQUENCE raised).
create function app_hidden.move_offer(offer app_public.interview_offers, time_slot tstzrange) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  booking app_public.interview_bookings;
  saved app_public.interview_offers;
begin
  perform app_hidden.require_offer_owner(offer);
  if lower(offer.time_slot) <= now() then
    raise exception 'This time slot has started or is over and cannot be moved' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  if time_slot is null or (lower(time_slot) is not null and upper(time_slot) is not null and upper(time_slot) <= lower(time_slot)) then
    raise exception 'The end of a time slot must be after its start' using errcode = 'P0001', hint = 'END_BEFORE_START';
  end if;
  time_slot := tstzrange(lower(time_slot), upper(time_slot), '[)');
  perform app_hidden.check_new_slot(time_slot);
  if offer.time_slot = time_slot then
    return offer;
  end if;
  offer.time_slot := time_slot;
  saved := app_hidden.save_offer(offer);
  booking := app_hidden.active_booking(offer.id);
  if booking.id is not null then
    update app_public.interview_bookings b set sequence = b.sequence + 1 where b.id = booking.id;
    perform app_hidden.queue_interview_mails(booking.id, 'rescheduled');
    perform app_hidden.notify_workflow(booking.case_id, 'interviewRescheduled', jsonb_build_object(
      'offerId', jsonb_build_object('value', offer.id::text, 'type', 'String'),
      'bookingId', jsonb_build_object('value', booking.id::text, 'type', 'String'),
      'startsAt', jsonb_build_object('value', to_char(lower(time_slot) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'type', 'String')));
  end if;
  return saved;
end;
$$;

-- Spec §7 RescheduleOffer(id, newDate { timeSlot { start, end } }).
create type app_public.interview_offer_date as (time_slot tstzrange);
comment on type app_public.interview_offer_date is 'The new time of a time slot.';

create function app_public.reschedule_offer(id uuid, new_date app_public.interview_offer_date) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  return app_hidden.move_offer(app_hidden.offer_for_action(reschedule_offer.id), new_date.time_slot);
end;
$$;
comment on function app_public.reschedule_offer(uuid, app_public.interview_offer_date) is 'Moves a time slot (and its booking) to a new time.';

create function app_hidden.change_link(offer app_public.interview_offers, link text) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  booking app_public.interview_bookings;
  saved app_public.interview_offers;
begin
  perform app_hidden.require_offer_owner(offer);
  link := nullif(btrim(link), '');
  if link is not null and (link !~ '^https://[^\s<>"]{3,}$' or length(link) > 2000) then
    raise exception 'The meeting link must be a web address starting with https://' using errcode = 'P0001', hint = 'LINK_INVALID';
  end if;
  if offer.external_link is not distinct from link then
    return offer;
  end if;
  offer.external_link := link;
  saved := app_hidden.save_offer(offer);
  booking := app_hidden.active_booking(offer.id);
  if booking.id is not null and upper(offer.time_slot) > now() then
    update app_public.interview_bookings b set sequence = b.sequence + 1 where b.id = booking.id;
    perform app_hidden.queue_interview_mails(booking.id, 'link_changed');
  end if;
  return saved;
end;
$$;

create function app_public.set_external_link(id uuid, link text) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  return app_hidden.change_link(app_hidden.offer_for_action(set_external_link.id), link);
end;
$$;
comment on function app_public.set_external_link(uuid, text) is 'Sets (or with an empty link removes) the video meeting link of a time slot.';

-- Spec §7 UpdateOffer(id, updates): the fields an interviewer edits; empty fields stay.
create type app_public.interview_offer_updates as (time_slot tstzrange, external_link text, has_taken_place boolean);
comment on type app_public.interview_offer_updates is 'Changes to a time slot; fields left empty stay as they are.';

create function app_public.update_offer(id uuid, updates app_public.interview_offer_updates) returns app_public.interview_offers
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers := app_hidden.offer_for_action(update_offer.id);
begin
  perform app_hidden.require_offer_owner(offer);
  if updates.time_slot is not null and updates.time_slot is distinct from offer.time_slot then
    offer := app_hidden.move_offer(offer, updates.time_slot);
  end if;
  if updates.external_link is not null then
    offer := app_hidden.change_link(offer, updates.external_link);
  end if;
  if updates.has_taken_place is not null and updates.has_taken_place is distinct from offer.has_taken_place then
    if updates.has_taken_place and lower(offer.time_slot) > now() then
      raise exception 'An interview can only have taken place once it has started' using errcode = 'P0001', hint = 'NOT_STARTED';
    end if;
    offer.has_taken_place := updates.has_taken_place;
    offer := app_hidden.save_offer(offer);
  end if;
  return offer;
end;
$$;
comment on function app_public.update_offer(uuid, app_public.interview_offer_updates) is
  'Changes a time slot: its time, its meeting link, or whether the interview has taken place.';

-- Booking actions ---------------------------------------------------------------------------

create function app_hidden.cancel_booking_row(booking app_public.interview_bookings, reason text) returns app_public.interview_bookings
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  saved app_public.interview_bookings;
begin
  update app_public.interview_bookings b
     set canceled = true, canceled_at = now(), sequence = b.sequence + 1
   where b.id = booking.id
  returning b.* into saved;
  perform app_hidden.queue_interview_mails(saved.id, 'canceled');
  perform app_hidden.notify_workflow(saved.case_id, 'interviewBookingCanceled', jsonb_build_object(
    'offerId', jsonb_build_object('value', saved.offer_id::text, 'type', 'String'),
    'bookingId', jsonb_build_object('value', saved.id::text, 'type', 'String'),
    'reason', jsonb_build_object('value', reason, 'type', 'String')));
  return saved;
end;
$$;

create function app_public.book_interview(offer_id uuid, case_id uuid) returns app_public.interview_bookings
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  offer app_public.interview_offers;
  patient_id uuid;
  booking app_public.interview_bookings;
begin
  if offer_id is null or case_id is null then
    raise exception 'Choose a time slot and a case to book' using errcode = 'P0001', hint = 'OFFER_NOT_FOUND';
  end if;
  -- The patient of the case books for it; a coordinator for any case.
  if not (app_hidden.is_coordinator()
          or exists (select 1 from app_public.case_members m
                      where m.case_id = book_interview.case_id and m.user_id = me and m.acts_as_patient)) then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  select m.user_id into patient_id from app_public.case_members m where m.case_id = book_interview.case_id and m.acts_as_patient;
  if patient_id is null then
    raise exception 'This case has no patient to interview' using errcode = 'P0001', hint = 'NO_PATIENT';
  end if;
  -- Lock order: the slot, then the case. Concurrent bookings of one slot wait here, and each
  -- then sees the booking committed before it.
  select * into offer from app_public.interview_offers o where o.id = book_interview.offer_id for update;
  if offer.id is null then
    raise exception 'This time slot does not exist' using errcode = 'P0001', hint = 'OFFER_NOT_FOUND';
  end if;
  if lower(offer.time_slot) <= now() then
    raise exception 'This time has passed; please choose another one' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  if offer.canceled or exists (select 1 from app_public.interview_bookings b where b.offer_id = offer.id and not b.canceled) then
    raise exception 'This time is no longer available; please choose another one' using errcode = 'P0001', hint = 'SLOT_TAKEN';
  end if;
  if offer.interviewer_id = patient_id then
    raise exception 'An interviewer cannot interview themselves' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  perform 1 from app_public.cases c where c.id = book_interview.case_id for no key update;
  if exists (select 1 from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id
              where b.case_id = book_interview.case_id and not b.canceled and not o.canceled and upper(o.time_slot) > now()) then
    raise exception 'There is an interview booked for this case already; cancel it first to choose another time'
      using errcode = 'P0001', hint = 'ALREADY_BOOKED';
  end if;
  begin
    insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id, booked_by)
    values (offer.id, book_interview.case_id, patient_id, offer.interviewer_id, me)
    returning * into booking;
  exception when unique_violation then
    raise exception 'This time is no longer available; please choose another one' using errcode = 'P0001', hint = 'SLOT_TAKEN';
  end;
  -- The interviewer joins the case as its interviewer: they see the patient, messages to the
  -- interviewers, and write the interview report there.
  insert into app_public.case_members (case_id, user_id, acts_as_interviewer)
  values (book_interview.case_id, offer.interviewer_id, true)
  on conflict on constraint case_members_case_id_user_id_key do update set acts_as_interviewer = true
   where not app_public.case_members.acts_as_interviewer;
  perform app_hidden.queue_interview_mails(booking.id, 'booked');
  perform app_hidden.notify_workflow(booking.case_id, 'interviewBooked', jsonb_build_object(
    'offerId', jsonb_build_object('value', offer.id::text, 'type', 'String'),
    'bookingId', jsonb_build_object('value', booking.id::text, 'type', 'String'),
    'startsAt', jsonb_build_object('value', to_char(lower(offer.time_slot) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'type', 'String')));
  return booking;
end;
$$;
comment on function app_public.book_interview(uuid, uuid) is
  'Books a free upcoming time slot for a case: its patient for themselves, or a coordinator.';

create function app_public.cancel_interview_booking(id uuid) returns app_public.interview_bookings
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  booking app_public.interview_bookings;
  offer app_public.interview_offers;
begin
  select * into booking from app_public.interview_bookings b where b.id = cancel_interview_booking.id for update;
  if booking.id is not null then
    select * into offer from app_public.interview_offers o where o.id = booking.offer_id;
  end if;
  if booking.id is null
     or not (app_hidden.is_coordinator() or offer.interviewer_id = app_public.current_user_id()
             or booking.interviewee_id = app_public.current_user_id()
             or exists (select 1 from app_public.case_members m
                         where m.case_id = booking.case_id and m.user_id = app_public.current_user_id() and m.acts_as_patient)) then
    raise exception 'This booking does not exist, or you cannot see it' using errcode = 'P0001', hint = 'BOOKING_NOT_FOUND';
  end if;
  if booking.canceled then
    raise exception 'This booking is cancelled already' using errcode = 'P0001', hint = 'BOOKING_CANCELED';
  end if;
  if lower(offer.time_slot) <= now() then
    raise exception 'This interview has started or is over and cannot be cancelled' using errcode = 'P0001', hint = 'SLOT_IN_PAST';
  end if;
  return app_hidden.cancel_booking_row(booking, 'bookingCanceled');
end;
$$;
comment on function app_public.cancel_interview_booking(uuid) is 'Cancels a booking; the time slot is free again.';

grant execute on function app_public.create_offer(timestamptz, timestamptz, uuid),
  app_public.create_offer_series(timestamptz, timestamptz, integer, text, uuid),
  app_public.cancel_offer(uuid), app_public.uncancel_offer(uuid), app_public.adopt_offer(uuid),
  app_public.reschedule_offer(uuid, app_public.interview_offer_date),
  app_public.set_external_link(uuid, text),
  app_public.update_offer(uuid, app_public.interview_offer_updates),
  app_public.book_interview(uuid, uuid), app_public.cancel_interview_booking(uuid) to sanad_user;

-- Helpers that run only inside the definer functions above: no grant to request roles.
revoke execute on function app_hidden.queue_interview_mails(uuid, text), app_hidden.offer_for_action(uuid),
  app_hidden.require_offer_owner(app_public.interview_offers), app_hidden.check_new_slot(tstzrange),
  app_hidden.save_offer(app_public.interview_offers), app_hidden.active_booking(uuid),
  app_hidden.offer_owner_for_create(uuid), app_hidden.insert_offer(uuid, tstzrange),
  app_hidden.move_offer(app_public.interview_offers, tstzrange), app_hidden.change_link(app_public.interview_offers, text),
  app_hidden.cancel_booking_row(app_public.interview_bookings, text) from public;
