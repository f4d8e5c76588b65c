-- Why: issue 26, "task and report lists show short ids, not patient names": a task's assignee is
-- stored as an account id (Camunda's text column), and the task screens could only say "assigned
-- to a person". This computed column gives the assignee's account as the reader may see it
-- (row-level security of app_public.users applies: no row, no name).
create function app_public.workflow_tasks_assignee_person(t app_public.workflow_tasks) returns app_public.users
  language sql stable
  set search_path = pg_catalog
as $$
  select u.* from app_public.users u where u.id::text = t.assignee
$$;
comment on function app_public.workflow_tasks_assignee_person(app_public.workflow_tasks) is
  'The account the task is assigned to, when the reader may see it.';
grant execute on function app_public.workflow_tasks_assignee_person(app_public.workflow_tasks) to sanad_user;
