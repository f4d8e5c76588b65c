-- The care-role lists of a case (cases_therapists, cases_counselors, cases_interviewers; 0060)
-- had `set search_path`, which keeps PostgreSQL from inlining a function: each call planned and
-- ran its own query, and with it case_members' policy, whose `case_id in (select my_case_ids())`
-- was built again for every call (~50 µs a call for a therapist, 12 µs for a coordinator; three
-- calls per case, 200 cases a page of PagedCases). The same bodies with qualified names are
-- inlined into the page's statement, where the policy's subplans run once. Same rows, same
-- order, same reader (the functions stay security invoker, under case_members' policy).

create or replace function app_public.cases_therapists(c app_public.cases) returns setof app_public.case_members
  language sql stable
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_therapist order by m.created_at, m.user_id
$$;

create or replace function app_public.cases_counselors(c app_public.cases) returns setof app_public.case_members
  language sql stable
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_counselor order by m.created_at, m.user_id
$$;

create or replace function app_public.cases_interviewers(c app_public.cases) returns setof app_public.case_members
  language sql stable
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_interviewer order by m.created_at, m.user_id
$$;
