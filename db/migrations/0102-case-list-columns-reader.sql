-- Why: PagedCases runs its per-case columns 200 times a page, and after 0082/0083 most of each
-- call was finding out who reads. Called from PL/pgSQL, app_hidden.is_coordinator() is a security
-- definer call with its own settings (~4 µs), and is_case_staff() (SQL with a subquery, which
-- PostgreSQL does not inline) plans its query again at every call of the expression around it;
-- cases_next_waiting_date ran workflow_jobs' policy per call (is_coordinator() again and, for
-- staff, their staff case set built anew: ~14 µs a case for a therapist). Each function now
-- tests the reader in its own statements, as cases_patient does (0032): the coordinator flag of
-- the reader's account and their membership of the one case, by key. Same rules, answers and
-- signatures. (A helper in SQL would be planned at every call again; one in PL/pgSQL would be a
-- call with settings again: measured, both cost more than the statements written out.)

-- 0082's body; the reader tested in its own statements.
create or replace function app_public.cases_task_summary(c app_public.cases, group_name text) returns app_public.task_summary
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  allowed boolean := exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account)
                     or exists (select 1 from app_public.case_members m
                                 where m.case_id = c.id and m.user_id = me
                                   and (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter or m.acts_as_counselor));
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

-- 0082's body; the reader tested in its own statements.
create or replace function app_public.cases_latest_phq9_item9(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
begin
  if not (exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account)
          or exists (select 1 from app_public.case_members m where m.case_id = c.id and m.user_id = me)) then
    return null;
  end if;
  return (select r.item9 from app_public.phq9 r
           where r.case_id = c.id and r.item9 is not null
           order by r.updated_at desc
           limit 1);
end;
$$;

-- 0083's body (a function of 0050, clinical safety); the reader tested in its own statements.
create or replace function app_public.cases_open_safety_signals(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
begin
  if not (exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account)
          or exists (select 1 from app_public.case_members m
                         where m.case_id = c.id and m.user_id = me
                           and (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter or m.acts_as_counselor))) then
    return null;
  end if;
  return (select count(*)::integer from app_public.safety_signals s where s.case_id = c.id and s.resolved_at is null);
end;
$$;

-- The next timer of a case. 0011 read workflow_jobs as the reader, under its policy, which for a
-- timer is: a coordinator, or a member of the case (its staff, or anyone for a timer; the staff
-- of a case are members of it). The same rule checked once for the one case, by its membership
-- key; a reader it refuses gets null, as the minimum of no visible rows was.
create or replace function app_public.cases_next_waiting_date(c app_public.cases) returns timestamptz
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
begin
  if not (exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account)
          or exists (select 1 from app_public.case_members m where m.case_id = c.id and m.user_id = me)) then
    return null;
  end if;
  return (select min(j.due_date) from app_public.workflow_jobs j
           where j.case_id = c.id and j.kind = 'timer' and j.failed_at is null);
end;
$$;
