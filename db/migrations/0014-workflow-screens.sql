-- Why: the task screens of issue 6 (/admin/tasks, /admin/tasks/{id}, /due). A coordinator may
-- see thousands of open tasks, so the staff list filters, sorts and pages in the database; /due
-- lists the open tasks that are the signed-in person's own to do; and every screen needs to know
-- whether the person may complete a task — the rule POST /api/workflow/rest/task/{id}/submit-form
-- applies (src/server/workflow/rest.ts), written once here so the screens never guess it.
-- All functions are security invoker: row-level security of 0011 decides which tasks exist.

-- Whether the signed-in person may complete a task ---------------------------------------------------

create function app_public.workflow_tasks_may_complete(t app_public.workflow_tasks) returns boolean
  language sql stable
  set search_path = pg_catalog
as $$
  select t.end_time is null
     and (app_hidden.is_coordinator()
          or coalesce(t.assignee = app_public.current_user_id()::text, false)
          or exists (select 1 from pg_catalog.unnest(t.candidate_groups) g where app_hidden.workflow_in_group(t.case_id, g)))
$$;
comment on function app_public.workflow_tasks_may_complete(app_public.workflow_tasks) is
  'Whether the signed-in person may complete this task now: it is open and they are its assignee, in one of its candidate groups in the case, or a coordinator.';

-- The staff task list ----------------------------------------------------------------------------------

create type app_public.workflow_task_sort as enum ('due', 'priority', 'created');
comment on type app_public.workflow_task_sort is
  'Order of a task list: due (soonest first, tasks without a due date last), priority (highest first) or created (newest first).';

-- Open tasks sorted by due date for the coordinator's list of all tasks.
create index workflow_tasks_open_due_idx on app_public.workflow_tasks (due, created) where end_time is null;

-- The short id of spec §3 from a case id (app_public.cases_short_id needs the case row).
create function app_hidden.task_case_short_id(case_id uuid) returns text
  language sql immutable
as $$
  select pg_catalog.substr(case_id::text, 3, 5) operator(pg_catalog.||) '…' operator(pg_catalog.||) pg_catalog.right(case_id::text, 2)
$$;

-- A typed case search: trimmed, lower case, "..." as the ellipsis; null when empty.
create function app_hidden.normalized_case_search(search text) returns text
  language sql immutable
as $$
  select nullif(pg_catalog.replace(pg_catalog.lower(pg_catalog.btrim(coalesce(search, ''))), '...', '…'), '')
$$;

-- The short-id search accepts what people copy from the screen ("3f2a1…9c"), three dots instead
-- of the ellipsis, or a whole case id. No `set search_path` (names are qualified instead): it
-- would stop PostgreSQL from inlining the function, and then every open task would be read and
-- sorted twice (page and total) before the page is cut: the first page of 10,000 open tasks took
-- 97 ms that way and 39 ms inlined (npm run bench:workflow, a busy 2-core machine).
create function app_public.open_workflow_tasks(
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
     case when open_workflow_tasks.sort = 'priority' then t.priority end desc nulls last,
     case when open_workflow_tasks.sort = 'created' then t.created end desc nulls last,
     t.due asc nulls last,
     t.created asc,
     t.id
$$;
comment on function app_public.open_workflow_tasks(timestamptz, boolean, text, text, app_public.workflow_task_sort) is
  'Open tasks the signed-in person may see, for the staff task list: due before a time, only overdue ones, of a candidate group, of cases whose short id contains a text; sorted by due date, priority or creation.';

-- Due for me ---------------------------------------------------------------------------------------------

-- Not the coordinator's right to complete any task: /due shows what is the person's own to do.
-- Inlinable like open_workflow_tasks (no search_path setting; names qualified).
create function app_public.my_due_tasks() returns setof app_public.workflow_tasks
  language sql stable
as $$
  select t.* from app_public.workflow_tasks t
   where t.end_time is null
     and (t.assignee = (select app_public.current_user_id())::text
          or ('coordinators' = any (t.candidate_groups) and (select app_hidden.is_coordinator()))
          or (t.case_id in (select app_hidden.my_case_ids())
              and exists (select 1 from pg_catalog.unnest(t.candidate_groups) g
                           where g <> 'coordinators' and app_hidden.workflow_in_group(t.case_id, g))))
   order by t.due asc nulls last, t.created asc, t.id
$$;
comment on function app_public.my_due_tasks() is
  'Open tasks that are the signed-in person''s to do: assigned to them or to a group they belong to in the case; soonest due first.';

grant execute on function app_hidden.task_case_short_id(uuid), app_hidden.normalized_case_search(text) to sanad_user;
grant execute on function app_public.workflow_tasks_may_complete(app_public.workflow_tasks),
  app_public.open_workflow_tasks(timestamptz, boolean, text, text, app_public.workflow_task_sort),
  app_public.my_due_tasks() to sanad_user;
grant usage on type app_public.workflow_task_sort to sanad_user;

-- Process variables are for the care team and coordinators -------------------------------------------

-- 0011 granted select on every column of workflow_instances, so GraphQL showed `variables` to
-- every member of a case, patients included — the randomized treatment, the interview outcome and
-- exclusion reasons before anyone told them — while GET /process-instance/{id}/variables allows
-- only the care staff and coordinators. The column is now out of the request role's reach; the
-- REST route checks may-manage as the request role and then reads the variables as the owner.
revoke select on app_public.workflow_instances from sanad_user;
grant select (id, definition_key, definition_version, business_key, case_id, state, start_time, end_time,
  waiting_messages, waiting_signals, waiting_executions, updated_at) on app_public.workflow_instances to sanad_user;
