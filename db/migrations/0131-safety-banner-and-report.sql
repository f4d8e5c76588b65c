-- Why: the closed safety loop (issue 26, item 1) needs two reads.
--   * The safety banner on every staff home: the open risk tasks ("respond to a risk answer")
--     the signed-in person can act on: theirs by the task's group or assignment, every one for a
--     coordinator (coordinators may complete any safety task, 0020). It came by mail only before.
--   * The coordinators' response-time report for a safety board: every risk signal with its
--     times (raised, taken on, first call, closed); the figures (median, maximum, open) are
--     computed from these rows by src/domain/safety-report.ts. Coordinators only: anyone else
--     gets no row, whatever their cases.
-- See docs/decisions/safety-loop.md.

create function app_public.my_open_risk_tasks() returns setof app_public.workflow_tasks
  language sql stable
  set search_path = pg_catalog
as $$
  select t.* from app_public.workflow_tasks t
   where t.end_time is null and t.task_definition_key = 'safetySignalTask'
     and (app_hidden.is_coordinator()
          or t.assignee = (select app_public.current_user_id())::text
          or exists (select 1 from pg_catalog.unnest(t.candidate_groups) g
                      where g <> 'coordinators' and app_hidden.workflow_in_group(t.case_id, g)))
   order by t.created, t.id
$$;
comment on function app_public.my_open_risk_tasks() is
  'Open risk tasks ("respond to a risk answer") the signed-in person can act on, oldest first: the safety banner of the staff home.';
grant execute on function app_public.my_open_risk_tasks() to sanad_user;

create function app_public.safety_response_times(raised_from timestamptz default null, raised_before timestamptz default null)
  returns setof app_public.safety_signals
  language sql stable
  set search_path = pg_catalog
as $$
  select s.* from app_public.safety_signals s
   where (select app_hidden.is_coordinator())
     and (safety_response_times.raised_from is null or s.raised_at >= safety_response_times.raised_from)
     and (safety_response_times.raised_before is null or s.raised_at < safety_response_times.raised_before)
   order by s.raised_at, s.id
$$;
comment on function app_public.safety_response_times(timestamptz, timestamptz) is
  'Every risk signal raised in the period with its times (taken on, first call, closed): the coordinators'' response-time report. Coordinators only.';
grant execute on function app_public.safety_response_times(timestamptz, timestamptz) to sanad_user;
