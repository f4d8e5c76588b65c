-- Why: issue 29, "the Camunda 7 surface real clients use". A tasklist claims and unclaims tasks
-- and reads and writes a task's variables; a worker written with camunda-external-task-client-js
-- fetches and locks external tasks, completes them, reports failures and extends or gives back
-- its lock. Each of these changes state, so each asks "may this person do this to this case?"
-- through the rule table of 0020 (app_private.workflow_calls) and writes only what that rule
-- allows. Request roles cannot write the workflow tables, and these calls do not leave the
-- request role: every write here is a security definer function that checks its own rule.
-- See docs/decisions/camunda-rest-surface.md.

-- The rules ----------------------------------------------------------------------------------------

alter table app_private.workflow_calls drop constraint workflow_calls_action;
alter table app_private.workflow_calls add constraint workflow_calls_action check (action in (
  'start', 'delete', 'message', 'signal', 'signal-execution', 'complete-task', 'move-job', 'retry-job', 'read-variables',
  'claim-task', 'external-task'));

insert into app_private.workflow_calls (process_key, action, name, roles, variables, note) values
  -- Claiming takes a task off its group's list: the people it is for, and coordinators.
  ('*', 'claim-task', '*', '{candidate,assignee,coordinator}', null, 'Only the people this task is for may claim it.'),
  -- External tasks run a step of a case outside Sanad: a coordinator's worker account; the
  -- name is the topic, so a trial can open one topic to another role by a row of its own.
  ('*', 'external-task', '*', '{coordinator}', null, 'Only coordinator accounts may run external tasks.');

-- Which service topics are external ---------------------------------------------------------------

create table app_private.workflow_external_topics (
  topic text primary key constraint workflow_external_topics_topic check (topic ~ '^[A-Za-z][A-Za-z0-9_.-]{0,99}$'),
  -- what the worker does, for the people who configure the trial
  note text
);
alter table app_private.workflow_external_topics enable row level security;
comment on table app_private.workflow_external_topics is
  'Service-task topics that a worker outside Sanad runs (Camunda external tasks, POST /external-task/fetchAndLock); every other topic runs an internal handler.';

-- External tasks are jobs ---------------------------------------------------------------------------
-- An external task waits as a workflow_jobs row of kind 'external' with the due date infinity:
-- the scheduler never fires it until its worker completes it; completing sets the due date to
-- now, and the scheduler runs the step with the worker's variables (one job system, no new loop).

alter table app_public.workflow_jobs drop constraint workflow_jobs_kind;
alter table app_public.workflow_jobs add constraint workflow_jobs_kind check (kind in ('timer', 'retry', 'external'));
alter table app_public.workflow_jobs
  add column topic text,
  add column worker_id text constraint workflow_jobs_worker_id check (length(worker_id) <= 255),
  add column lock_expiration timestamptz,
  add column retries integer constraint workflow_jobs_retries check (retries >= 0),
  add constraint workflow_jobs_external_topic check ((kind = 'external') = (topic is not null));
comment on column app_public.workflow_jobs.topic is 'External tasks: the topic a worker fetches.';
comment on column app_public.workflow_jobs.worker_id is 'External tasks: the worker that holds the lock.';
comment on column app_public.workflow_jobs.lock_expiration is 'External tasks: until when the worker holds it (or, after a failure, until when nobody may fetch it).';
comment on column app_public.workflow_jobs.retries is 'External tasks: the retries the worker reported left; 0 is an incident.';
create index workflow_jobs_external_idx on app_public.workflow_jobs (topic, created) where kind = 'external' and failed_at is null;

-- What a worker sent with its completion, kept away from readers of the job until the step runs.
create table app_private.workflow_external_completions (
  job_id uuid primary key references app_public.workflow_jobs (id) on delete cascade,
  variables jsonb not null constraint workflow_external_completions_variables check (jsonb_typeof(variables) = 'object'),
  completed_by uuid references app_public.users (id) on delete set null,
  completed_at timestamptz not null default now()
);
alter table app_private.workflow_external_completions enable row level security;
comment on table app_private.workflow_external_completions is
  'The variables a worker completed an external task with; the scheduler runs the step and the row goes with its job.';

-- Claim and unclaim ----------------------------------------------------------------------------------

-- POST /task/{id}/claim and /unclaim. Claim: the task is open, unassigned or already the caller's,
-- and the claim-task rule allows the caller. Unclaim: the assignee or a coordinator. Answers
-- 'not found', 'refused: <note>', 'claimed by another person' or 'ok'; writes only on 'ok'.
create function app_hidden.workflow_claim_task(task_id uuid, claim boolean) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  t app_public.workflow_tasks;
  d record;
begin
  if me is null then return 'not found'; end if;
  select * into t from app_public.workflow_tasks w where w.id = task_id and w.end_time is null for update;
  if t.id is null or not app_hidden.workflow_task_visible(t) then return 'not found'; end if;
  select * into d from app_public.workflow_instances i
    cross join lateral app_hidden.workflow_decide(i.definition_key, 'claim-task', t.task_definition_key, t.case_id,
                                                  t.candidate_groups, t.assignee) x
   where i.id = t.process_instance_id;
  if claim then
    if not d.allowed then return 'refused: ' || d.note; end if;
    if t.assignee is not null and t.assignee <> me::text then return 'claimed by another person'; end if;
    update app_public.workflow_tasks set assignee = me::text where id = t.id and assignee is distinct from me::text;
  else
    if t.assignee is distinct from me::text and not app_hidden.is_coordinator() then
      return 'refused: Only the person who claimed this task or a coordinator may give it back.';
    end if;
    update app_public.workflow_tasks set assignee = null where id = t.id and assignee is not null;
  end if;
  return 'ok';
end;
$$;
comment on function app_hidden.workflow_claim_task(uuid, boolean) is
  'Claims an open task for the signed-in person, or gives it back (Camunda claim/unclaim), under the claim-task rule.';

-- Whether the signed-in person sees a task (the select policy of workflow_tasks, asked inside a
-- security definer function where row-level security does not filter).
create function app_hidden.workflow_task_visible(t app_public.workflow_tasks) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select app_hidden.is_coordinator()
      or t.case_id in (select app_hidden.my_staff_case_ids())
      or (t.case_id in (select app_hidden.my_case_ids_as('patient'))
          and ('patients' = any (t.candidate_groups) or t.assignee = app_public.current_user_id()::text))
$$;

-- Task variables ------------------------------------------------------------------------------------

-- GET /task/{id}/variables: who may read the process variables (read-variables) gets them all;
-- anyone else who sees the task gets the values of the task's own form fields. Null: no such
-- open task for this person.
create function app_hidden.workflow_task_variables(task_id uuid) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when (app_hidden.workflow_decide(i.definition_key, 'read-variables', '*', t.case_id)).allowed then i.variables
              else coalesce((select jsonb_object_agg(f->>'id', i.variables -> (f->>'id'))
                               from jsonb_array_elements(t.form_fields) f where i.variables ? (f->>'id')), '{}'::jsonb) end
    from app_public.workflow_tasks t join app_public.workflow_instances i on i.id = t.process_instance_id
   where t.id = task_id and t.end_time is null and app_hidden.workflow_task_visible(t)
$$;
comment on function app_hidden.workflow_task_variables(uuid) is
  'The variables of an open task the signed-in person sees: all process variables for who may read them, else its form fields.';

-- POST /task/{id}/variables and PUT /task/{id}/variables/{name}: the people who may complete the
-- task (complete-task rule) fill in its form ahead of completing it; only declared form fields,
-- typed as checked by the server before (src/server/workflow/commands.ts checkFormVariables).
-- Answers 'not found', 'refused: <note>', 'undeclared: <name>' or 'ok'; writes only on 'ok'.
create function app_hidden.workflow_set_task_variables(task_id uuid, modifications jsonb) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  t app_public.workflow_tasks;
  d record;
  undeclared text;
begin
  if jsonb_typeof(modifications) is distinct from 'object' then return 'undeclared: (not an object)'; end if;
  select * into t from app_public.workflow_tasks w where w.id = task_id and w.end_time is null;
  if t.id is null or not app_hidden.workflow_task_visible(t) then return 'not found'; end if;
  -- Steps change an instance under its row lock; so does this.
  perform 1 from app_public.workflow_instances i where i.id = t.process_instance_id and i.state = 'ACTIVE' for update;
  if not found then return 'not found'; end if;
  select * into d from app_public.workflow_instances i
    cross join lateral app_hidden.workflow_decide(i.definition_key, 'complete-task', t.task_definition_key, t.case_id,
                                                  t.candidate_groups, t.assignee) x
   where i.id = t.process_instance_id;
  if not d.allowed then return 'refused: ' || d.note; end if;
  select k into undeclared from jsonb_object_keys(modifications) k
   where not exists (select 1 from jsonb_array_elements(t.form_fields) f where f->>'id' = k) limit 1;
  if undeclared is not null then return 'undeclared: ' || undeclared; end if;
  update app_public.workflow_instances set variables = variables || modifications, updated_at = now() where id = t.process_instance_id;
  return 'ok';
end;
$$;
comment on function app_hidden.workflow_set_task_variables(uuid, jsonb) is
  'Sets declared form fields of an open task as process variables, for who may complete the task.';

-- External tasks -------------------------------------------------------------------------------------

-- POST /external-task/fetchAndLock: locks up to max_tasks open external tasks of the topics for the
-- worker, only those of cases where the external-task rule of the topic allows the caller, and
-- returns them with the process variables asked for (null: all).
-- topics: [{topicName, lockDuration (ms), variables?: [names] | null, processDefinitionKey?, businessKey?}]
create function app_hidden.workflow_fetch_and_lock(worker text, max_tasks integer, topics jsonb, use_priority boolean)
  returns table (id uuid, topic text, lock_expiration timestamptz, activity_id text, execution_id text,
                 process_instance_id uuid, definition_key text, definition_version integer, business_key text,
                 case_id uuid, retries integer, error_message text, created timestamptz, variables jsonb)
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if app_public.current_user_id() is null then return; end if;
  return query
  with wanted as (
    select x.topic_name, x.lock_duration, x.variables as names, x.process_definition_key, x.business_key
      from jsonb_to_recordset(topics) as x(topic_name text, lock_duration bigint, variables jsonb, process_definition_key text, business_key text)
  ), picked as (
    select j.id, w.lock_duration, w.names
      from app_public.workflow_jobs j
      join wanted w on w.topic_name = j.topic
      join app_public.workflow_instances i on i.id = j.process_instance_id
     where j.kind = 'external' and j.failed_at is null and j.due_date = 'infinity'
       and (j.lock_expiration is null or j.lock_expiration <= now())
       and i.state = 'ACTIVE'
       and (w.process_definition_key is null or i.definition_key = w.process_definition_key)
       and (w.business_key is null or i.business_key = w.business_key)
       and (app_hidden.workflow_decide(i.definition_key, 'external-task', j.topic, j.case_id)).allowed
     -- No external task carries a priority here: usePriority orders as created.
     order by j.created, j.id
     limit greatest(max_tasks, 0)
       for update of j skip locked
  ), locked as (
    update app_public.workflow_jobs j
       set worker_id = worker, lock_expiration = now() + make_interval(secs => p.lock_duration / 1000.0)
      from picked p where j.id = p.id
    returning j.*, p.names
  )
  select l.id, l.topic, l.lock_expiration, l.activity_id, l.execution_id, l.process_instance_id,
         i.definition_key, i.definition_version, i.business_key, l.case_id, l.retries, l.last_error, l.created,
         case when l.names is null or jsonb_typeof(l.names) = 'null' then i.variables
              else coalesce((select jsonb_object_agg(n, i.variables -> n) from jsonb_array_elements_text(l.names) n
                              where i.variables ? n), '{}'::jsonb) end
    from locked l join app_public.workflow_instances i on i.id = l.process_instance_id
   order by l.created, l.id;
end;
$$;
comment on function app_hidden.workflow_fetch_and_lock(text, integer, jsonb, boolean) is
  'Locks open external tasks of the given topics for a worker, where the signed-in person may run them (Camunda fetchAndLock).';

-- The external task a worker acts on: 'not found' when the caller cannot see it or it is no longer
-- open, 'refused: <note>' when the rule says no, 'lock: <why>' when the worker does not hold it.
create function app_hidden.workflow_external_check(task_id uuid, worker text, need_lock boolean, out verdict text, out job app_public.workflow_jobs)
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  d record;
begin
  select * into job from app_public.workflow_jobs j where j.id = task_id and j.kind = 'external' and j.due_date = 'infinity' for update;
  if job.id is null or not (app_hidden.is_coordinator() or job.case_id in (select app_hidden.my_staff_case_ids())) then
    verdict := 'not found'; return;
  end if;
  select x.* into d from app_public.workflow_instances i
    cross join lateral app_hidden.workflow_decide(i.definition_key, 'external-task', job.topic, job.case_id) x
   where i.id = job.process_instance_id;
  if not d.allowed then verdict := 'refused: ' || d.note; return; end if;
  if need_lock and (job.worker_id is distinct from worker or job.lock_expiration is null or job.lock_expiration <= now()) then
    verdict := 'lock: External Task ' || task_id || ' cannot be completed by worker ''' || coalesce(worker, '') || '''. It is locked by worker '''
               || coalesce(job.worker_id, '') || '''.';
    return;
  end if;
  verdict := 'ok';
end;
$$;

-- complete: the worker that holds the lock; its variables are kept and the job becomes due, so the
-- scheduler runs the step. Variables the rule does not allow are refused by the server before.
create function app_hidden.workflow_external_complete(task_id uuid, worker text, variables jsonb) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  c record;
begin
  select * into c from app_hidden.workflow_external_check(task_id, worker, true);
  if c.verdict <> 'ok' then return c.verdict; end if;
  insert into app_private.workflow_external_completions (job_id, variables, completed_by)
  values (task_id, coalesce(variables, '{}'::jsonb), app_public.current_user_id());
  update app_public.workflow_jobs set due_date = now(), lock_expiration = null where id = task_id;
  return 'ok';
end;
$$;

-- failure: the worker that holds the lock reports an error; retries 0 makes it an incident (failed_at),
-- otherwise nobody may fetch it for retry_timeout ms.
create function app_hidden.workflow_external_failure(task_id uuid, worker text, message text, retries integer, retry_timeout bigint) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  c record;
begin
  select * into c from app_hidden.workflow_external_check(task_id, worker, true);
  if c.verdict <> 'ok' then return c.verdict; end if;
  update app_public.workflow_jobs
     set last_error = left(coalesce(message, 'The worker reported a failure.'), 2000),
         retries = workflow_external_failure.retries,
         attempts = attempts + 1,
         failed_at = case when workflow_external_failure.retries = 0 then now() end,
         worker_id = null,
         lock_expiration = case when workflow_external_failure.retries > 0 then now() + make_interval(secs => greatest(retry_timeout, 0) / 1000.0) end
   where id = task_id;
  return 'ok';
end;
$$;

-- extendLock (new_duration ms from now) and unlock (anyone the rule allows, as in Camunda).
create function app_hidden.workflow_external_lock(task_id uuid, worker text, new_duration bigint) returns text
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  c record;
begin
  select * into c from app_hidden.workflow_external_check(task_id, worker, new_duration is not null);
  if c.verdict <> 'ok' then return c.verdict; end if;
  if new_duration is null then
    update app_public.workflow_jobs set worker_id = null, lock_expiration = null where id = task_id;
  else
    update app_public.workflow_jobs set lock_expiration = now() + make_interval(secs => new_duration / 1000.0) where id = task_id;
  end if;
  return 'ok';
end;
$$;

grant execute on function app_hidden.workflow_claim_task(uuid, boolean),
  app_hidden.workflow_task_visible(app_public.workflow_tasks),
  app_hidden.workflow_task_variables(uuid),
  app_hidden.workflow_set_task_variables(uuid, jsonb),
  app_hidden.workflow_fetch_and_lock(text, integer, jsonb, boolean),
  app_hidden.workflow_external_check(uuid, text, boolean),
  app_hidden.workflow_external_complete(uuid, text, jsonb),
  app_hidden.workflow_external_failure(uuid, text, text, integer, bigint),
  app_hidden.workflow_external_lock(uuid, text, bigint) to sanad_user;

-- History of variables -------------------------------------------------------------------------------

-- GET /history/variable-instance: one row per variable of the instances whose variables the
-- signed-in person may read (read-variables rule), current values (Sanad keeps no older ones).
create function app_hidden.workflow_variable_instances(instance_ids uuid[], names text[], name_like text)
  returns table (process_instance_id uuid, case_id uuid, definition_key text, definition_version integer,
                 state text, start_time timestamptz, name text, value jsonb)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select i.id, i.case_id, i.definition_key, i.definition_version, i.state, i.start_time, v.key, v.value
    from app_public.workflow_instances i
   cross join lateral jsonb_each(i.variables) v
   where (instance_ids is null or i.id = any (instance_ids))
     and (names is null or v.key = any (names))
     and (name_like is null or v.key like name_like)
     and (app_hidden.is_coordinator() or i.case_id in (select app_hidden.my_case_ids()))
     and (app_hidden.workflow_decide(i.definition_key, 'read-variables', '*', i.case_id)).allowed
   order by i.start_time, i.id, v.key
$$;
comment on function app_hidden.workflow_variable_instances(uuid[], text[], text) is
  'The process variables the signed-in person may read, one row per variable (Camunda historic variable instances).';
grant execute on function app_hidden.workflow_variable_instances(uuid[], text[], text) to sanad_user;

-- Deployed definitions --------------------------------------------------------------------------------

-- GET /deployment and GET /process-definition/{id}/xml: the deployed versions are no case data
-- (every signed-in person reads GET /process-definition already), read without leaving the request role.
create function app_hidden.workflow_deployed_definitions(only_key text default null, only_version integer default null)
  returns table (key text, version integer, deployed_at timestamptz, source text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select d.key, d.version, d.deployed_at, d.source from app_private.workflow_definitions d
   where app_public.current_user_id() is not null
     and (only_key is null or d.key = only_key) and (only_version is null or d.version = only_version)
   order by d.deployed_at, d.key, d.version
$$;
comment on function app_hidden.workflow_deployed_definitions(text, integer) is
  'The deployed BPMN definition versions with their XML, for signed-in people (Camunda deployments and definition XML).';
grant execute on function app_hidden.workflow_deployed_definitions(text, integer) to sanad_user;
