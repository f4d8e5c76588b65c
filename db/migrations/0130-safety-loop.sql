-- Why: a closed safety loop (issue 26, item 1). The task "respond to a risk answer" (0050) carried
-- nothing: no patient, no answer, no way to record the call from it, and "done" closed it without
-- any call. Now:
--   * a suicide-risk call may name the risk signal it answers (recorded from the task), and the
--     task page reads its signal and its call through two computed columns of workflow_tasks
--     (no process variable reaches the screen);
--   * the signal records who took it on and when (an explicit "I am on it"), the reason given
--     when a task is closed without a call, and when it was escalated;
--   * completing the risk task is refused unless a call answers the signal (linked, or recorded
--     on the case after the signal) or a reason is documented: checked in the transaction of the
--     completion, whichever path completes it (Camunda REST, a server feature);
--   * the coordinators' response-time report reads every signal with its times (coordinators only).
-- See docs/decisions/safety-loop.md.

-- The signal's loop ---------------------------------------------------------------------------------

alter table app_public.safety_signals
  add column acknowledged_at timestamptz,
  add column acknowledged_by uuid references app_public.users (id) on delete set null,
  add column closing_reason text constraint safety_signals_closing_reason_length check (length(closing_reason) <= 4000),
  add column escalated_to_coordinators_at timestamptz,
  add column escalated_to_on_call_at timestamptz;
comment on column app_public.safety_signals.acknowledged_at is 'When a person responsible for the task said "I am on it" (or recorded a call for it).';
comment on column app_public.safety_signals.closing_reason is 'Why the task was closed without a call, as the person who closed it wrote it.';
comment on column app_public.safety_signals.escalated_to_coordinators_at is 'When nobody had taken the task on in time and the coordinators were told.';
comment on column app_public.safety_signals.escalated_to_on_call_at is 'When nobody had taken the task on after the coordinators were told and the on-call address was told.';

-- A call answers a signal (set when it is recorded from the task; never changed afterwards).
alter table app_public.case_suicide_calls
  add column safety_signal_id uuid references app_public.safety_signals (id) on delete set null;
comment on column app_public.case_suicide_calls.safety_signal_id is 'The risk signal this call answers (recorded from its task).';
create index case_suicide_calls_signal_idx on app_public.case_suicide_calls (safety_signal_id) where safety_signal_id is not null;
grant insert (safety_signal_id) on app_public.case_suicide_calls to sanad_user;

-- Who may act on a signal's task: the group it went to (the case's therapists, interviewers) and
-- coordinators; the same people the workflow lets complete it (0020 candidates + coordinators).
create function app_hidden.may_act_on_safety_signal(case_id uuid, responsible_group text) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select app_hidden.is_coordinator()
      or (responsible_group <> 'coordinators' and app_hidden.workflow_in_group(may_act_on_safety_signal.case_id, responsible_group))
$$;
grant execute on function app_hidden.may_act_on_safety_signal(uuid, text) to sanad_user;

-- The call that answers a signal: linked to it, or recorded on the case since the signal was raised.
-- Its time is the call date, never before the signal (a call dated earlier answered something else).
create function app_hidden.safety_signal_first_call_at(signal_id uuid) returns timestamptz
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select min(greatest(c.call_date, s.raised_at))
    from app_public.safety_signals s
    join app_public.case_suicide_calls c
      on c.safety_signal_id = s.id or (c.case_id = s.case_id and c.created_at >= s.raised_at)
   where s.id = safety_signal_first_call_at.signal_id
$$;
grant execute on function app_hidden.safety_signal_first_call_at(uuid) to sanad_user;

-- A call recorded for a signal: the signal must be of the call's case; recording the call takes
-- the task on (acknowledged, if nobody had yet).
create function app_hidden.tg_case_suicide_calls_signal() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'UPDATE' then
    new.safety_signal_id := old.safety_signal_id;
    return new;
  end if;
  if new.safety_signal_id is null then
    return new;
  end if;
  if not exists (select 1 from app_public.safety_signals s where s.id = new.safety_signal_id and s.case_id = new.case_id) then
    raise exception 'This risk answer belongs to another case; record the call on the case of the risk answer'
      using errcode = 'P0001', hint = 'SIGNAL_OF_ANOTHER_CASE';
  end if;
  update app_public.safety_signals s
     set acknowledged_at = coalesce(s.acknowledged_at, now()),
         acknowledged_by = coalesce(s.acknowledged_by, app_public.current_user_id())
   where s.id = new.safety_signal_id and s.acknowledged_at is null;
  return new;
end;
$$;
create trigger _300_signal before insert or update on app_public.case_suicide_calls
  for each row execute function app_hidden.tg_case_suicide_calls_signal();

-- "I am on it": the assignee (a person of the task's group) or a coordinator takes the task on.
-- The first person and time are kept; a closed task cannot be taken on.
create function app_public.acknowledge_safety_signal(signal_id uuid) returns app_public.safety_signals
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  s app_public.safety_signals;
begin
  select * into s from app_public.safety_signals x where x.id = acknowledge_safety_signal.signal_id for update;
  if s.id is null or not (app_hidden.is_coordinator() or s.case_id in (select app_hidden.my_staff_case_ids())) then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  if not app_hidden.may_act_on_safety_signal(s.case_id, s.responsible_group) then
    raise exception 'This safety task is for other people of the case; a coordinator or one of them takes it on'
      using errcode = 'P0001', hint = 'SAFETY_TASK_NOT_YOURS';
  end if;
  if s.resolved_at is not null then
    raise exception 'This safety task is already closed' using errcode = 'P0001', hint = 'SAFETY_TASK_CLOSED';
  end if;
  update app_public.safety_signals x
     set acknowledged_at = coalesce(x.acknowledged_at, now()),
         acknowledged_by = coalesce(x.acknowledged_by, app_public.current_user_id())
   where x.id = s.id
  returning x.* into s;
  return s;
end;
$$;
comment on function app_public.acknowledge_safety_signal(uuid) is
  'Takes on the safety task of a risk answer ("I am on it"): the people the task is for or a coordinator; the first time and person are kept.';
grant execute on function app_public.acknowledge_safety_signal(uuid) to sanad_user;

-- Closing the task --------------------------------------------------------------------------------

-- Called in the completion of the risk task (src/server/workflow/task-hooks.ts), as the request
-- role, before the step: stores a documented reason, and refuses with a code when the task has
-- neither a call nor a reason. The trigger below checks the same in every completion.
create function app_hidden.document_safety_task_closing(task_id uuid, reason text) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  s app_public.safety_signals;
  cleaned text := nullif(btrim(coalesce(reason, '')), '');
begin
  select sig.* into s
    from app_public.workflow_tasks t
    join app_public.workflow_instances i on i.id = t.process_instance_id
    join app_public.safety_signals sig on sig.id = (i.variables -> 'signalId' ->> 'value')::uuid
   where t.id = document_safety_task_closing.task_id and t.task_definition_key = 'safetySignalTask'
     for update of sig;
  if s.id is null then
    return null;
  end if;
  if not app_hidden.may_act_on_safety_signal(s.case_id, s.responsible_group) then
    return 'SAFETY_TASK_NOT_YOURS';
  end if;
  if cleaned is not null then
    if length(cleaned) > 4000 then
      return 'CLOSING_REASON_TOO_LONG';
    end if;
    update app_public.safety_signals x set closing_reason = cleaned where x.id = s.id;
    return null;
  end if;
  if app_hidden.safety_signal_first_call_at(s.id) is null then
    return 'SAFETY_TASK_NEEDS_CALL_OR_REASON';
  end if;
  return null;
end;
$$;
comment on function app_hidden.document_safety_task_closing(uuid, text) is
  'Before a risk task is completed: stores the reason for closing it without a call; returns a refusal code when it has neither call nor reason.';
grant execute on function app_hidden.document_safety_task_closing(uuid, text) to sanad_user;

-- Redefines 0050's trigger function: the completed risk task must have a call or a reason (else
-- the completion is refused and rolls back); the rest is as before.
create or replace function app_hidden.tg_safety_task_completed() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  vars jsonb;
  signal app_public.safety_signals;
begin
  select i.variables into vars from app_public.workflow_instances i where i.id = new.process_instance_id;
  if new.task_definition_key = 'reviewSuicideCall' then
    update app_public.case_suicide_calls c
       set user_id_coordinator = coalesce(c.user_id_coordinator, new.completed_by),
           coordinator_contact_date = coalesce(c.coordinator_contact_date, new.end_time)
     where c.id = (vars -> 'callId' ->> 'value')::uuid and new.completed_by is not null;
  elsif new.task_definition_key = 'safetySignalTask' then
    select * into signal from app_public.safety_signals s where s.id = (vars -> 'signalId' ->> 'value')::uuid;
    if signal.id is not null and signal.closing_reason is null and app_hidden.safety_signal_first_call_at(signal.id) is null then
      raise exception 'A risk task closes only with a recorded call or a documented reason'
        using errcode = 'P0001', hint = 'SAFETY_TASK_NEEDS_CALL_OR_REASON';
    end if;
    update app_public.safety_signals s
       set resolved_at = new.end_time, resolved_by = new.completed_by,
           acknowledged_at = coalesce(s.acknowledged_at, new.end_time),
           acknowledged_by = coalesce(s.acknowledged_by, new.completed_by)
     where s.id = signal.id and s.resolved_at is null;
  end if;
  return null;
end;
$$;

-- What the task page reads ------------------------------------------------------------------------

create function app_public.workflow_tasks_safety_signal(t app_public.workflow_tasks) returns app_public.safety_signals
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select s.* from app_public.workflow_instances i
    join app_public.safety_signals s on s.id = (i.variables -> 'signalId' ->> 'value')::uuid
   where i.id = t.process_instance_id and i.definition_key = 'safety'
     and (app_hidden.is_coordinator() or s.case_id in (select app_hidden.my_staff_case_ids()))
$$;
comment on function app_public.workflow_tasks_safety_signal(app_public.workflow_tasks) is
  'The risk answer a safety task is about (staff of the case and coordinators).';
grant execute on function app_public.workflow_tasks_safety_signal(app_public.workflow_tasks) to sanad_user;

create function app_public.workflow_tasks_suicide_call(t app_public.workflow_tasks) returns app_public.case_suicide_calls
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select c.* from app_public.workflow_instances i
    join app_public.case_suicide_calls c on c.id = (i.variables -> 'callId' ->> 'value')::uuid
   where i.id = t.process_instance_id and i.definition_key = 'safety'
     and (app_hidden.is_coordinator() or c.case_id in (select app_hidden.my_staff_case_ids()))
$$;
comment on function app_public.workflow_tasks_suicide_call(app_public.workflow_tasks) is
  'The suicide-risk call a safety task is about: the coordinators'' review or a follow-up (staff of the case and coordinators).';
grant execute on function app_public.workflow_tasks_suicide_call(app_public.workflow_tasks) to sanad_user;

-- When the signal's call came (for the task page and the report).
create function app_public.safety_signals_first_call_at(s app_public.safety_signals) returns timestamptz
  language sql stable
  set search_path = pg_catalog
as $$
  select app_hidden.safety_signal_first_call_at(s.id)
$$;
comment on function app_public.safety_signals_first_call_at(app_public.safety_signals) is
  'When the first call answering this risk answer was made (a call recorded for it or on the case since).';
grant execute on function app_public.safety_signals_first_call_at(app_public.safety_signals) to sanad_user;

-- The on-call address ---------------------------------------------------------------------------------

-- The last step of the escalation chain mails a configured address (SAFETY_ON_CALL_EMAIL), not an
-- account: a workflow mail may name an address and its language instead of a person.
alter table app_private.workflow_mails
  alter column user_id drop not null,
  add column to_address text,
  add column locale text,
  add constraint workflow_mails_recipient check (user_id is not null or (to_address is not null and locale is not null));
