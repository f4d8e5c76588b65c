-- Why: a suicide-risk call's follow-up date opened a task for the caller due on that date
-- (0050), but changing the date afterwards left the task, and its escalation to the
-- coordinators, at the old date. Now the call's update moves them in its own transaction:
-- the open follow-up task's due (and follow-up) date, its escalation timer (a row of
-- app_public.workflow_jobs, whose due_date the engine treats as the truth, as PUT
-- /job/{id}/duedate does) and the process variables. Clearing the date (or the follow-up
-- contact, which clears it) ends the open follow-up task and its process; a later date opens a
-- new one. A start not yet run by the scheduler is changed or withdrawn the same way.
-- See docs/DECISIONS.md "2026-11 One door for exclusions; safety follow-up dates".

-- Ends given active instances from outside (the body of 0061's end_case_workflows, now shared):
-- open tasks end with the reason, timers go, the engine state is dropped. Returns how many ended.
create function app_hidden.end_workflow_instances(ids uuid[], reason text) returns integer
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  ended integer;
  active uuid[];
begin
  select array_agg(i.id) into active from (
    select i.id from app_public.workflow_instances i where i.id = any (ids) and i.state = 'ACTIVE' order by i.id for update
  ) i;
  if active is null then
    return 0;
  end if;
  update app_public.workflow_instances i
     set state = 'EXTERNALLY_TERMINATED', end_time = now(), waiting_messages = '{}', waiting_signals = '{}', waiting_executions = '{}'
   where i.id = any (active);
  get diagnostics ended = row_count;
  update app_public.workflow_tasks t set end_time = now(), delete_reason = reason
   where t.process_instance_id = any (active) and t.end_time is null;
  update app_public.workflow_history h set end_time = now() where h.process_instance_id = any (active) and h.end_time is null;
  delete from app_public.workflow_jobs j where j.process_instance_id = any (active);
  delete from app_private.workflow_engine_states s where s.instance_id = any (active);
  return ended;
end;
$$;

-- Same contract as 0061: every active process of a case.
create or replace function app_hidden.end_case_workflows(case_id uuid, reason text) returns integer
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  select app_hidden.end_workflow_instances(
    array(select i.id from app_public.workflow_instances i where i.case_id = end_case_workflows.case_id and i.state = 'ACTIVE'),
    reason)
$$;

-- The follow-up of a call moved to a new date (null: called off). Runs in the call's update
-- (its trigger below), so only the people who may change the call reach it (RLS of
-- case_suicide_calls: the case's staff and coordinators).
--   not started yet: the queued start carries the new date, or is withdrawn;
--   task open: due and follow-up date, the escalation timer (same distance after the date as
--     before, i.e. SAFETY_TASK_DUE) and the variables move; cleared: the task ends
--     ('follow_up_cancelled') with its process;
--   task done: nothing (a new arrangement is a new call).
-- Whenever the follow-up is called off, its start ledger entry goes, so a later date starts anew.
create function app_hidden.move_safety_follow_up(call_id uuid, follow_up_date timestamptz) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  iso constant text := to_char(follow_up_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
  instance_id uuid;
  vars jsonb;
  escalate_at timestamptz;
  withdrawn integer;
  ended integer := 0;
begin
  if follow_up_date is null then
    delete from app_private.workflow_start_requests r
     where r.definition_key = 'safety' and r.variables ->> 'kind' = 'followUp' and r.variables ->> 'callId' = call_id::text;
    get diagnostics withdrawn = row_count;
  else
    update app_private.workflow_start_requests r
       set variables = r.variables || jsonb_build_object('followUpDate', iso)
     where r.definition_key = 'safety' and r.variables ->> 'kind' = 'followUp' and r.variables ->> 'callId' = call_id::text;
  end if;

  select i.id, i.variables into instance_id, vars from app_public.workflow_instances i
   where i.definition_key = 'safety' and i.state = 'ACTIVE'
     and i.variables -> 'kind' ->> 'value' = 'followUp' and i.variables -> 'callId' ->> 'value' = call_id::text
   order by i.start_time desc
   limit 1
     for update;

  if follow_up_date is null then
    if instance_id is not null then
      ended := app_hidden.end_workflow_instances(array[instance_id], 'follow_up_cancelled');
    end if;
    if withdrawn > 0 or ended > 0 then
      delete from app_private.safety_process_starts s where s.purpose = 'followUp' and s.record_id = call_id;
    end if;
    return;
  end if;
  if instance_id is null then
    return;
  end if;

  update app_public.workflow_tasks t set due = follow_up_date, follow_up = follow_up_date
   where t.process_instance_id = instance_id and t.task_definition_key = 'suicideCallFollowUp' and t.end_time is null;
  -- The escalation keeps its distance after the date; it is gone once it has fired.
  escalate_at := follow_up_date + ((vars -> 'followUpEscalateAt' ->> 'value')::timestamptz - (vars -> 'followUpDate' ->> 'value')::timestamptz);
  if escalate_at is not null then
    update app_public.workflow_jobs j set due_date = escalate_at
     where j.process_instance_id = instance_id and j.activity_id = 'followUpOverdue' and j.kind = 'timer';
    vars := jsonb_set(vars, '{followUpEscalateAt,value}',
      to_jsonb(to_char(escalate_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
  end if;
  update app_public.workflow_instances i set variables = jsonb_set(vars, '{followUpDate,value}', to_jsonb(iso))
   where i.id = instance_id;
end;
$$;
comment on function app_hidden.move_safety_follow_up(uuid, timestamptz) is
  'Moves the open follow-up task of a suicide-risk call (due date, escalation timer, variables) to a new date, or ends it when the date is cleared.';

-- Redefines 0050's trigger function: a changed follow-up date moves the follow-up first; the
-- rest is as before (the ledger makes each start happen once per call, or once more after the
-- follow-up was called off).
create or replace function app_hidden.tg_case_suicide_calls_effects() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'UPDATE' and (new.follow_up_date is distinct from old.follow_up_date
                           or (old.follow_up_contact and not new.follow_up_contact)) then
    perform app_hidden.move_safety_follow_up(new.id, case when new.follow_up_contact then new.follow_up_date end);
  end if;
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
