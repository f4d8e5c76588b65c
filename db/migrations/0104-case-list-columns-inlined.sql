-- Why: PagedCases computes its per-case columns 200 times a page, each a call of a PL/pgSQL
-- function (0102): measured at a coordinator's page, 8–15 µs of PostgreSQL CPU a call, of which
-- the statement inside is under 1 µs; the rest is the call (security definer with its setting,
-- an executor started and stopped for every statement, every relation opened again). Folding a
-- function's reader test into its one statement saved nothing (measured: docs/DECISIONS.md
-- "PagedCases columns"). What saves is no call: the same question as a subquery of the page's
-- statement, where PostgreSQL plans it once and only rescans it for each case.
--
-- These are the same rules as 0102's functions (and 0032's cases_patient), written as SQL set-returning functions without
-- settings, which PostgreSQL inlines into the statement that reads them. They run as the reader:
--   * the reader test is app_hidden.is_coordinator() and the reader's case sets, the forms the
--     policies use, evaluated once for the statement (an init plan and a hashed sub-plan), not
--     per case; they are the rules of 0102 (the coordinator flag of the reader's account, and
--     a membership of the case, any role or a staff role) in set form;
--   * a reader the test admits may read all the rows that count under the table's policy
--     (workflow_jobs' timers, phq9, safety_signals, workflow_tasks, the case's members and the
--     patient's user row: a coordinator, or a member / staff member of the case), so the
--     answer is the same as the security definer function's.
-- The GraphQL API reads nextWaitingDate, latestPhq9Item9, openSafetySignals, taskSummary and patient of a Case through
-- these (src/server/graphql/inline-columns.ts); the functions of 0102 stay, with the same
-- answers, for SQL callers. The test compares both for every reader, on real rows and rows
-- built by hand (test/integration/case-list-pages.int.test.ts).

-- A case's open timers by due date: the minimum is the first entry (without it, the minimum of
-- the inlined form may walk workflow_jobs_due_idx in date order until it meets the case).
create index workflow_jobs_case_timer_idx on app_public.workflow_jobs (case_id, due_date) where kind = 'timer' and failed_at is null;

-- 0102 cases_next_waiting_date: a coordinator or any member of the case; anyone else null.
create function app_hidden.cases_next_waiting_date_inline(c app_public.cases) returns setof timestamptz
  language sql stable
as $$
  select min(j.due_date) from app_public.workflow_jobs j
   where j.case_id = c.id and j.kind = 'timer' and j.failed_at is null
     and ((select app_hidden.is_coordinator()) or c.id in (select app_hidden.my_case_ids()))
$$;

-- 0102 cases_latest_phq9_item9: a coordinator or any member of the case; anyone else null.
create function app_hidden.cases_latest_phq9_item9_inline(c app_public.cases) returns setof integer
  language sql stable
as $$
  select r.item9 from app_public.phq9 r
   where r.case_id = c.id and r.item9 is not null
     and ((select app_hidden.is_coordinator()) or c.id in (select app_hidden.my_case_ids()))
   order by r.updated_at desc
   limit 1
$$;

-- 0102 cases_open_safety_signals: a coordinator or the case's staff get the count of its open
-- signals, anyone else null.
create function app_hidden.cases_open_safety_signals_inline(c app_public.cases) returns setof integer
  language sql stable
as $$
  select case when (select app_hidden.is_coordinator()) or c.id in (select app_hidden.my_staff_case_ids())
              then (select count(*)::integer from app_public.safety_signals s where s.case_id = c.id and s.resolved_at is null)
         end
$$;

-- 0102 cases_task_summary: a coordinator or the case's staff get the summary of the group's open
-- tasks; anyone else a summary of none (a count of zero), as before. Read in the FROM of the
-- page's statement (a lateral join), so a set of one row, as the aggregate always gives.
create function app_hidden.cases_task_summary_inline(c app_public.cases, group_name text) returns setof app_public.task_summary
  language sql stable
as $$
  select count(*)::integer,
         max(t.created),
         max(t.due),
         case when group_name = 'patients' then null else count(*) filter (where t.due < now())::integer end,
         min(t.due) filter (where t.due >= now())
    from app_public.workflow_tasks t
   where t.case_id = c.id and t.end_time is null and group_name = any (t.candidate_groups)
     and ((select app_hidden.is_coordinator()) or c.id in (select app_hidden.my_staff_case_ids()))
$$;

-- 0032 cases_patient: the case's members and coordinators see its patient. The users policy lets
-- them read that row (a member shares the case with the patient; the patient is themselves).
create function app_hidden.cases_patient_inline(c app_public.cases) returns setof app_public.users
  language sql stable
as $$
  select u.* from app_public.case_members i join app_public.users u on u.id = i.user_id
   where i.case_id = c.id and i.acts_as_patient
     and ((select app_hidden.is_coordinator()) or c.id in (select app_hidden.my_case_ids()))
$$;

comment on function app_hidden.cases_patient_inline(app_public.cases) is 'cases_patient, inlined into the statement that reads it (at most one row: one patient a case).';
comment on function app_hidden.cases_task_summary_inline(app_public.cases, text) is 'cases_task_summary, inlined into the statement that reads it (one row).';
comment on function app_hidden.cases_next_waiting_date_inline(app_public.cases) is 'cases_next_waiting_date, inlined into the statement that reads it (one row).';
comment on function app_hidden.cases_latest_phq9_item9_inline(app_public.cases) is 'cases_latest_phq9_item9, inlined into the statement that reads it (at most one row).';
comment on function app_hidden.cases_open_safety_signals_inline(app_public.cases) is 'cases_open_safety_signals, inlined into the statement that reads it (one row).';

revoke execute on function app_hidden.cases_next_waiting_date_inline(app_public.cases),
  app_hidden.cases_latest_phq9_item9_inline(app_public.cases),
  app_hidden.cases_open_safety_signals_inline(app_public.cases),
  app_hidden.cases_task_summary_inline(app_public.cases, text),
  app_hidden.cases_patient_inline(app_public.cases) from public;
grant execute on function app_hidden.cases_next_waiting_date_inline(app_public.cases),
  app_hidden.cases_latest_phq9_item9_inline(app_public.cases),
  app_hidden.cases_open_safety_signals_inline(app_public.cases),
  app_hidden.cases_task_summary_inline(app_public.cases, text),
  app_hidden.cases_patient_inline(app_public.cases) to sanad_user;
