-- Why: clinical safety (issue 13, spec §1, §3 "Suicide call", §6 "coordinators are to be informed
-- about suicide calls", §7 SuicideCalls / InsertSuicideCall / UpdateSuicideCall). People in crisis
-- use the product: a risk answer nobody sees is the worst failure it can have. So:
--   * suicide-risk calls are case records staff write and never delete (audited);
--   * a stored answer that signals risk (PHQ-9 item 9, BDI-II item 9, SBQ-R flags, and later the
--     interview report's suicidality) raises a safety signal in the transaction of the answer,
--     exactly once per record, through ONE function: app_hidden.raise_safety_signal;
--   * every signal, every "inform coordinator" call and every follow-up date queues a start of
--     the `safety` process (workflows/safety.bpmn) in the same transaction; the process opens the
--     task for a named person and escalates to the coordinators by mail when it is overdue;
--   * "exclude patient" on a call runs one named function that ends treatment like a dropout.
-- See docs/DECISIONS.md "2026-11 Clinical safety".

-- Process starts may carry variables ------------------------------------------------------------

-- The start queue (0011) only knew a case and a key; safety starts name the record they are for.
alter table app_private.workflow_start_requests add column variables jsonb not null default '{}'::jsonb;

create function app_hidden.request_workflow_start(case_id uuid, definition_key text, business_key text, variables jsonb)
  returns void
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  insert into app_private.workflow_start_requests (case_id, definition_key, business_key, variables)
  values (request_workflow_start.case_id, request_workflow_start.definition_key, request_workflow_start.business_key,
          coalesce(request_workflow_start.variables, '{}'::jsonb));
$$;
comment on function app_hidden.request_workflow_start(uuid, text, text, jsonb) is
  'Queues the start of a process for a case with start variables (plain JSON values or Camunda-typed), in the transaction of the change that calls for it.';

-- Each safety process is started once per record and purpose, whatever is saved again later.
create table app_private.safety_process_starts (
  purpose text not null,
  record_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (purpose, record_id)
);
alter table app_private.safety_process_starts enable row level security;

-- Queues the safety process for (purpose, record) unless it was queued before; true when queued now.
create function app_hidden.start_safety_process(case_id uuid, purpose text, record_id uuid, variables jsonb)
  returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  insert into app_private.safety_process_starts (purpose, record_id)
  values (start_safety_process.purpose, start_safety_process.record_id)
  on conflict do nothing;
  if not found then
    return false;
  end if;
  perform app_hidden.request_workflow_start(start_safety_process.case_id, 'safety', null,
    coalesce(start_safety_process.variables, '{}'::jsonb) || jsonb_build_object('kind', start_safety_process.purpose));
  return true;
end;
$$;

-- Who answers a risk signal: the case's therapists; before treatment its interviewers; else the
-- coordinators. A candidate group of the workflow (0011 app_hidden.workflow_in_group).
create function app_hidden.safety_responsible_group(case_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case
    when exists (select 1 from app_public.case_members m where m.case_id = safety_responsible_group.case_id and m.acts_as_therapist) then 'therapists'
    when exists (select 1 from app_public.case_members m where m.case_id = safety_responsible_group.case_id and m.acts_as_interviewer) then 'interviewers'
    else 'coordinators'
  end
$$;

-- Safety signals ---------------------------------------------------------------------------------

create table app_public.safety_signals (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- where the signal came from: a questionnaire collection (phq9, bdi2, sbqr) or interview_report
  source text not null constraint safety_signals_source_format check (source ~ '^[a-z][a-z0-9_]{0,63}$'),
  -- the record that signalled; no foreign key on purpose: the signal outlives a deleted answer
  source_record_id uuid not null,
  -- what signalled, for the person who answers it (item values, flags, time of measurement)
  details jsonb not null default '{}'::jsonb constraint safety_signals_details_object check (jsonb_typeof(details) = 'object'),
  -- the candidate group the task went to (therapists, interviewers or coordinators)
  responsible_group text not null,
  raised_at timestamptz not null default now(),
  -- set when the safety task was completed, by whom
  resolved_at timestamptz,
  resolved_by uuid references app_public.users (id) on delete set null,
  constraint safety_signals_once_per_record unique (source, source_record_id)
);
comment on table app_public.safety_signals is
  'A stored answer that signalled suicide risk (PHQ-9 item 9, BDI-II item 9, SBQ-R, interview report): one per record, open until its safety task is completed.';
comment on column app_public.safety_signals.source is 'phq9, bdi2, sbqr or interview_report.';
comment on column app_public.safety_signals.details is 'What signalled: flags, item values, time of measurement.';
create index safety_signals_open_idx on app_public.safety_signals (case_id) where resolved_at is null;
create index safety_signals_case_idx on app_public.safety_signals (case_id, raised_at desc);

create trigger _900_audit after insert or update or delete on app_public.safety_signals
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.safety_signals enable row level security;
-- Care staff of the case and coordinators; never patients (it is about the patient).
create policy select_staff on app_public.safety_signals for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_staff_case_ids())
);
-- Only server routines write signals (no insert, update or delete grant).
grant select on app_public.safety_signals to sanad_user;

-- THE way a risk signal enters the system. Any source calls it in the transaction of the record
-- that signalled: it stores the signal once per (source, record) and queues the safety process,
-- which opens one task for the responsible group, mails them, and escalates to coordinators when
-- the task is overdue. Returns the new signal's id, or null when the record had signalled before.
create function app_hidden.raise_safety_signal(case_id uuid, source text, source_record_id uuid, details jsonb)
  returns uuid
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  signal_id uuid;
  group_name text := app_hidden.safety_responsible_group(raise_safety_signal.case_id);
begin
  insert into app_public.safety_signals (case_id, source, source_record_id, details, responsible_group)
  values (raise_safety_signal.case_id, raise_safety_signal.source, raise_safety_signal.source_record_id,
          coalesce(raise_safety_signal.details, '{}'::jsonb), group_name)
  on conflict on constraint safety_signals_once_per_record do nothing
  returning id into signal_id;
  if signal_id is null then
    return null;
  end if;
  perform app_hidden.start_safety_process(raise_safety_signal.case_id, 'signal', signal_id,
    jsonb_build_object('signalId', signal_id, 'signalSource', raise_safety_signal.source, 'safetyGroup', group_name));
  return signal_id;
end;
$$;
comment on function app_hidden.raise_safety_signal(uuid, text, uuid, jsonb) is
  'Records a risk signal of a case once per (source, record) and queues its safety task; null when that record had signalled before.';

-- Questionnaires: the server computes the flags (src/domain/instruments); the arguments name the
-- collection and its safety flag codes. Runs for every stored answer, complete or not.
create function app_hidden.tg_questionnaire_safety_signal() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  safety_flags text[] := tg_argv[1:]::text[];
  raised text[];
  answer jsonb := to_jsonb(new);
begin
  select array_agg(f order by f) into raised from unnest(coalesce(new.flags, '{}')) f where f = any (safety_flags);
  if raised is not null then
    perform app_hidden.raise_safety_signal(new.case_id, tg_argv[0], new.id,
      jsonb_strip_nulls(jsonb_build_object(
        'flags', to_jsonb(raised),
        'timeOfMeasurement', answer -> 'time_of_measurement',
        'item9', answer -> 'item9',
        'total', answer -> 'total')));
  end if;
  return null;
end;
$$;

create trigger _500_safety_signal after insert or update of flags on app_public.phq9
  for each row execute function app_hidden.tg_questionnaire_safety_signal('phq9', 'suicide_item');
create trigger _500_safety_signal after insert or update of flags on app_public.bdi2
  for each row execute function app_hidden.tg_questionnaire_safety_signal('bdi2', 'suicide_item');
create trigger _500_safety_signal after insert or update of flags on app_public.sbqr
  for each row execute function app_hidden.tg_questionnaire_safety_signal('sbqr', 'suicide_risk_cutoff', 'suicide_item1', 'suicide_item4');

-- Case lists: how many signals of the case are still open (staff and coordinators; null for others).
create function app_public.cases_open_safety_signals(c app_public.cases) returns integer
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when app_hidden.is_coordinator() or c.id in (select app_hidden.my_staff_case_ids())
    then (select count(*)::integer from app_public.safety_signals s where s.case_id = c.id and s.resolved_at is null)
  end
$$;
comment on function app_public.cases_open_safety_signals(app_public.cases) is
  'How many risk signals of this case wait for their safety task (staff of the case and coordinators).';
grant execute on function app_public.cases_open_safety_signals(app_public.cases) to sanad_user;

-- Suicide-risk calls -------------------------------------------------------------------------------

create table app_public.case_suicide_calls (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  call_date timestamptz not null default now(),
  -- the person who made the call: always the person who recorded it
  user_id_caller uuid references app_public.users (id) on delete set null,
  patient_reached boolean not null default false,
  risk_of_suicide text constraint case_suicide_calls_risk_known check (risk_of_suicide in ('none', 'low', 'moderate', 'high')),
  -- the caller's scored assessment, e.g. the points of the MINI suicidality module (0–33)
  suicide_score integer constraint case_suicide_calls_score_range check (suicide_score between 0 and 33),
  detailed_description text constraint case_suicide_calls_description_length check (length(detailed_description) <= 10000),
  follow_up_contact boolean not null default false,
  follow_up_description text constraint case_suicide_calls_follow_up_description_length check (length(follow_up_description) <= 4000),
  follow_up_date timestamptz,
  inform_coordinator boolean not null default false,
  user_id_coordinator uuid references app_public.users (id) on delete set null,
  coordinator_contact_date timestamptz,
  exclude_patient boolean not null default false,
  exclusion_reason text constraint case_suicide_calls_exclusion_reason_length check (length(exclusion_reason) <= 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint case_suicide_calls_follow_up_needs_contact check (follow_up_date is null or follow_up_contact),
  constraint case_suicide_calls_contact_needs_coordinator check (coordinator_contact_date is null or user_id_coordinator is not null),
  constraint case_suicide_calls_exclusion_needs_reason check (not exclude_patient or length(btrim(exclusion_reason)) > 0)
);
comment on table app_public.case_suicide_calls is
  'A suicide-risk call with a patient (spec §3 CaseSuicideCall). Case staff and coordinators record them; they are never deleted and every change is in the audit log.';
comment on column app_public.case_suicide_calls.risk_of_suicide is 'none, low, moderate or high.';
comment on column app_public.case_suicide_calls.suicide_score is 'The caller''s scored assessment, 0–33 (MINI suicidality points).';
comment on column app_public.case_suicide_calls.inform_coordinator is
  'When set, every coordinator gets a mail and one review task opens; the coordinator who completes it is stored with the contact date.';
comment on column app_public.case_suicide_calls.exclude_patient is
  'When set (with exclusion_reason), the patient is excluded and the treatment tasks end as for a dropout.';
create index case_suicide_calls_case_idx on app_public.case_suicide_calls (case_id, call_date);
create index case_suicide_calls_waiting_idx on app_public.case_suicide_calls (created_at)
  where inform_coordinator and coordinator_contact_date is null;

create trigger _100_set_updated_at before update on app_public.case_suicide_calls
  for each row execute function app_hidden.tg_set_updated_at();

-- The rules a person can act on, checked before the constraints so the message says what to do.
create function app_hidden.tg_case_suicide_calls_check() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'INSERT' then
    new.user_id_caller := coalesce(app_public.current_user_id(), new.user_id_caller);
  else
    new.user_id_caller := old.user_id_caller;
    new.case_id := old.case_id;
    if old.inform_coordinator and not new.inform_coordinator then
      raise exception 'The coordinators were already informed about this call; that cannot be taken back'
        using errcode = 'P0001', hint = 'COORDINATOR_ALREADY_INFORMED';
    end if;
    if old.exclude_patient and not new.exclude_patient then
      raise exception 'The patient was already excluded by this call; that cannot be taken back here'
        using errcode = 'P0001', hint = 'PATIENT_ALREADY_EXCLUDED';
    end if;
  end if;
  if new.risk_of_suicide is not null and new.risk_of_suicide not in ('none', 'low', 'moderate', 'high') then
    raise exception 'Choose the risk of suicide from none, low, moderate or high'
      using errcode = 'P0001', hint = 'UNKNOWN_RISK_VALUE';
  end if;
  if new.follow_up_date is not null and not new.follow_up_contact then
    raise exception 'A follow-up date needs a follow-up contact: tick "follow-up contact" or clear the date'
      using errcode = 'P0001', hint = 'FOLLOW_UP_DATE_NEEDS_CONTACT';
  end if;
  if new.coordinator_contact_date is not null and new.user_id_coordinator is null then
    raise exception 'A coordinator contact date needs the coordinator who made the contact'
      using errcode = 'P0001', hint = 'CONTACT_DATE_NEEDS_COORDINATOR';
  end if;
  if new.user_id_coordinator is not null and (tg_op = 'INSERT' or new.user_id_coordinator is distinct from old.user_id_coordinator)
     and not exists (select 1 from app_public.users u where u.id = new.user_id_coordinator and u.is_coordinator_account) then
    raise exception 'The coordinator of a call must be a coordinator account'
      using errcode = 'P0001', hint = 'NOT_A_COORDINATOR';
  end if;
  if new.exclude_patient and length(btrim(coalesce(new.exclusion_reason, ''))) = 0 then
    raise exception 'Excluding the patient needs a reason'
      using errcode = 'P0001', hint = 'EXCLUSION_NEEDS_REASON';
  end if;
  return new;
end;
$$;
create trigger _200_check before insert or update on app_public.case_suicide_calls
  for each row execute function app_hidden.tg_case_suicide_calls_check();

-- Excludes the patient of a case for a clinical reason and ends the treatment tasks the way a
-- dropout does (the trial's `dropout` message; post and follow-ups stay when the case asks for
-- post measurements after a dropout). ONE function, so the exclusion management of the trial
-- can call or replace it in one place.
create function app_hidden.exclude_patient_for_safety(case_id uuid, reason text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  ask_for_post boolean;
begin
  update app_public.users u set excluded = true
    from app_public.case_members m
   where m.case_id = exclude_patient_for_safety.case_id and m.acts_as_patient and u.id = m.user_id;
  update app_public.cases c
     set is_dropout = true,
         dropout_reason = coalesce(c.dropout_reason, left(exclude_patient_for_safety.reason, 2000)),
         reason_for_exclusion = left(exclude_patient_for_safety.reason, 2000)
   where c.id = exclude_patient_for_safety.case_id
  returning c.ask_for_post_if_dropped_out into ask_for_post;
  perform app_hidden.notify_workflow(exclude_patient_for_safety.case_id, 'dropout',
    jsonb_build_object('askForPostIfDroppedOut', jsonb_build_object('value', coalesce(ask_for_post, false), 'type', 'Boolean'),
                       'excluded', jsonb_build_object('value', true, 'type', 'Boolean')));
end;
$$;
comment on function app_hidden.exclude_patient_for_safety(uuid, text) is
  'Excludes the case''s patient with a reason and ends treatment as a dropout does (askForPostIfDroppedOut of the case).';

-- What a saved call sets in motion: once per call each (start_safety_process guards it).
create function app_hidden.tg_case_suicide_calls_effects() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.inform_coordinator then
    perform app_hidden.start_safety_process(new.case_id, 'review', new.id, jsonb_build_object('callId', new.id));
  end if;
  if new.follow_up_contact and new.follow_up_date is not null and new.user_id_caller is not null then
    perform app_hidden.start_safety_process(new.case_id, 'followUp', new.id, jsonb_build_object(
      'callId', new.id, 'callerId', new.user_id_caller,
      'followUpDate', to_char(new.follow_up_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')));
  end if;
  if new.exclude_patient and (tg_op = 'INSERT' or not old.exclude_patient) then
    perform app_hidden.exclude_patient_for_safety(new.case_id, new.exclusion_reason);
  end if;
  return null;
end;
$$;
create trigger _500_effects after insert or update on app_public.case_suicide_calls
  for each row execute function app_hidden.tg_case_suicide_calls_effects();
create trigger _900_audit after insert or update or delete on app_public.case_suicide_calls
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.case_suicide_calls enable row level security;
-- Care staff of the case and coordinators; patients never (my_staff_case_ids has no patients).
create policy select_staff on app_public.case_suicide_calls for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_staff_case_ids())
);
create policy insert_staff on app_public.case_suicide_calls for insert to sanad_user with check (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_staff_case_ids())
);
create policy update_staff on app_public.case_suicide_calls for update to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_staff_case_ids())
);
-- No delete grant: a call record is never deleted.
grant select on app_public.case_suicide_calls to sanad_user;
grant insert (case_id, call_date, patient_reached, risk_of_suicide, suicide_score, detailed_description,
  follow_up_contact, follow_up_description, follow_up_date, inform_coordinator, exclude_patient, exclusion_reason)
  on app_public.case_suicide_calls to sanad_user;
grant update (call_date, patient_reached, risk_of_suicide, suicide_score, detailed_description,
  follow_up_contact, follow_up_description, follow_up_date, inform_coordinator, user_id_coordinator,
  coordinator_contact_date, exclude_patient, exclusion_reason)
  on app_public.case_suicide_calls to sanad_user;

-- Completed safety tasks write back ----------------------------------------------------------------

-- The review task's completer is the coordinator who contacted; a signal's task resolves it.
create function app_hidden.tg_safety_task_completed() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  vars jsonb;
begin
  select i.variables into vars from app_public.workflow_instances i where i.id = new.process_instance_id;
  if new.task_definition_key = 'reviewSuicideCall' then
    update app_public.case_suicide_calls c
       set user_id_coordinator = coalesce(c.user_id_coordinator, new.completed_by),
           coordinator_contact_date = coalesce(c.coordinator_contact_date, new.end_time)
     where c.id = (vars -> 'callId' ->> 'value')::uuid and new.completed_by is not null;
  elsif new.task_definition_key = 'safetySignalTask' then
    update app_public.safety_signals s
       set resolved_at = new.end_time, resolved_by = new.completed_by
     where s.id = (vars -> 'signalId' ->> 'value')::uuid and s.resolved_at is null;
  end if;
  return null;
end;
$$;
create trigger _500_safety_task_completed after update of end_time on app_public.workflow_tasks
  for each row when (old.end_time is null and new.end_time is not null and new.delete_reason = 'completed'
                     and new.task_definition_key in ('reviewSuicideCall', 'safetySignalTask'))
  execute function app_hidden.tg_safety_task_completed();

-- Safety tasks first on the task lists -------------------------------------------------------------

-- Redefines 0014's two task lists: tasks of priority 100 and more (safety tasks) come before all
-- others whatever the chosen order; otherwise unchanged.
create or replace function app_public.open_workflow_tasks(
  due_before timestamptz default null,
  overdue boolean default false,
  group_name text default null,
  case_search text default null,
  sort app_public.workflow_task_sort default 'due'
) returns setof app_public.workflow_tasks
  language sql stable
as $$
  select t.* from app_public.workflow_tasks t
   where t.end_time is null
     and (open_workflow_tasks.due_before is null or t.due < open_workflow_tasks.due_before)
     and (not coalesce(open_workflow_tasks.overdue, false) or t.due < pg_catalog.now())
     and (open_workflow_tasks.group_name is null or open_workflow_tasks.group_name = any (t.candidate_groups))
     and (app_hidden.normalized_case_search(open_workflow_tasks.case_search) is null
          or pg_catalog.strpos(app_hidden.task_case_short_id(t.case_id), app_hidden.normalized_case_search(open_workflow_tasks.case_search)) > 0
          or pg_catalog.starts_with(t.case_id::text, app_hidden.normalized_case_search(open_workflow_tasks.case_search)))
   order by
     (t.priority >= 100) desc,
     case when open_workflow_tasks.sort = 'priority' then t.priority end desc nulls last,
     case when open_workflow_tasks.sort = 'created' then t.created end desc nulls last,
     t.due asc nulls last,
     t.created asc,
     t.id
$$;

create or replace function app_public.my_due_tasks() returns setof app_public.workflow_tasks
  language sql stable
as $$
  select t.* from app_public.workflow_tasks t
   where t.end_time is null
     and (t.assignee = (select app_public.current_user_id())::text
          or ('coordinators' = any (t.candidate_groups) and (select app_hidden.is_coordinator()))
          or (t.case_id in (select app_hidden.my_case_ids())
              and exists (select 1 from pg_catalog.unnest(t.candidate_groups) g
                           where g <> 'coordinators' and app_hidden.workflow_in_group(t.case_id, g))))
   order by (t.priority >= 100) desc, t.due asc nulls last, t.created asc, t.id
$$;

-- The patient side ------------------------------------------------------------------------------------

-- The trial's crisis contacts (crisis line, emergency number, clinic) are content templates of
-- type MESSAGE with the code crisis_help, one per locale, edited by coordinators. Any signed-in
-- person may read them: the patient needs them at once. Falls back to en, de, ar in that order.
create function app_public.crisis_help(language_code text) returns app_public.content_templates
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select t.* from app_public.content_templates t
   where t.type = 'MESSAGE' and t.code = 'crisis_help' and t.treatment_code is null
     and app_public.current_user_id() is not null
   order by (t.language_code = crisis_help.language_code) desc,
            array_position(array['en', 'de', 'ar'], t.language_code::text)
   limit 1
$$;
comment on function app_public.crisis_help(text) is
  'The trial''s crisis-help contacts in a language (content template MESSAGE "crisis_help"); another language when that one is missing; null when none is configured.';
grant execute on function app_public.crisis_help(text) to sanad_user;

-- The locales without crisis contacts, for the coordinators' notice.
create function app_public.crisis_help_missing_locales() returns text[]
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when app_hidden.is_staff() then coalesce(array_agg(l order by l), '{}') end
    from unnest(array['ar', 'de', 'en']) l
   where not exists (select 1 from app_public.content_templates t
                      where t.type = 'MESSAGE' and t.code = 'crisis_help' and t.language_code = l)
$$;
comment on function app_public.crisis_help_missing_locales() is
  'Locales in which no crisis-help contacts are configured yet (staff only).';
grant execute on function app_public.crisis_help_missing_locales() to sanad_user;

-- The patient of a case (or its staff, or a coordinator) gives the emergency contact; patients
-- cannot update cases otherwise.
create function app_public.set_emergency_contact(case_id uuid, emergency_contact text) returns app_public.cases
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  saved app_public.cases;
begin
  if not (app_hidden.is_coordinator() or app_hidden.is_member(set_emergency_contact.case_id)) then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  if length(btrim(coalesce(set_emergency_contact.emergency_contact, ''))) = 0 then
    raise exception 'Give a name and a phone number or another way to reach the person'
      using errcode = 'P0001', hint = 'EMERGENCY_CONTACT_EMPTY';
  end if;
  if length(set_emergency_contact.emergency_contact) > 2000 then
    raise exception 'The emergency contact is too long (at most 2000 characters)'
      using errcode = 'P0001', hint = 'EMERGENCY_CONTACT_TOO_LONG';
  end if;
  update app_public.cases c set emergency_contact = btrim(set_emergency_contact.emergency_contact)
   where c.id = set_emergency_contact.case_id
  returning c.* into saved;
  return saved;
end;
$$;
comment on function app_public.set_emergency_contact(uuid, text) is
  'Stores the emergency contact of a case: its patient, its staff or a coordinator.';
grant execute on function app_public.set_emergency_contact(uuid, text) to sanad_user;

-- The anti-suicide contract (spec §3 Full account): the patient confirms it, or staff of the case
-- record it on the patient's behalf; the time is stored on the patient's account, kept at its
-- first confirmation.
create function app_public.confirm_anti_suicide_contract(case_id uuid) returns timestamptz
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  patient_id uuid;
  confirmed timestamptz;
begin
  select m.user_id into patient_id from app_public.case_members m
   where m.case_id = confirm_anti_suicide_contract.case_id and m.acts_as_patient;
  if patient_id is null then
    raise exception 'This case has no patient' using errcode = 'P0001', hint = 'NO_PATIENT';
  end if;
  if not (patient_id = app_public.current_user_id() or app_hidden.is_coordinator()
          or confirm_anti_suicide_contract.case_id in (select app_hidden.my_staff_case_ids())) then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  update app_public.users u set anti_suicide_contract_at = coalesce(u.anti_suicide_contract_at, now())
   where u.id = patient_id
  returning u.anti_suicide_contract_at into confirmed;
  return confirmed;
end;
$$;
comment on function app_public.confirm_anti_suicide_contract(uuid) is
  'The patient of the case confirms the anti-suicide contract (or staff record it); returns its time.';
grant execute on function app_public.confirm_anti_suicide_contract(uuid) to sanad_user;

-- When the patient of a case agreed to the anti-suicide contract (members of the case).
create function app_public.cases_anti_suicide_contract_at(c app_public.cases) returns timestamptz
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select u.anti_suicide_contract_at from app_public.case_members m join app_public.users u on u.id = m.user_id
   where m.case_id = c.id and m.acts_as_patient
     and (app_hidden.is_coordinator() or app_hidden.is_member(c.id))
$$;
comment on function app_public.cases_anti_suicide_contract_at(app_public.cases) is
  'When the patient of this case agreed to the anti-suicide contract.';
grant execute on function app_public.cases_anti_suicide_contract_at(app_public.cases) to sanad_user;

-- The coordinators' overview --------------------------------------------------------------------------

-- Counts of the safety overview: open signals, overdue safety tasks, calls waiting for the
-- coordinator's contact. Lists come from allSafetySignals, openWorkflowTasks and allCaseSuicideCalls.
create function app_public.safety_overview_calls_waiting() returns setof app_public.case_suicide_calls
  language sql stable
  set search_path = pg_catalog
as $$
  select c.* from app_public.case_suicide_calls c
   where c.inform_coordinator and c.coordinator_contact_date is null
   order by c.call_date
$$;
comment on function app_public.safety_overview_calls_waiting() is
  'Calls that asked to inform the coordinators and have no coordinator contact yet, oldest first.';
grant execute on function app_public.safety_overview_calls_waiting() to sanad_user;
