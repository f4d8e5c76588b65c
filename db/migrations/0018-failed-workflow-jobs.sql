-- Why: a service-task handler that keeps failing (a mail server down for a day, a bug) stops
-- after WORKFLOW_MAX_ATTEMPTS and marks its job failed; the case then waits silently until
-- someone notices. The staff task list shows these stuck steps to the people who may retry them
-- (PUT /job/{id}/retries): coordinators for every case, care staff for their cases. Patients see
-- their case's timers but never the error text of a failed step.

create index workflow_jobs_failed_idx on app_public.workflow_jobs (failed_at desc, id) where failed_at is not null;

create function app_public.failed_workflow_jobs() returns setof app_public.workflow_jobs
  language sql stable
  set search_path = pg_catalog
as $$
  select j.* from app_public.workflow_jobs j
   where j.failed_at is not null
     and app_hidden.workflow_may_manage(j.case_id)
   order by j.failed_at desc, j.id
$$;
comment on function app_public.failed_workflow_jobs() is
  'Workflow steps whose handler failed too often, newest first, for the staff who may retry them.';
grant execute on function app_public.failed_workflow_jobs() to sanad_user;
