-- Why: the Camunda REST routes only asked whether the caller could SEE a case before they
-- started or deleted its processes, correlated any message or signal, or completed a task with
-- any variables (issue 11): a patient could send `screeningCompleted` for their own case and
-- skip the screening, forge `interviewBooked`, or overwrite `treatmentDuration` through a task
-- form. Who may make which workflow call is decided here, in one table and one function, for
-- every route (src/server/workflow/commands.ts) and for the task screens (mayComplete).
--
-- The rules name only what survives a restructuring of a BPMN file: process keys, message and
-- signal names, task definition keys. A person's roles come from the case (case_members) and
-- the coordinator account flag; the server's own features never pass through these rules (they
-- write app_hidden.notify_workflow or call the internal commands). See docs/WORKFLOW.md
-- "Who may move a case" and docs/DECISIONS.md "2026-11 Workflow authorization".

-- The rule table -----------------------------------------------------------------------------------

create table app_private.workflow_calls (
  -- a process key, or '*' for every process
  process_key text not null,
  action text not null constraint workflow_calls_action check (action in (
    'start', 'delete', 'message', 'signal', 'signal-execution', 'complete-task', 'move-job', 'retry-job', 'read-variables')),
  -- a message or signal name, a task definition key, or '*'
  name text not null,
  -- who may make the call: case roles (patient, therapist, interviewer, supervisor, supporter,
  -- counselor), coordinator (the account flag, any case), and for tasks candidate (a member of one
  -- of the task's candidate groups in its case) and assignee. Empty: nobody through the API.
  roles text[] not null,
  -- the process variables a person may send with the call, {name: Camunda type}; null: any
  variables jsonb,
  -- said to a refused caller: why, or who does this instead
  note text,
  primary key (process_key, action, name),
  constraint workflow_calls_roles check (roles <@ array['patient', 'therapist', 'interviewer', 'supervisor', 'supporter',
    'counselor', 'coordinator', 'candidate', 'assignee']),
  constraint workflow_calls_variables check (variables is null or jsonb_typeof(variables) = 'object')
);
alter table app_private.workflow_calls enable row level security;
comment on table app_private.workflow_calls is
  'Who may make which workflow call through /api/workflow/rest. The most specific row wins: an exact name over ''*'', then an exact process key over ''*''; no row: nobody.';

insert into app_private.workflow_calls (process_key, action, name, roles, variables, note) values
  -- Processes: the trial starts at registration (the server); a coordinator may start or end one by hand.
  ('*', 'start', '*', '{coordinator}', null, 'Only coordinators start processes by hand; the trial starts when a patient registers.'),
  ('*', 'delete', '*', '{coordinator}', null, 'Only coordinators may cancel a process instance.'),
  -- Messages people send. Everything else is sent by the server's features or nobody.
  ('trial', 'message', 'dropout', '{therapist,supervisor,coordinator}', '{"askForPostIfDroppedOut": "Boolean"}',
   'Only the therapists and supervisors of the case and coordinators record a dropout.'),
  ('trial', 'message', 'offerCanceled', '{interviewer,coordinator}', '{}',
   'Only the interviewers of the case and coordinators report a cancelled interview offer.'),
  ('trial', 'message', 'offerRescheduled', '{interviewer,coordinator}', '{}',
   'Only the interviewers of the case and coordinators report a rescheduled interview offer.'),
  ('*', 'message', 'screeningCompleted', '{}', '{}',
   'The questionnaires send this message when the screening questionnaires are complete; nobody sends it by hand.'),
  ('*', 'message', 'interviewBooked', '{}', '{}', 'The booking of an interview sends this message; nobody sends it by hand.'),
  ('*', 'message', 'interviewBookingCanceled', '{}', '{}', 'Cancelling a booking sends this message; nobody sends it by hand.'),
  ('*', 'message', 'interviewRescheduled', '{}', '{}', 'Rescheduling an interview sends this message; nobody sends it by hand.'),
  ('*', 'message', 'preMeasurementCompleted', '{}', '{}', 'The questionnaires send this message; nobody sends it by hand.'),
  ('*', 'message', 'postMeasurementCompleted', '{}', '{}', 'The questionnaires send this message; nobody sends it by hand.'),
  ('*', 'message', 'fu1MeasurementCompleted', '{}', '{}', 'The questionnaires send this message; nobody sends it by hand.'),
  ('*', 'message', 'fu2MeasurementCompleted', '{}', '{}', 'The questionnaires send this message; nobody sends it by hand.'),
  ('*', 'message', '*', '{}', '{}', 'Nobody may send this message through the API.'),
  -- Signals reach every waiting instance: a coordinator's call. Executions likewise.
  ('*', 'signal', '*', '{coordinator}', null, 'Only coordinators send signals.'),
  ('*', 'signal-execution', '*', '{coordinator}', null, 'Only coordinators move a waiting execution by hand.'),
  -- Tasks: the people the task is for; the questionnaire tasks are done by filling in the questionnaires.
  ('*', 'complete-task', '*', '{candidate,assignee,coordinator}', null, 'This task is for another person or group.'),
  ('trial', 'complete-task', 'screeningTask', '{coordinator}', null,
   'This task is done when the screening questionnaires are complete.'),
  ('trial', 'complete-task', 'preTask', '{coordinator}', null, 'This task is done when the questionnaires before treatment are complete.'),
  ('trial', 'complete-task', 'postTask', '{coordinator}', null, 'This task is done when the questionnaires after treatment are complete.'),
  ('trial', 'complete-task', 'fu1Task', '{coordinator}', null, 'This task is done when the follow-up questionnaires are complete.'),
  ('trial', 'complete-task', 'fu2Task', '{coordinator}', null, 'This task is done when the follow-up questionnaires are complete.'),
  -- Jobs: moving a date changes the trial's timing (the treating team's or a coordinator's call);
  -- a failed step may be retried by everyone who sees it in the task list (0018).
  ('*', 'move-job', '*', '{therapist,supervisor,coordinator}', null,
   'Only the therapists and supervisors of the case and coordinators move its dates.'),
  ('*', 'retry-job', '*', '{therapist,supervisor,interviewer,supporter,counselor,coordinator}', null,
   'Only the care staff of the case and coordinators retry its failed steps.'),
  ('*', 'read-variables', '*', '{therapist,supervisor,interviewer,supporter,counselor,coordinator}', null,
   'Only the care staff of the case and coordinators read process variables.');

-- The decision -------------------------------------------------------------------------------------

-- The roles the signed-in person holds in a case (and towards a task of it).
create function app_hidden.workflow_roles(case_id uuid, task_candidate_groups text[] default null, task_assignee text default null)
  returns text[]
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select array_remove(array[
           case when app_hidden.is_coordinator() then 'coordinator' end,
           case when m.acts_as_patient then 'patient' end,
           case when m.acts_as_therapist then 'therapist' end,
           case when m.acts_as_interviewer then 'interviewer' end,
           case when m.acts_as_supervisor then 'supervisor' end,
           case when m.acts_as_supporter then 'supporter' end,
           case when m.acts_as_counselor then 'counselor' end,
           case when exists (select 1 from unnest(task_candidate_groups) g
                              where app_hidden.workflow_in_group(workflow_roles.case_id, g)) then 'candidate' end,
           case when task_assignee is not null and task_assignee = app_public.current_user_id()::text then 'assignee' end
         ], null)
    from (select 1) one
    left join app_public.case_members m
      on m.case_id = workflow_roles.case_id and m.user_id = app_public.current_user_id()
$$;
comment on function app_hidden.workflow_roles(uuid, text[], text) is
  'The workflow roles of the signed-in person in a case: coordinator, its case-member roles, and candidate/assignee of a task.';

-- The rule of a call: the most specific row.
create function app_hidden.workflow_call_rule(process_key text, action text, name text)
  returns app_private.workflow_calls
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select c.* from app_private.workflow_calls c
   where c.action = workflow_call_rule.action
     and c.process_key in (workflow_call_rule.process_key, '*')
     and c.name in (workflow_call_rule.name, '*')
   order by (c.name <> '*') desc, (c.process_key <> '*') desc
   limit 1
$$;

-- May the signed-in person make this call on this case? The answer, the variables the call may
-- carry and the note for a refusal, in one row.
create function app_hidden.workflow_decide(
  process_key text, action text, name text, case_id uuid,
  task_candidate_groups text[] default null, task_assignee text default null,
  out allowed boolean, out variables jsonb, out note text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(r.roles && app_hidden.workflow_roles(workflow_decide.case_id, task_candidate_groups, task_assignee), false),
         r.variables,
         coalesce(r.note, 'This call is not allowed.')
    from (select 1) one
    left join lateral app_hidden.workflow_call_rule(workflow_decide.process_key, workflow_decide.action, workflow_decide.name) r on true
$$;
comment on function app_hidden.workflow_decide(text, text, text, uuid, text[], text) is
  'Whether the signed-in person may make a workflow call (start, message, complete-task, …) on a case, with the variables it may carry.';

-- Whether the person holds, in some case, by an account flag or as a coordinator, a role that
-- may make this call in some deployed process: null when they do, else the note to refuse with.
-- A patient asking to send `dropout` is refused even when no process of theirs waits for it;
-- an interviewer cancelling an offer nobody booked is not refused (the message reaches nothing).
create function app_hidden.workflow_refusal_anywhere(action text, name text) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  with mine as (
    select array(select 'coordinator'::text where app_hidden.is_coordinator())
           || array(select unnest(array[
                        case when m.acts_as_patient then 'patient' end,
                        case when m.acts_as_therapist then 'therapist' end,
                        case when m.acts_as_interviewer then 'interviewer' end,
                        case when m.acts_as_supervisor then 'supervisor' end,
                        case when m.acts_as_supporter then 'supporter' end,
                        case when m.acts_as_counselor then 'counselor' end])
                      from app_public.case_members m where m.user_id = app_public.current_user_id())
           || array(select unnest(array[
                        case when u.is_patient_account then 'patient' end,
                        case when u.is_therapist_account then 'therapist' end,
                        case when u.is_interviewer_account then 'interviewer' end,
                        case when u.is_supervisor_account then 'supervisor' end,
                        case when u.is_supporter_account then 'supporter' end,
                        case when u.is_counselor_account then 'counselor' end])
                      from app_public.users u where u.id = app_public.current_user_id()) as roles
  ), rules as (
    select r.* from (select distinct d.key from app_private.workflow_definitions d) k
     cross join lateral app_hidden.workflow_call_rule(k.key, workflow_refusal_anywhere.action, workflow_refusal_anywhere.name) r
     where r.action is not null
  )
  select case when exists (select 1 from rules, mine where rules.roles && mine.roles) then null
              else coalesce((select note from rules order by process_key desc limit 1), 'Nobody may make this call through the API.') end
$$;

-- Tasks: the rule of complete-task for one task row (the task screens show it as mayComplete).
create function app_hidden.workflow_may_complete_task(t app_public.workflow_tasks) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select t.end_time is null
     and (app_hidden.workflow_decide(i.definition_key, 'complete-task', t.task_definition_key, t.case_id,
                                     t.candidate_groups, t.assignee)).allowed
    from app_public.workflow_instances i where i.id = t.process_instance_id
$$;

grant execute on function app_hidden.workflow_roles(uuid, text[], text),
  app_hidden.workflow_call_rule(text, text, text),
  app_hidden.workflow_decide(text, text, text, uuid, text[], text),
  app_hidden.workflow_refusal_anywhere(text, text),
  app_hidden.workflow_may_complete_task(app_public.workflow_tasks) to sanad_user;

-- The task screens ask the same rule (redefines 0014's function: same signature and meaning,
-- "may complete this task now", now with the questionnaire tasks left to the questionnaires).
create or replace function app_public.workflow_tasks_may_complete(t app_public.workflow_tasks) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$
  select coalesce(app_hidden.workflow_may_complete_task(t), false)
$$;
comment on function app_public.workflow_tasks_may_complete(app_public.workflow_tasks) is
  'Whether the signed-in person may complete this task now (POST /api/workflow/rest/task/{id}/complete applies the same rule): it is open and they are its assignee, in one of its candidate groups in the case, or a coordinator; questionnaire tasks are completed by the questionnaires.';

-- The Camunda reads filter by business key and definition key; tasks by assignee.
create index workflow_tasks_assignee_idx on app_public.workflow_tasks (assignee) where assignee is not null;
