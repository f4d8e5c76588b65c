-- Why: with the page cut first (0080), a staff list's cost is its per-case columns, and two of
-- PagedCases' cost far more per case than the rest (EXPLAIN ANALYZE at 10,000 cases, a
-- therapist's 40 cases): cases_task_summary ~190 µs (it builds the reader's staff case set again
-- for every case: `c.id in (select my_staff_case_ids())`) and cases_latest_phq9_item9 ~35 µs (it
-- reads phq9_records, whose reader's reach is computed again for every case). Same rules,
-- answers and signatures, in PL/pgSQL (plans kept for the session), with the reader checked
-- against the one case by its membership key.

-- Whether the signed-in person is on the staff of a case (any role but patient), by the
-- membership key: the rule of my_staff_case_ids for one case. SQL without settings, so that it
-- is inlined where it is called (by the security definer functions below and in 0083, as the
-- owner: no request role executes it).
create function app_hidden.is_case_staff(case_id uuid) returns boolean
  language sql stable
as $$
  select exists (select 1 from app_public.case_members m
                  where m.case_id = is_case_staff.case_id and m.user_id = app_public.current_user_id()
                    and (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter or m.acts_as_counselor))
$$;
revoke execute on function app_hidden.is_case_staff(uuid) from public;

-- Open tasks of a candidate group: for the staff of the case and coordinators; anyone else gets
-- the summary of no tasks (0011's rule: its count was 0, not null).
create or replace function app_public.cases_task_summary(c app_public.cases, group_name text) returns app_public.task_summary
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  allowed boolean := app_hidden.is_coordinator() or app_hidden.is_case_staff(c.id);
begin
  return (
    select row(
             count(*)::integer,
             max(t.created),
             max(t.due),
             case when group_name = 'patients' then null else count(*) filter (where t.due < now())::integer end,
             min(t.due) filter (where t.due >= now())
           )::app_public.task_summary
      from app_public.workflow_tasks t
     where allowed and t.case_id = c.id and t.end_time is null and group_name = any (t.candidate_groups));
end;
$$;

-- The latest PHQ-9 item 9 of a case, for those who may read its PHQ-9 records (phq9_records'
-- rule: the case's members and coordinators); item 9 is an answer, not a score.
create or replace function app_public.cases_latest_phq9_item9(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not (app_hidden.is_coordinator()
          or exists (select 1 from app_public.case_members m where m.case_id = c.id and m.user_id = app_public.current_user_id())) then
    return null;
  end if;
  return (select r.item9 from app_public.phq9 r
           where r.case_id = c.id and r.item9 is not null
           order by r.updated_at desc
           limit 1);
end;
$$;
