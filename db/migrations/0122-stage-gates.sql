-- Why: issue 25, gates that hold at the server. A patient excluded by a coordinator (consent
-- withdrawn) could still book an interview: the slot was taken and the interviewer invited; a
-- patient still at screening could book before the screening decided anything; a dropped-out or
-- finished patient could still send worksheets. The stage of the case now decides, in SQL, for
-- every caller (GraphQL, REST, the demo, the workflow): one function names the refusal
-- (app_hidden.stage_refusal), one raises it (app_hidden.refuse_by_stage), and the booking
-- command and the six worksheet collections go through it. The refusal codes name the real
-- reason (the kinds of app_hidden.case_stop_kind, 0120), so the patient reads kind words that fit
-- it: an exclusion for withdrawn consent is not "your answers show…".
--
-- Redefines app_public.book_interview (0012): the same function with the gate added before the
-- slot is locked; nothing else changed.

-- The refusal for an act on a case at its stage, or null when the stage allows it.
--   booking:   open in 'registration' (a case without a trial yet: the coordinators' manual path)
--              and 'interview' (screened in, before the decision); 'screening' is not complete yet.
--   worksheet: not after the path ended (exclusion, dropout) nor once the case is finished.
create function app_hidden.stage_refusal(case_id uuid, act text) returns text
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  kind constant text := app_hidden.case_stop_kind(stage_refusal.case_id);
  current_stage text;
begin
  select c.stage into current_stage from app_public.cases c where c.id = stage_refusal.case_id;
  if kind is not null then
    return case kind
      when 'screening' then 'PATH_ENDED_SCREENING'
      when 'interview' then 'PATH_ENDED_INTERVIEW'
      when 'missedInterview' then 'PATH_ENDED_MISSED_INTERVIEW'
      when 'dropout' then 'PATH_ENDED_DROPOUT'
      else 'PATH_ENDED_TEAM'
    end;
  end if;
  if current_stage in ('finished', 'rejected') then
    return 'PATH_FINISHED';
  end if;
  if act = 'booking' then
    if current_stage = 'screening' then
      return 'SCREENING_NOT_COMPLETE';
    end if;
    if current_stage not in ('registration', 'interview') then
      return 'BOOKING_CLOSED';
    end if;
  elsif act <> 'worksheet' then
    raise exception 'Unknown act "%".', act using errcode = '22023';
  end if;
  return null;
end;
$$;
comment on function app_hidden.stage_refusal(uuid, text) is
  'The refusal code for booking or a worksheet write on a case at its stage, or null when allowed.';

-- Raises the refusal, if any, as a rule with its code (P0001 + hint: GraphQL and REST pass the
-- code on; the web app words it, src/web/api/error-key.ts).
create function app_hidden.refuse_by_stage(case_id uuid, act text) returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  refusal constant text := app_hidden.stage_refusal(refuse_by_stage.case_id, act);
begin
  if refusal is not null then
    raise exception '%', case refusal
        when 'SCREENING_NOT_COMPLETE' then 'An interview can be booked once the screening questionnaires are complete'
        when 'BOOKING_CLOSED' then 'Booking an interview is not open at this step of the trial'
        when 'PATH_FINISHED' then 'The participation in the trial has ended'
        else 'The participation in the trial has ended: ' || lower(replace(substr(refusal, 12), '_', ' '))
      end
      using errcode = 'P0001', hint = refusal;
  end if;
end;
$$;

-- The six worksheets: a patient's new or changed entry is refused once their path ended. Staff
-- edits of the record (none are granted today) and the server's own writes are not gated.
create function app_hidden.tg_worksheet_stage_gate() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  -- The writer is the case's patient (the server's own writes carry no user id).
  if exists (select 1 from app_public.case_members m
                  where m.case_id = new.case_id and m.user_id = app_public.current_user_id() and m.acts_as_patient) then
    perform app_hidden.refuse_by_stage(new.case_id, 'worksheet');
  end if;
  return new;
end;
$$;

do $$
declare
  sheet text;
begin
  foreach sheet in array array['cbt_thoughts', 'cbt_reframings', 'cbt_activities', 'ipt_conflicts', 'ipt_relationships', 'ipt_situations'] loop
    execute format('create trigger _040_stage_gate before insert or update on app_public.%I
                      for each row execute function app_hidden.tg_worksheet_stage_gate()', sheet);
  end loop;
end;
$$;

create or replace function app_public.book_interview(offer_id uuid, case_id uuid) returns app_public.interview_bookings
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
  -- The stage gate (0122): not before the screening is complete, not after the path ended,
  -- checked before anything is locked or written, for the patient and a coordinator alike.
  perform app_hidden.refuse_by_stage(book_interview.case_id, 'booking');
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
  'Books a free upcoming time slot for a case: its patient for themselves, or a coordinator; refused while the stage does not allow it (app_hidden.stage_refusal).';
