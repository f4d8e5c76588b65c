-- Why: issue 32 item 1, the engagement radar. Attrition decides whether an online trial answers
-- its question, and nobody saw who was drifting away. Per case one maintained row holds the
-- patient's last activity, what they completed, and the last message from and to them; triggers
-- keep it current in the transaction of the change, so the radar reads one narrow row per case
-- instead of scanning messages, worksheets and questionnaires (30,000 participants, bench).
-- The state (active / inactive / stalled / lost) is computed from the last activity and the
-- configured thresholds, never typed. A sweep records state changes and opens one outreach task
-- per change through the workflow (workflows/engagement.bpmn). See docs/decisions/engagement-radar.md.

-- Thresholds ------------------------------------------------------------------------------------

create table app_public.engagement_settings (
  id boolean primary key default true check (id),
  inactive_days integer not null default 3,
  stalled_days integer not null default 14,
  lost_days integer not null default 21,
  updated_at timestamptz not null default now(),
  constraint engagement_thresholds_ordered check (inactive_days >= 1 and inactive_days < stalled_days and stalled_days < lost_days and lost_days <= 365)
);
comment on table app_public.engagement_settings is 'The engagement radar''s thresholds: days without activity before a participant counts as inactive, stalled or lost.';
insert into app_public.engagement_settings default values;
alter table app_public.engagement_settings enable row level security;
create policy engagement_settings_read on app_public.engagement_settings for select to sanad_user using (true);
create policy engagement_settings_coordinators on app_public.engagement_settings for update to sanad_user
  using ((select app_hidden.is_coordinator())) with check ((select app_hidden.is_coordinator()));
grant select on app_public.engagement_settings to sanad_user;
grant update (inactive_days, stalled_days, lost_days) on app_public.engagement_settings to sanad_user;
create trigger _100_timestamps before update on app_public.engagement_settings
  for each row execute function app_hidden.tg_set_updated_at();

-- The state, from idle time and thresholds: the one rule, used by the sweep and the radar -------

create function app_hidden.engagement_state_for(idle interval, inactive_days integer, stalled_days integer, lost_days integer)
  returns text
  language sql immutable parallel safe
  set search_path = pg_catalog
as $$
  select case
    when idle >= make_interval(days => lost_days) then 'lost'
    when idle >= make_interval(days => stalled_days) then 'stalled'
    when idle >= make_interval(days => inactive_days) then 'inactive'
    else 'active'
  end
$$;
comment on function app_hidden.engagement_state_for(interval, integer, integer, integer) is
  'Engagement state for a time without activity: lost, stalled, inactive (at or beyond each threshold in days) or active.';
grant execute on function app_hidden.engagement_state_for(interval, integer, integer, integer) to sanad_user;

-- The maintained row per case -------------------------------------------------------------------

create table app_public.case_engagement (
  case_id uuid primary key references app_public.cases(id) on delete cascade,
  last_activity_at timestamptz not null,
  last_from_patient_at timestamptz,
  last_to_patient_at timestamptz,
  waiting_since timestamptz,
  questionnaires_done integer not null default 0,
  worksheets_done integer not null default 0,
  state text not null default 'active',
  state_since timestamptz not null default now(),
  constraint engagement_state_known check (state in ('active', 'inactive', 'stalled', 'lost'))
);
comment on table app_public.case_engagement is 'A participant''s engagement, kept current by the database: last activity, completed questionnaires and worksheets, last message from and to the patient, and since when a patient message waits for an answer.';
comment on column app_public.case_engagement.state is 'The last state the sweep recorded (a change opens an outreach task); the radar computes the current state from last_activity_at.';
create index case_engagement_by_activity on app_public.case_engagement (last_activity_at, case_id);
alter table app_public.case_engagement enable row level security;
-- Coordinators see every case; therapists and supporters their own; nobody else (patients included).
create policy case_engagement_read on app_public.case_engagement for select to sanad_user using (
  (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_case_ids_as('therapist'))
  or case_id in (select app_hidden.my_case_ids_as('supporter'))
);
grant select on app_public.case_engagement to sanad_user;

-- Is this user the patient of this case?
create function app_hidden.engagement_is_patient(case_id uuid, user_id uuid)
  returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.case_members m
                  where m.case_id = engagement_is_patient.case_id and m.user_id = engagement_is_patient.user_id and m.acts_as_patient)
$$;

-- One entry point for every trigger: what happened in the case, and when.
create function app_hidden.engagement_note(case_id uuid, at timestamptz, what text)
  returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  insert into app_public.case_engagement (case_id, last_activity_at)
  values (engagement_note.case_id, coalesce((select c.created_at from app_public.cases c where c.id = engagement_note.case_id), at))
  on conflict do nothing;
  update app_public.case_engagement e set
    last_activity_at = case when what in ('from_patient', 'worksheet', 'questionnaire', 'task') then greatest(e.last_activity_at, at) else e.last_activity_at end,
    last_from_patient_at = case when what = 'from_patient' then greatest(e.last_from_patient_at, at) else e.last_from_patient_at end,
    waiting_since = case when what = 'from_patient' then coalesce(e.waiting_since, at)
                         when what = 'to_patient' then null else e.waiting_since end,
    last_to_patient_at = case when what = 'to_patient' then greatest(e.last_to_patient_at, at) else e.last_to_patient_at end,
    worksheets_done = e.worksheets_done + (what = 'worksheet')::int,
    questionnaires_done = e.questionnaires_done + (what = 'questionnaire')::int
  where e.case_id = engagement_note.case_id;
end;
$$;

create function app_hidden.tg_engagement_case() returns trigger
  language plpgsql security definer set search_path = pg_catalog
as $$
begin
  insert into app_public.case_engagement (case_id, last_activity_at, state_since) values (new.id, new.created_at, new.created_at)
  on conflict do nothing;
  return null;
end;
$$;
create trigger _900_engagement after insert on app_public.cases
  for each row execute function app_hidden.tg_engagement_case();

-- A sent message: from the patient (activity, starts the wait) or to the patients (ends the wait).
create function app_hidden.tg_engagement_message() returns trigger
  language plpgsql security definer set search_path = pg_catalog
as $$
begin
  if new.sent_at is null or (tg_op = 'UPDATE' and old.sent_at is not null) then return null; end if;
  if new.sender_id is not null and app_hidden.engagement_is_patient(new.case_id, new.sender_id) then
    perform app_hidden.engagement_note(new.case_id, new.sent_at, 'from_patient');
  elsif new.to_patients then
    perform app_hidden.engagement_note(new.case_id, new.sent_at, 'to_patient');
  end if;
  return null;
end;
$$;
create trigger _900_engagement after insert or update of sent_at on app_public.case_messages
  for each row execute function app_hidden.tg_engagement_message();

-- A worksheet entry sent by the patient.
create function app_hidden.tg_engagement_worksheet() returns trigger
  language plpgsql security definer set search_path = pg_catalog
as $$
begin
  if new.published_at is null or (tg_op = 'UPDATE' and old.published_at is not null) then return null; end if;
  perform app_hidden.engagement_note(new.case_id, new.published_at, 'worksheet');
  return null;
end;
$$;
do $$
declare t text;
begin
  foreach t in array array['cbt_activities', 'cbt_reframings', 'cbt_thoughts', 'ipt_conflicts', 'ipt_relationships', 'ipt_situations'] loop
    execute format('create trigger _900_engagement after insert or update of published_at on app_public.%I
                    for each row execute function app_hidden.tg_engagement_worksheet()', t);
  end loop;
end;
$$;

-- A completed time of measurement (its questionnaires are done).
create function app_hidden.tg_engagement_measurement() returns trigger
  language plpgsql security definer set search_path = pg_catalog
as $$
begin
  perform app_hidden.engagement_note(new.case_id, new.completed_at, 'questionnaire');
  return null;
end;
$$;
create trigger _900_engagement after insert on app_private.measurement_completions
  for each row execute function app_hidden.tg_engagement_measurement();

-- A workflow task the patient completed (questionnaires, booking, worksheets, sessions).
create function app_hidden.tg_engagement_task() returns trigger
  language plpgsql security definer set search_path = pg_catalog
as $$
begin
  if new.end_time is not null and old.end_time is null and new.completed_by is not null
     and app_hidden.engagement_is_patient(new.case_id, new.completed_by) then
    perform app_hidden.engagement_note(new.case_id, new.end_time, 'task');
  end if;
  return null;
end;
$$;
create trigger _900_engagement after update of end_time on app_public.workflow_tasks
  for each row execute function app_hidden.tg_engagement_task();

-- Open patient tasks past due count as overdue; this index finds them per case.
create index workflow_tasks_open_patient_due on app_public.workflow_tasks (case_id, due)
  where end_time is null and 'patients' = any (candidate_groups);

-- Existing cases, from the data they hold.
insert into app_public.case_engagement (case_id, last_activity_at, last_from_patient_at, last_to_patient_at, questionnaires_done, worksheets_done, state_since)
select c.id,
       greatest(c.created_at, fp.at, mc.at, t.at),
       fp.at, tp.at,
       coalesce(mc.n, 0), 0, now()
  from app_public.cases c
  left join lateral (select max(m.sent_at) as at from app_public.case_messages m
                      where m.case_id = c.id and m.sent_at is not null and app_hidden.engagement_is_patient(c.id, m.sender_id)) fp on true
  left join lateral (select max(m.sent_at) as at from app_public.case_messages m
                      where m.case_id = c.id and m.sent_at is not null and m.to_patients) tp on true
  left join lateral (select max(x.completed_at) as at, count(*)::int as n from app_private.measurement_completions x where x.case_id = c.id) mc on true
  left join lateral (select max(w.end_time) as at from app_public.workflow_tasks w
                      where w.case_id = c.id and w.end_time is not null and app_hidden.engagement_is_patient(c.id, w.completed_by)) t on true;

-- Who is followed: cases with a patient, not dropped out, not finished, rejected or withdrawn.
create function app_hidden.engagement_followed(case_id uuid)
  returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (
    select 1 from app_public.cases c
     where c.id = engagement_followed.case_id and not c.is_dropout and c.stage not in ('finished', 'rejected')
       and exists (select 1 from app_public.case_members m where m.case_id = c.id and m.acts_as_patient)
       and not exists (select 1 from app_public.case_withdrawals w where w.case_id = c.id))
$$;

-- The sweep: records every state change and opens one outreach task per change to a worse state --

create function app_hidden.engagement_sweep_at(at timestamptz)
  returns integer
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  s app_public.engagement_settings;
  changed record;
  opened integer := 0;
begin
  select * into s from app_public.engagement_settings;
  -- One sweep at a time, so two processes never open the same task twice.
  perform pg_advisory_xact_lock(hashtext('sanad engagement sweep'));
  for changed in
    update app_public.case_engagement e
       set state = app_hidden.engagement_state_for(at - e.last_activity_at, s.inactive_days, s.stalled_days, s.lost_days),
           state_since = at
     where e.state is distinct from app_hidden.engagement_state_for(at - e.last_activity_at, s.inactive_days, s.stalled_days, s.lost_days)
       and app_hidden.engagement_followed(e.case_id)
    returning e.case_id, e.state
  loop
    if changed.state <> 'active' then
      perform app_hidden.request_workflow_start(changed.case_id, 'engagement', null, jsonb_build_object(
        'engagementState', changed.state,
        'outreachGroup', case
          when exists (select 1 from app_public.case_members m where m.case_id = changed.case_id and m.acts_as_supporter) then 'supporters'
          when exists (select 1 from app_public.case_members m where m.case_id = changed.case_id and m.acts_as_therapist) then 'therapists'
          else 'coordinators' end));
      opened := opened + 1;
    end if;
  end loop;
  return opened;
end;
$$;
comment on function app_hidden.engagement_sweep_at(timestamptz) is
  'Records each followed case''s engagement state as of the given time; each change to inactive, stalled or lost queues one outreach process. Returns how many it queued.';

-- The background job runs as the request role: it passes no time and no case, so anyone may run it.
create function app_hidden.engagement_sweep()
  returns integer
  language sql volatile security definer
  set search_path = pg_catalog
as $$ select app_hidden.engagement_sweep_at(pg_catalog.now()) $$;
grant execute on function app_hidden.engagement_sweep() to sanad_user, sanad_anonymous;

-- The radar list ------------------------------------------------------------------------------------

-- Only coordinator, therapist and supporter accounts open the radar.
create function app_hidden.engagement_may_read()
  returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce((select u.is_coordinator_account or u.is_therapist_account or u.is_supporter_account
                     from app_public.users u where u.id = app_public.current_user_id()), false)
$$;
grant execute on function app_hidden.engagement_may_read() to sanad_user;

-- A page of the radar as the request role (RLS scopes the rows), highest risk first: the longest
-- without activity. The state follows the idle time, so this order is also the order of states.
create function app_hidden.engagement_radar(page_size integer, page_offset integer)
  returns table (case_id uuid, short_id text, patient_alias text, state text, last_activity_at timestamptz, questionnaires_done integer,
                 worksheets_done integer, questionnaires_overdue integer, worksheets_overdue integer,
                 last_from_patient_at timestamptz, last_to_patient_at timestamptz, waiting_since timestamptz)
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare s app_public.engagement_settings;
begin
  if not app_hidden.engagement_may_read() then
    raise exception 'Only coordinators, therapists and supporters see the engagement radar.' using errcode = '42501', hint = 'forbidden';
  end if;
  select * into s from app_public.engagement_settings;
  return query
  select e.case_id, app_public.cases_short_id(c), (app_public.cases_patient(c)).alias,
         app_hidden.engagement_state_for(now() - e.last_activity_at, s.inactive_days, s.stalled_days, s.lost_days),
         e.last_activity_at, e.questionnaires_done, e.worksheets_done,
         coalesce(o.questionnaires, 0), coalesce(o.worksheets, 0),
         e.last_from_patient_at, e.last_to_patient_at, e.waiting_since
    from app_public.case_engagement e
    join app_public.cases c on c.id = e.case_id and not c.is_dropout and c.stage not in ('finished', 'rejected')
    left join lateral (
      select count(*) filter (where w.task_definition_key <> 'worksheetTask')::int as questionnaires,
             count(*) filter (where w.task_definition_key = 'worksheetTask')::int as worksheets
        from app_public.workflow_tasks w
       where w.case_id = e.case_id and w.end_time is null and 'patients' = any (w.candidate_groups) and w.due < now()) o on true
   order by e.last_activity_at, e.case_id
   limit least(greatest(page_size, 1), 200) offset greatest(page_offset, 0);
end;
$$;
grant execute on function app_hidden.engagement_radar(integer, integer) to sanad_user;

-- How many of the reader's participants are in each state.
create function app_hidden.engagement_counts()
  returns table (state text, participants integer)
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare s app_public.engagement_settings;
begin
  if not app_hidden.engagement_may_read() then
    raise exception 'Only coordinators, therapists and supporters see the engagement radar.' using errcode = '42501', hint = 'forbidden';
  end if;
  select * into s from app_public.engagement_settings;
  return query
  select app_hidden.engagement_state_for(now() - e.last_activity_at, s.inactive_days, s.stalled_days, s.lost_days), count(*)::int
    from app_public.case_engagement e
    join app_public.cases c on c.id = e.case_id and not c.is_dropout and c.stage not in ('finished', 'rejected')
   group by 1;
end;
$$;
grant execute on function app_hidden.engagement_counts() to sanad_user;
