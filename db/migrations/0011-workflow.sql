-- Why: the workflow engine of DESIGN.md §5 (issue 6). BPMN process instances run in the server
-- (bpmn-engine), but everything they are lives here: deployed definitions, instances with their
-- engine state, open and finished user tasks, timer and retry jobs, the activity history, the
-- mails the processes queue, and the reads of spec §7 (my_running_processes, my_task_log, …).
-- The server writes these tables as the owner inside one transaction per step; request roles only
-- read them, under row-level security, and the REST routes check permissions by querying as the
-- request role (src/server/workflow/rest.ts). See docs/WORKFLOW.md.

-- Who may do what, per case ---------------------------------------------------------------------

-- The cases in which the signed-in person acts as care staff (any role but patient).
create function app_hidden.my_staff_case_ids() returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select m.case_id from app_public.case_members m
   where m.user_id = app_public.current_user_id()
     and (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter or m.acts_as_counselor)
$$;

-- Candidate groups of BPMN user tasks map to case-member roles; "coordinators" to the account flag.
create function app_hidden.workflow_in_group(case_id uuid, group_name text) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when group_name = 'coordinators' then app_hidden.is_coordinator()
  else exists (
    select 1 from app_public.case_members m
     where m.case_id = workflow_in_group.case_id and m.user_id = app_public.current_user_id()
       and case group_name
         when 'patients' then m.acts_as_patient
         when 'therapists' then m.acts_as_therapist
         when 'interviewers' then m.acts_as_interviewer
         when 'supervisors' then m.acts_as_supervisor
         when 'supporters' then m.acts_as_supporter
         when 'counselors' then m.acts_as_counselor
         else false
       end)
  end
$$;
comment on function app_hidden.workflow_in_group(uuid, text) is
  'Whether the signed-in person belongs to a candidate group (patients, therapists, …) in a case.';

-- Staff of the case (or a coordinator) manage its processes: move timers, retry failed jobs.
create function app_hidden.workflow_may_manage(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select app_hidden.is_coordinator() or workflow_may_manage.case_id in (select app_hidden.my_staff_case_ids())
$$;

grant execute on function app_hidden.my_staff_case_ids(), app_hidden.workflow_in_group(uuid, text),
  app_hidden.workflow_may_manage(uuid) to sanad_user;

-- Deployed definitions --------------------------------------------------------------------------

-- One row per distinct content of a BPMN file; running instances keep the version they started with.
create table app_private.workflow_definitions (
  key text not null,
  version integer not null,
  content_hash text not null,
  source text not null,
  deployed_at timestamptz not null default now(),
  primary key (key, version),
  unique (key, content_hash)
);
alter table app_private.workflow_definitions enable row level security;
comment on table app_private.workflow_definitions is 'BPMN definitions deployed from workflows/*.bpmn, versioned by content.';

-- Instances ----------------------------------------------------------------------------------------

create table app_public.workflow_instances (
  id uuid primary key default gen_random_uuid(),
  definition_key text not null,
  definition_version integer not null,
  business_key text check (length(business_key) <= 255),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  state text not null default 'ACTIVE'
    constraint workflow_instances_state check (state in ('ACTIVE', 'COMPLETED', 'EXTERNALLY_TERMINATED')),
  start_time timestamptz not null,
  end_time timestamptz,
  -- Camunda-typed process variables: {"name": {"value": …, "type": "String"}}
  variables jsonb not null default '{}'::jsonb,
  -- what the instance waits for now, so that messages and signals find it without loading it
  waiting_messages text[] not null default '{}',
  waiting_signals text[] not null default '{}',
  waiting_executions text[] not null default '{}',
  updated_at timestamptz not null default now(),
  foreign key (definition_key, definition_version) references app_private.workflow_definitions (key, version) on delete restrict
);
comment on table app_public.workflow_instances is 'A running or finished BPMN process instance of a case.';
comment on column app_public.workflow_instances.state is 'ACTIVE, COMPLETED or EXTERNALLY_TERMINATED.';
comment on column app_public.workflow_instances.variables is 'Process variables in Camunda''s typed form {name: {value, type}}.';
create index workflow_instances_case_idx on app_public.workflow_instances (case_id, start_time desc);
create index workflow_instances_waiting_msg_idx on app_public.workflow_instances using gin (waiting_messages) where state = 'ACTIVE';
create index workflow_instances_waiting_exec_idx on app_public.workflow_instances using gin (waiting_executions) where state = 'ACTIVE';
-- One active instance per case and business key (the trial runs once at a time).
create unique index workflow_instances_one_active_idx on app_public.workflow_instances (case_id, business_key)
  where state = 'ACTIVE' and business_key is not null;

create trigger _100_set_updated_at before update on app_public.workflow_instances
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _900_audit after insert or update or delete on app_public.workflow_instances
  for each row execute function app_hidden.tg_audit('case_id', 'waiting_messages', 'waiting_signals', 'waiting_executions');

-- The engine's own state (bpmn-engine getState(), without the definition source) beside the row:
-- internal, large, never read by people.
create table app_private.workflow_engine_states (
  instance_id uuid primary key references app_public.workflow_instances (id) on delete cascade,
  state jsonb not null,
  step integer not null default 0
);
alter table app_private.workflow_engine_states enable row level security;

-- User tasks ---------------------------------------------------------------------------------------

create table app_public.workflow_tasks (
  id uuid primary key default gen_random_uuid(),
  process_instance_id uuid not null references app_public.workflow_instances (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- the engine's execution id of the waiting user task
  execution_id text not null,
  task_definition_key text not null,
  name text,
  assignee text,
  owner text,
  candidate_groups text[] not null default '{}',
  due timestamptz,
  follow_up timestamptz,
  priority integer not null default 50,
  -- camunda:formData of the task: [{id, label, type, values?, defaultValue?}]
  form_fields jsonb not null default '[]'::jsonb,
  created timestamptz not null,
  end_time timestamptz,
  -- 'completed', or why the task closed without completion ('deleted' by a boundary event or a termination)
  delete_reason text,
  completed_by uuid references app_public.users (id) on delete set null,
  unique (process_instance_id, execution_id)
);
comment on table app_public.workflow_tasks is
  'A BPMN user task of a case: open while end_time is empty. Completed through POST /api/workflow/rest/task/{id}/submit-form.';
comment on column app_public.workflow_tasks.candidate_groups is
  'Who may complete it: patients, therapists, interviewers, supervisors, supporters, counselors (roles in the case) or coordinators.';
comment on column app_public.workflow_tasks.form_fields is 'The form of the task: [{id, label, type, values, defaultValue}].';
comment on column app_public.workflow_tasks.follow_up is 'When to look at the task again (Camunda follow-up date).';
create index workflow_tasks_open_case_idx on app_public.workflow_tasks (case_id, due) where end_time is null;
create index workflow_tasks_case_end_idx on app_public.workflow_tasks (case_id, end_time desc);
create index workflow_tasks_instance_idx on app_public.workflow_tasks (process_instance_id) where end_time is null;

create trigger _900_audit after insert or update or delete on app_public.workflow_tasks
  for each row execute function app_hidden.tg_audit('case_id');

-- Jobs: timers and retries --------------------------------------------------------------------------

create table app_public.workflow_jobs (
  id uuid primary key default gen_random_uuid(),
  process_instance_id uuid not null references app_public.workflow_instances (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- 'timer': a BPMN timer; 'retry': a service task whose handler failed and runs again later
  kind text not null constraint workflow_jobs_kind check (kind in ('timer', 'retry')),
  activity_id text not null,
  activity_name text,
  execution_id text not null,
  due_date timestamptz not null,
  attempts integer not null default 0,
  last_error text,
  -- set when a handler failed too often; the job then waits for PUT /job/{id}/retries
  failed_at timestamptz,
  created timestamptz not null,
  unique (process_instance_id, execution_id)
);
comment on table app_public.workflow_jobs is
  'Timers and service-task retries of process instances; failed_at marks a handler that failed too often.';
create index workflow_jobs_due_idx on app_public.workflow_jobs (due_date) where failed_at is null;
create index workflow_jobs_case_idx on app_public.workflow_jobs (case_id);

-- History ------------------------------------------------------------------------------------------

create table app_public.workflow_history (
  id uuid primary key default gen_random_uuid(),
  process_instance_id uuid not null references app_public.workflow_instances (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  activity_id text not null,
  activity_name text,
  activity_type text not null,
  execution_id text not null,
  start_time timestamptz not null,
  end_time timestamptz,
  unique (process_instance_id, execution_id)
);
comment on table app_public.workflow_history is 'Every activity a process instance passed: start and end times.';
create index workflow_history_case_idx on app_public.workflow_history (case_id, start_time desc);

-- Queues -------------------------------------------------------------------------------------------

-- Process starts requested by server routines (registration starts the trial), run by the scheduler.
create table app_private.workflow_start_requests (
  id bigint generated always as identity primary key,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  definition_key text not null,
  business_key text,
  created_at timestamptz not null default now(),
  run_after timestamptz not null default now(),
  attempts integer not null default 0,
  last_error text,
  failed_at timestamptz
);
alter table app_private.workflow_start_requests enable row level security;
create index workflow_start_requests_run_idx on app_private.workflow_start_requests (run_after);

create function app_hidden.request_workflow_start(case_id uuid, definition_key text, business_key text default null)
  returns void
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  insert into app_private.workflow_start_requests (case_id, definition_key, business_key)
  values (request_workflow_start.case_id, request_workflow_start.definition_key, request_workflow_start.business_key);
$$;
comment on function app_hidden.request_workflow_start(uuid, text, text) is
  'Queues the start of a process for a case, in the transaction of the change that calls for it.';

-- Mails a process sends (reminders): queued in the step's transaction, sent after it committed.
create table app_private.workflow_mails (
  id bigint generated always as identity primary key,
  user_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  template text not null,
  created_at timestamptz not null default now(),
  run_after timestamptz not null default now(),
  attempts integer not null default 0
);
alter table app_private.workflow_mails enable row level security;
create index workflow_mails_run_idx on app_private.workflow_mails (run_after);

-- Outbox rows that failed too often stop at this time instead of disappearing.
alter table app_private.workflow_outbox add column failed_at timestamptz;

-- Row-level security --------------------------------------------------------------------------------

alter table app_public.workflow_instances enable row level security;
alter table app_public.workflow_tasks enable row level security;
alter table app_public.workflow_jobs enable row level security;
alter table app_public.workflow_history enable row level security;

-- Members see the processes and history of their cases; coordinators see all.
create policy select_member on app_public.workflow_instances for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())
);
create policy select_member on app_public.workflow_history for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())
);
-- Tasks: care staff of the case see all its tasks; a patient sees the patients' tasks and tasks
-- assigned to them.
create policy select_visible on app_public.workflow_tasks for select to sanad_user using (
  (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_staff_case_ids())
  or (case_id in (select app_hidden.my_case_ids_as('patient'))
      and ('patients' = any (candidate_groups) or assignee = (select app_public.current_user_id())::text))
);
-- Jobs: members see the timers of their cases (their dates); failures and retries are for
-- coordinators and care staff.
create policy select_visible on app_public.workflow_jobs for select to sanad_user using (
  (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_staff_case_ids())
  or (kind = 'timer' and case_id in (select app_hidden.my_case_ids()))
);

-- No insert, update or delete grant: only the workflow host (the owner) changes these tables.
grant select on app_public.workflow_tasks, app_public.workflow_jobs, app_public.workflow_history to sanad_user;
-- Process variables can hold interview outcomes and exclusion reasons: not readable by request
-- roles (patients are members too); care staff read them through GET /process-instance/{id}/variables.
grant select (id, definition_key, definition_version, business_key, case_id, state, start_time, end_time,
  waiting_messages, waiting_signals, waiting_executions, updated_at) on app_public.workflow_instances to sanad_user;

-- Reads of spec §7 ----------------------------------------------------------------------------------

create view app_public.my_running_processes with (security_invoker = true) as
select i.id, i.business_key, i.definition_key, i.definition_version, i.case_id, i.start_time, i.end_time, i.state,
       (select count(*) from app_public.workflow_jobs j where j.process_instance_id = i.id and j.kind = 'timer')::integer
         as pending_timers
  from app_public.workflow_instances i;
comment on view app_public.my_running_processes is 'The process instances of the signed-in person''s cases.';

create view app_public.my_task_log with (security_invoker = true) as
select t.id, t.process_instance_id, t.case_id, t.task_definition_key, t.name, t.assignee, t.candidate_groups,
       t.due, t.follow_up, t.priority, t.created, t.end_time, t.delete_reason
  from app_public.workflow_tasks t;
comment on view app_public.my_task_log is 'Open and finished user tasks the signed-in person may see.';

create view app_public.my_process_log with (security_invoker = true) as
select h.id, h.process_instance_id, h.case_id, h.activity_id, h.activity_name, h.activity_type, h.start_time, h.end_time
  from app_public.workflow_history h;
comment on view app_public.my_process_log is 'The activities the processes of the signed-in person''s cases passed.';

create view app_public.my_gateways with (security_invoker = true) as
select h.id, h.process_instance_id, h.case_id, h.activity_id, h.activity_name, h.activity_type, h.start_time, h.end_time
  from app_public.workflow_history h
 where h.activity_type like '%Gateway';
comment on view app_public.my_gateways is 'The decisions (gateways) the processes of the signed-in person''s cases passed.';

create view app_public.my_dates with (security_invoker = true) as
select j.id, j.case_id, j.process_instance_id, j.activity_id as name, j.activity_name as label, j.due_date as "timestamp"
  from app_public.workflow_jobs j
 where j.kind = 'timer';
comment on view app_public.my_dates is 'Upcoming dates (timers) of the processes of the signed-in person''s cases.';

grant select on app_public.my_running_processes, app_public.my_task_log, app_public.my_process_log,
  app_public.my_gateways, app_public.my_dates to sanad_user;

-- Task summary per case (spec §3, PagedCases) -----------------------------------------------------

create type app_public.task_summary as (
  count_of_open integer,
  latest_created timestamptz,
  latest_due timestamptz,
  count_of_overdue integer,
  next_time timestamptz
);
comment on type app_public.task_summary is
  'Open tasks of one candidate group in a case: how many, the newest creation and due dates, how many are overdue, and the next due date still ahead.';

-- Security definer with the visibility rule spelt out (staff of the case or a coordinator),
-- because case lists ask it for hundreds of cases at once. Patients get nothing.
create function app_public.cases_task_summary(c app_public.cases, group_name text) returns app_public.task_summary
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select row(
           count(*)::integer,
           max(t.created),
           max(t.due),
           case when group_name = 'patients' then null else count(*) filter (where t.due < now())::integer end,
           min(t.due) filter (where t.due >= now())
         )::app_public.task_summary
    from app_public.workflow_tasks t
   where t.case_id = c.id and t.end_time is null and group_name = any (t.candidate_groups)
     and (app_hidden.is_coordinator() or c.id in (select app_hidden.my_staff_case_ids()))
$$;
comment on function app_public.cases_task_summary(app_public.cases, text) is
  'Open tasks of a candidate group ("patients" or "therapists") in this case; overdue only counted for therapists.';

create function app_public.cases_next_waiting_date(c app_public.cases) returns timestamptz
  language sql stable
  set search_path = pg_catalog
as $$
  select min(j.due_date) from app_public.workflow_jobs j
   where j.case_id = c.id and j.kind = 'timer' and j.failed_at is null
$$;
comment on function app_public.cases_next_waiting_date(app_public.cases) is 'When the next timer of this case''s processes is due.';

grant execute on function app_public.cases_task_summary(app_public.cases, text),
  app_public.cases_next_waiting_date(app_public.cases) to sanad_user;
