-- Why: issue 15, the rest of trial management. (1) Exclusion and dropout: a coordinator sets or
-- clears any exclusion flag with a reason (one named function, app_hidden.exclude_case, that
-- other features can call too); each change is a row of app_public.exclusion_changes (audited);
-- an excluded or dropped-out case's open workflow tasks end with the reason "excluded" or
-- "dropout". (2) The trial's participants, one row per case with every fact the CONSORT flow
-- counts: the flow page and the participants export read the same function, so their numbers
-- agree. (3) Invoice items (spec §3 "Other records") for held and cancelled interviews and
-- therapy sessions, with a configurable short-term notice. See docs/DECISIONS.md "2026-11 Trial
-- management".

-- Exclusion and dropout ------------------------------------------------------------------------

create table app_public.exclusion_changes (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- a patient flag of spec §3 (excluded, excluded_for_…) or exclude_from_analysis or is_dropout
  flag text not null,
  value boolean not null,
  reason text not null check (length(btrim(reason)) between 1 and 2000),
  changed_by uuid references app_public.users (id) on delete set null,
  changed_at timestamptz not null default now()
);
create index exclusion_changes_case_idx on app_public.exclusion_changes (case_id, changed_at);
comment on table app_public.exclusion_changes is 'Every exclusion or dropout flag a coordinator set or cleared, with the reason given.';
alter table app_public.exclusion_changes enable row level security;
create policy select_staff on app_public.exclusion_changes for select to sanad_user using (
  (select app_hidden.is_coordinator())
  or ((select app_hidden.is_staff()) and case_id in (select app_hidden.my_case_ids()))
);
-- No write grant: only app_hidden.exclude_case writes here.
grant select on app_public.exclusion_changes to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.exclusion_changes
  for each row execute function app_hidden.tg_audit('case_id');

-- Ends every active process of a case from outside, as DELETE /process-instance does
-- (WorkflowHost.terminateInTx), but with a reason on the open tasks that a reader understands.
create function app_hidden.end_case_workflows(case_id uuid, reason text) returns integer
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  ended integer;
  ids uuid[];
begin
  select array_agg(i.id) into ids from app_public.workflow_instances i
   where i.case_id = end_case_workflows.case_id and i.state = 'ACTIVE';
  if ids is null then
    return 0;
  end if;
  perform 1 from app_public.workflow_instances i where i.id = any (ids) for update;
  update app_public.workflow_instances i
     set state = 'EXTERNALLY_TERMINATED', end_time = now(), waiting_messages = '{}', waiting_signals = '{}', waiting_executions = '{}'
   where i.id = any (ids) and i.state = 'ACTIVE';
  get diagnostics ended = row_count;
  update app_public.workflow_tasks t set end_time = now(), delete_reason = reason
   where t.process_instance_id = any (ids) and t.end_time is null;
  update app_public.workflow_history h set end_time = now() where h.process_instance_id = any (ids) and h.end_time is null;
  delete from app_public.workflow_jobs j where j.process_instance_id = any (ids);
  delete from app_private.workflow_engine_states s where s.instance_id = any (ids);
  return ended;
end;
$$;

-- Sets or clears one exclusion flag of a case with a reason. Coordinators only.
--   patient flags (excluded, excluded_for_…): on the case's patient; setting one also sets
--     `excluded`, the stage `excluded`, and ends the open tasks ("excluded"); clearing one lowers
--     `excluded` when no other reason remains (the process does not restart: a coordinator starts
--     a new one if the patient continues).
--   exclude_from_analysis: only the flag and reason_for_exclusion; the case stays in the trial
--     and in every export, flagged.
--   is_dropout: dropout_reason and ask_for_post_if_dropped_out; a process in the treatment
--     phase gets the `dropout` message (post questionnaires follow when ask_for_post is true);
--     a process anywhere else ends its open tasks ("dropout") and the stage becomes finished.
create function app_hidden.exclude_case(case_id uuid, flag text, value boolean, reason text,
                                        ask_for_post boolean default false) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  patient_flags constant text[] := array['excluded', 'excluded_for_bdi_gte45', 'excluded_for_lack_of_email',
    'excluded_for_lack_of_internet_access', 'excluded_during_interview', 'excluded_for_missing_interview',
    'excluded_for_minor_age', 'excluded_for_no_trauma_or_low_bdi', 'excluded_for_upcoming_treatment'];
  patient_id uuid;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may change exclusion flags.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not (flag = any (patient_flags) or flag in ('exclude_from_analysis', 'is_dropout')) then
    raise exception 'Unknown exclusion flag "%".', flag using errcode = '22023', hint = 'unknown_flag';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = exclude_case.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;

  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (exclude_case.case_id, flag, value, btrim(reason), app_public.current_user_id());

  if flag = any (patient_flags) then
    select m.user_id into patient_id from app_public.case_members m
     where m.case_id = exclude_case.case_id and m.acts_as_patient limit 1;
    if patient_id is null then
      raise exception 'The case has no patient to exclude.' using errcode = '55000', hint = 'no_patient';
    end if;
    execute format('update app_public.users set %I = $1 where id = $2', flag) using value, patient_id;
    -- `excluded` is true while any reason is; clearing `excluded` itself clears it alone.
    update app_public.users u set excluded = case when flag = 'excluded' then value else
        u.excluded_for_bdi_gte45 or u.excluded_for_lack_of_email or u.excluded_for_lack_of_internet_access
        or u.excluded_during_interview or u.excluded_for_missing_interview or u.excluded_for_minor_age
        or u.excluded_for_no_trauma_or_low_bdi or u.excluded_for_upcoming_treatment
        or (u.excluded and value) end
     where u.id = patient_id;
    if value then
      update app_public.cases c set stage = 'excluded', reason_for_exclusion = btrim(reason) where c.id = exclude_case.case_id;
      perform app_hidden.end_case_workflows(exclude_case.case_id, 'excluded');
    end if;
  elsif flag = 'exclude_from_analysis' then
    update app_public.cases c set exclude_from_analysis = value, reason_for_exclusion = case when value then btrim(reason) end
     where c.id = exclude_case.case_id;
  else
    update app_public.cases c set is_dropout = value, dropout_reason = case when value then btrim(reason) end,
           ask_for_post_if_dropped_out = value and coalesce(ask_for_post, false)
     where c.id = exclude_case.case_id;
    if value then
      if exists (select 1 from app_public.workflow_instances i
                  where i.case_id = exclude_case.case_id and i.state = 'ACTIVE' and 'dropout' = any (i.waiting_messages)) then
        perform app_hidden.notify_workflow(exclude_case.case_id, 'dropout',
          jsonb_build_object('askForPostIfDroppedOut', jsonb_build_object('value', coalesce(ask_for_post, false), 'type', 'Boolean'),
                             'dropoutReason', jsonb_build_object('value', btrim(reason), 'type', 'String')));
      elsif app_hidden.end_case_workflows(exclude_case.case_id, 'dropout') > 0 then
        update app_public.cases c set stage = 'finished' where c.id = exclude_case.case_id;
      end if;
    end if;
  end if;
end;
$$;
grant execute on function app_hidden.exclude_case(uuid, text, boolean, text, boolean) to sanad_user;

-- The exclusion flags of a case's patient, for the case detail (staff of the case, coordinators).
create function app_public.cases_exclusion_flags(c app_public.cases) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select jsonb_build_object(
           'excluded', u.excluded, 'excluded_for_bdi_gte45', u.excluded_for_bdi_gte45,
           'excluded_for_lack_of_email', u.excluded_for_lack_of_email,
           'excluded_for_lack_of_internet_access', u.excluded_for_lack_of_internet_access,
           'excluded_during_interview', u.excluded_during_interview,
           'excluded_for_missing_interview', u.excluded_for_missing_interview,
           'excluded_for_minor_age', u.excluded_for_minor_age,
           'excluded_for_no_trauma_or_low_bdi', u.excluded_for_no_trauma_or_low_bdi,
           'excluded_for_upcoming_treatment', u.excluded_for_upcoming_treatment)
    from app_public.case_members m join app_public.users u on u.id = m.user_id
   where m.case_id = c.id and m.acts_as_patient
     and (app_hidden.is_coordinator() or (app_hidden.is_staff() and c.id in (select app_hidden.my_case_ids())))
   limit 1
$$;
comment on function app_public.cases_exclusion_flags(app_public.cases) is
  'The exclusion flags of the case''s patient (spec §3 Patient); staff of the case and coordinators.';
grant execute on function app_public.cases_exclusion_flags(app_public.cases) to sanad_user;

-- The trial's participants (CONSORT and its export) ---------------------------------------------

create function app_public.trial_participants()
  returns table (
    case_id uuid, registered_at timestamptz, stage text, screened boolean, excluded boolean, exclusion_reasons text[],
    interviewed boolean, interview_outcome text, rejection_reason text, treatment text, randomized_at timestamptz,
    received_intervention boolean, pre_completed boolean, post_completed boolean, fu1_completed boolean, fu2_completed boolean,
    trial_active boolean, is_dropout boolean, dropout_reason text, exclude_from_analysis boolean, reason_for_exclusion text)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the trial''s participants.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  with patients as (
    select distinct on (m.case_id) m.case_id, u.*
      from app_public.case_members m join app_public.users u on u.id = m.user_id
     where m.acts_as_patient
     order by m.case_id, m.created_at
  ), trials as (
    select distinct on (i.case_id) i.case_id, i.id, i.state, i.variables
      from app_public.workflow_instances i where i.business_key = 'trial'
     order by i.case_id, i.start_time desc
  ), completions as (
    select mc.case_id, array_agg(mc.time_of_measurement) as times
      from app_private.measurement_completions mc group by mc.case_id
  )
  select c.id, c.created_at, c.stage,
         'screening' = any (coalesce(co.times, '{}')) or (tr.variables ? 'excluded') or coalesce(p.excluded, false),
         coalesce(p.excluded, false),
         array_remove(array[
           case when p.excluded_for_bdi_gte45 then 'excluded_for_bdi_gte45' end,
           case when p.excluded_for_lack_of_email then 'excluded_for_lack_of_email' end,
           case when p.excluded_for_lack_of_internet_access then 'excluded_for_lack_of_internet_access' end,
           case when p.excluded_during_interview then 'excluded_during_interview' end,
           case when p.excluded_for_missing_interview then 'excluded_for_missing_interview' end,
           case when p.excluded_for_minor_age then 'excluded_for_minor_age' end,
           case when p.excluded_for_no_trauma_or_low_bdi then 'excluded_for_no_trauma_or_low_bdi' end,
           case when p.excluded_for_upcoming_treatment then 'excluded_for_upcoming_treatment' end,
           case when p.excluded and not (p.excluded_for_bdi_gte45 or p.excluded_for_lack_of_email
             or p.excluded_for_lack_of_internet_access or p.excluded_during_interview or p.excluded_for_missing_interview
             or p.excluded_for_minor_age or p.excluded_for_no_trauma_or_low_bdi or p.excluded_for_upcoming_treatment)
             then 'other' end], null),
         tr.variables ? 'outcome',
         tr.variables -> 'outcome' ->> 'value',
         tr.variables -> 'rejectionReason' ->> 'value',
         ta.treatment, ta.assigned_at,
         ta.id is not null and exists (select 1 from app_public.workflow_history h
                                         where h.case_id = c.id and h.activity_id in ('patientTreatmentTask', 'therapistTreatmentTask')),
         'pre' = any (coalesce(co.times, '{}')), 'post' = any (coalesce(co.times, '{}')),
         'fu1' = any (coalesce(co.times, '{}')), 'fu2' = any (coalesce(co.times, '{}')),
         coalesce(tr.state = 'ACTIVE', false),
         c.is_dropout, c.dropout_reason, c.exclude_from_analysis, c.reason_for_exclusion
    from app_public.cases c
    join patients p on p.case_id = c.id
    left join trials tr on tr.case_id = c.id
    left join completions co on co.case_id = c.id
    left join app_public.treatment_assignments ta on ta.case_id = c.id
   order by c.created_at, c.id;
end;
$$;
comment on function app_public.trial_participants() is
  'One row per patient case with every fact the CONSORT flow counts; coordinators only.';
grant execute on function app_public.trial_participants() to sanad_user;

-- Invoice items (spec §3) ----------------------------------------------------------------------

create table app_private.invoice_settings (
  singleton boolean primary key default true constraint invoice_settings_single check (singleton),
  -- a cancellation later than this before the appointment is short-term
  short_notice interval not null default interval '24 hours'
    constraint invoice_short_notice_range check (short_notice between interval '0' and interval '14 days')
);
alter table app_private.invoice_settings enable row level security;
insert into app_private.invoice_settings default values;

create function app_hidden.short_notice() returns interval
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce((select s.short_notice from app_private.invoice_settings s), interval '24 hours')
$$;

create function app_public.invoice_short_notice_hours() returns integer
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select (extract(epoch from app_hidden.short_notice()) / 3600)::integer
$$;
comment on function app_public.invoice_short_notice_hours() is 'Hours before an appointment after which a cancellation is short-term.';
grant execute on function app_public.invoice_short_notice_hours() to sanad_user;

create function app_hidden.set_short_notice_hours(hours integer) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may change the short-term notice.' using errcode = '42501', hint = 'forbidden';
  end if;
  if hours is null or hours < 0 or hours > 336 then
    raise exception 'The notice must be between 0 and 336 hours.' using errcode = '22023', hint = 'notice_range';
  end if;
  update app_private.invoice_settings set short_notice = make_interval(hours => hours);
end;
$$;
grant execute on function app_hidden.set_short_notice_hours(integer) to sanad_user;

create table app_public.invoice_items (
  id uuid primary key default gen_random_uuid(),
  -- the person who bills: the interviewer or therapist
  user_id uuid references app_public.users (id) on delete set null,
  case_id uuid references app_public.cases (id) on delete set null,
  invoice_type text not null constraint invoice_type_known check (invoice_type in ('interview', 'therapy_session')),
  -- the appointment's start
  date timestamptz not null,
  month integer not null check (month between 1 and 12),
  year integer not null check (year between 2000 and 2200),
  has_taken_place boolean not null,
  canceled boolean not null,
  canceled_by_therapist boolean not null default false,
  canceled_short_term boolean not null default false,
  canceled_at timestamptz,
  -- the interview booking or therapy session billed: one item each
  source_id uuid not null unique,
  created_at timestamptz not null default now(),
  constraint invoice_items_held_or_canceled check (has_taken_place <> canceled)
);
create index invoice_items_period_idx on app_public.invoice_items (year, month, user_id);
comment on table app_public.invoice_items is
  'Billable appointments (spec §3 "Invoice item"): held or cancelled interviews and therapy sessions. Coordinators see all, others their own.';
alter table app_public.invoice_items enable row level security;
create policy select_own on app_public.invoice_items for select to sanad_user using (
  (select app_hidden.is_coordinator()) or user_id = (select app_public.current_user_id())
);
-- No write grant: items come from the triggers and app_public.record_therapy_session.
grant select on app_public.invoice_items to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.invoice_items
  for each row execute function app_hidden.tg_audit('case_id');

create function app_hidden.add_invoice_item(user_id uuid, case_id uuid, invoice_type text, at timestamptz,
                                            held boolean, canceled_at timestamptz, by_therapist boolean, source_id uuid)
  returns app_public.invoice_items
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  item app_public.invoice_items;
begin
  insert into app_public.invoice_items (user_id, case_id, invoice_type, date, month, year, has_taken_place, canceled,
                                        canceled_by_therapist, canceled_short_term, canceled_at, source_id)
  values (add_invoice_item.user_id, add_invoice_item.case_id, add_invoice_item.invoice_type, at,
          extract(month from at at time zone 'UTC')::integer, extract(year from at at time zone 'UTC')::integer,
          held, not held, not held and by_therapist,
          not held and add_invoice_item.canceled_at > at - app_hidden.short_notice(),
          case when not held then add_invoice_item.canceled_at end, add_invoice_item.source_id)
  on conflict on constraint invoice_items_source_id_key do nothing
  returning * into item;
  return item;
end;
$$;

-- Interviews: held when the interviewer marks the offer held; cancelled when a booking is.
create function app_hidden.tg_invoice_interview_held() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.has_taken_place and not old.has_taken_place then
    perform app_hidden.add_invoice_item(new.interviewer_id, b.case_id, 'interview', new.starts_at, true, null, false, b.id)
       from app_public.interview_bookings b where b.offer_id = new.id and not b.canceled;
  end if;
  return null;
end;
$$;
create trigger _500_invoice after update of has_taken_place on app_public.interview_offers
  for each row execute function app_hidden.tg_invoice_interview_held();

-- A cancellation by anyone but the patient counts as the therapist's (interviewer's) side.
create function app_hidden.tg_invoice_interview_canceled() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  offer app_public.interview_offers;
begin
  if new.canceled and not old.canceled then
    select * into offer from app_public.interview_offers o where o.id = new.offer_id;
    perform app_hidden.add_invoice_item(coalesce(new.interviewer_id, offer.interviewer_id), new.case_id, 'interview',
      offer.starts_at, false, coalesce(new.canceled_at, now()),
      app_public.current_user_id() is distinct from new.interviewee_id, new.id);
  end if;
  return null;
end;
$$;
create trigger _500_invoice after update of canceled on app_public.interview_bookings
  for each row execute function app_hidden.tg_invoice_interview_canceled();

-- Therapy sessions: there is no session entity; the case's therapist records each held or
-- cancelled session (docs/DECISIONS.md), and the record is its invoice item.
create function app_public.record_therapy_session(case_id uuid, session_at timestamptz, held boolean,
                                                  canceled_at timestamptz default null,
                                                  canceled_by_therapist boolean default false)
  returns app_public.invoice_items
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not exists (select 1 from app_public.case_members m
                  where m.case_id = record_therapy_session.case_id and m.user_id = app_public.current_user_id() and m.acts_as_therapist) then
    raise exception 'Only a therapist of the case may record its sessions.' using errcode = '42501', hint = 'forbidden';
  end if;
  if session_at is null or session_at > now() + interval '1 year' or session_at < now() - interval '2 years' then
    raise exception 'Give the session''s date and time (within the last two years).' using errcode = '22023', hint = 'session_date';
  end if;
  if held is null or (not held and canceled_at is null) then
    raise exception 'A cancelled session needs the time of cancellation.' using errcode = '22023', hint = 'canceled_at_required';
  end if;
  if held and session_at > now() then
    raise exception 'A session in the future cannot have taken place yet.' using errcode = '22023', hint = 'session_future';
  end if;
  return app_hidden.add_invoice_item(app_public.current_user_id(), record_therapy_session.case_id, 'therapy_session',
    session_at, held, canceled_at, coalesce(canceled_by_therapist, false), gen_random_uuid());
end;
$$;
comment on function app_public.record_therapy_session(uuid, timestamptz, boolean, timestamptz, boolean) is
  'A therapist of the case records a held or cancelled therapy session; it becomes an invoice item.';
grant execute on function app_public.record_therapy_session(uuid, timestamptz, boolean, timestamptz, boolean) to sanad_user;
