-- Why: a coordinator's case list (spec §7 CaseListWithMessageCounts, ShortPagedCases and
-- PagedCases, 100 or 200 cases a page) read and sorted every listed case (~9,800 at 10,000
-- cases) to hand out one page: case_list ended in one ORDER BY over a UNION ALL of its three
-- callers' branches. PostGraphile puts its LIMIT on the statement that joins the page's
-- computed columns laterally, and PostgreSQL plans a subquery below a join for all its rows,
-- so a sort of everything always looked cheaper than an index walk (see docs/DECISIONS.md
-- "Speed at clinic scale" and "Speed at clinic scale, second pass").
--
-- Now each kind of caller has a branch of its own with its own ORDER BY, and only one branch
-- can yield rows (the conditions on the caller, the search and the stage exclude each other;
-- they are one-time filters, checked before any row is read). A branch's rows come out in the
-- branch's order, and the UNION ALL (an Append: no function here is parallel safe) hands them
-- on branch after branch, so the list's order is unchanged without a sort over all branches:
--   - a coordinator's list without search: an index walk in list order over the listed cases
--     (all of them, or one stage's), which stops once PostGraphile has its page;
--   - a coordinator's search: the trigram matches (coordinator_case_search), best first;
--   - everyone else: their own cases (tens), searched and sorted as before.
-- Every branch ends in `limit (select null::bigint)`: a limit of "all rows" (so the answer is
-- the same) that PostgreSQL cannot read at planning time, so it plans the branch for the first
-- tenth of its rows, which picks the index walk over a sort of everything, also in the generic
-- plans PostGraphile's prepared statements get. The rows, their order and the functions'
-- signatures are those of 0032; paged_cases reads case_list and keeps its order as before.

-- Listed cases (never those in anonymization) in list order: newest first, then id.
create index cases_listed_order_idx on app_public.cases (created_at desc, id) where stage <> 'anonymization';
-- One stage's cases in list order (the stage filter of the lists).
create index cases_stage_order_idx on app_public.cases (stage, created_at desc, id);

create or replace function app_public.case_list(search text default null, stage text default null)
  returns setof app_public.cases
  language sql stable
as $$
  -- A coordinator, no search, every stage.
  (select c.* from app_public.cases c
    where (select app_hidden.is_coordinator())
      and coalesce(btrim(case_list.search), '') = ''
      and case_list.stage is null
      and c.stage <> 'anonymization'
    order by c.created_at desc, c.id
    limit (select null::bigint))
  union all
  -- A coordinator, no search, one stage.
  (select c.* from app_public.cases c
    where (select app_hidden.is_coordinator())
      and coalesce(btrim(case_list.search), '') = ''
      and c.stage = case_list.stage
      and c.stage <> 'anonymization'
    order by c.created_at desc, c.id
    limit (select null::bigint))
  union all
  -- A coordinator's search: the trigram index's matches, best first.
  (select c.* from app_public.cases c
    where (select app_hidden.is_coordinator())
      and coalesce(btrim(case_list.search), '') <> ''
      and c.id in (select app_hidden.coordinator_case_search(case_list.search))
      and c.stage <> 'anonymization'
      and (case_list.stage is null or c.stage = case_list.stage)
    order by greatest(public.word_similarity(lower(btrim(case_list.search)), c.search_text),
                      case when strpos(c.search_text, lower(btrim(case_list.search))) > 0 then 1 else 0 end) desc,
             c.created_at desc, c.id
    limit (select null::bigint))
  union all
  -- Everyone else: their own cases, searched or not.
  (select c.* from app_hidden.my_case_ids() as mine(id)
     join app_public.cases c on c.id = mine.id
    where not (select app_hidden.is_coordinator())
      and c.stage <> 'anonymization'
      and (case_list.stage is null or c.stage = case_list.stage)
      and (coalesce(btrim(case_list.search), '') = ''
           or lower(btrim(case_list.search)) operator(public.<%) c.search_text
           or strpos(c.search_text, lower(btrim(case_list.search))) > 0)
    order by
      case when coalesce(btrim(case_list.search), '') = '' then 0
           else greatest(public.word_similarity(lower(btrim(case_list.search)), c.search_text),
                         case when strpos(c.search_text, lower(btrim(case_list.search))) > 0 then 1 else 0 end) end desc,
      c.created_at desc, c.id
    limit (select null::bigint))
$$;

-- paged_cases (PagedCases, ShortPagedCases) had `set search_path`, which keeps PostgreSQL from
-- inlining a function: every call read all listed cases into a tuple store before the page
-- was cut, and the page and its totalCount each did so (27 and 35 ms for a coordinator at
-- 10,000 cases). The same body with qualified names is inlined, so the page reaches case_list's
-- branches. Unassigned: no member acts as therapist or counselor. The memberships are read as
-- the reader now, by an index probe per case, instead of through case_staff_roles (a security
-- definer call of ~13 µs per case, 130 ms for a coordinator's "unassigned only"): the answer is
-- the same, since whoever may list a case may read all its members (case_members' policy: a
-- coordinator, or a member of the case). The test stays under the OR, so it stays a filter on
-- the rows in their order (a NOT EXISTS of its own would become an anti join free to reorder).
create index case_members_care_team_idx on app_public.case_members (case_id) where acts_as_therapist or acts_as_counselor;

create or replace function app_public.paged_cases(filter_unassigned boolean default false, search text default null, stage text default null)
  returns setof app_public.cases
  language sql stable
as $$
  select c.* from app_public.case_list(paged_cases.search, paged_cases.stage) c
   where not coalesce(paged_cases.filter_unassigned, false)
      or not exists (select 1 from app_public.case_members m
                      where m.case_id = c.id and (m.acts_as_therapist or m.acts_as_counselor))
$$;
