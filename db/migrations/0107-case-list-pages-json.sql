-- Why: the web's three case lists (PagedCases, ShortPagedCases, CaseListWithMessageCounts) cost
-- the API's Node process several times what PostgreSQL spends on them: grafast plans, walks and
-- stringifies 200 rows with three nested people lists (measured: 7.8 ms of Node CPU a PagedCases
-- page, against 1.3 ms for node-postgres reading the same rows). The server answers exactly
-- these documents (src/domain/case-list-operations.ts) from these functions instead
-- (src/server/graphql/compiled-lists.ts): one statement builds the root field's JSON, which
-- Node passes on as text.
--
-- The answer must be the one PostGraphile gives, so every value is read from the same source:
--   * the rows and their order: app_public.paged_cases / app_public.case_list, cut to the page
--     (limit, offset) before anything else is computed, so a deep page costs one page;
--   * each column: the function or inlinable twin PostGraphile reads (src/server/graphql/
--     inline-columns.ts: app_hidden.*_inline of 0104–0106, cases_short_id,
--     cases_search_similarity, cases_therapists / _counselors / _interviewers), the treatment
--     assignments table, all as the reader (security invoker: RLS and the functions' own reader
--     tests decide, as they do for the GraphQL read);
--   * the formats: timestamps by PostGraphile's own to_char pattern, numbers and booleans as JSON
--     numbers and booleans, a nested object null when its row is missing (its id is null; a
--     task summary when the row is null), a list [] when empty, keys in the document's order
--     and under its aliases, no spaces (row_to_json and array_to_json are compact). Each nested
--     object is a lateral subquery without FROM (flattened into the statement: measured 15 %
--     cheaper than a scalar subquery per object).
-- test/integration/compiled-lists.int.test.ts compares both answers for every kind of reader.
--
-- PL/pgSQL, not SQL: PostgreSQL 15 plans an SQL function's statement again on every call;
-- PL/pgSQL keeps its plans per connection, and the server runs them as generic plans
-- (plan_cache_mode, docs/DECISIONS.md "Generic plans for the case lists").
-- In app_hidden, so they are not GraphQL fields.

-- The nodes of the lighter lists (CaseListWithMessageCounts and ShortPagedCases share them), in
-- the order of `listed`.
create function app_hidden.case_list_nodes_json(listed app_public.cases[], asked text) returns text
  language plpgsql stable
as $$
begin
  return (
    select coalesce(array_to_json(array_agg(to_json(node) order by p.ord))::text, '[]')
      from (select c, row_number() over () as ord from unnest(case_list_nodes_json.listed) as c) p
      left join lateral app_hidden.cases_latest_message_inline(p.c) lm on true
      left join lateral app_hidden.cases_patient_inline(p.c) pt on true
      left join lateral app_hidden.cases_my_involvement_inline(p.c) mi on true
      cross join lateral (select lm.id as "id", to_char(lm.sent_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "sentAt", lm.subject as "subject") lmo
      cross join lateral (select pt.id as "id", pt.username as "username", pt.alias as "alias") pto
      cross join lateral (select mi.id as "id", mi.acts_as_therapist as "actsAsTherapist", mi.acts_as_supervisor as "actsAsSupervisor",
                                 mi.acts_as_interviewer as "actsAsInterviewer", mi.acts_as_supporter as "actsAsSupporter",
                                 mi.acts_as_counselor as "actsAsCounselor", mi.acts_as_patient as "actsAsPatient") mio
      cross join lateral (
        select (p.c).id as "id",
               app_public.cases_short_id(p.c) as "shortId",
               (p.c).title as "title",
               (p.c).stage as "stage",
               to_char((p.c).created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
               (select v from app_hidden.cases_new_messages_inline(p.c) v) as "newMessages",
               app_public.cases_search_similarity(p.c, case_list_nodes_json.asked) as "searchSimilarity",
               (select v from app_hidden.cases_open_safety_signals_inline(p.c) v) as "openSafetySignals",
               case when lm.id is not null then to_json(lmo) end as "latestMessage",
               case when pt.id is not null then to_json(pto) end as "patient",
               case when mi.id is not null then to_json(mio) end as "myInvolvement",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select t.treatment as "treatment" from app_public.treatment_assignments t
                                  where t.case_id = (p.c).id order by t.id) o), '[]'::json) as "treatmentAssignmentsByCaseIdList"
      ) node
  );
end
$$;

-- The nodes of PagedCases, in the order of `listed`.
create function app_hidden.paged_cases_nodes_json(listed app_public.cases[], asked text) returns text
  language plpgsql stable
as $$
begin
  return (
    select coalesce(array_to_json(array_agg(to_json(node) order by p.ord))::text, '[]')
      from (select c, row_number() over () as ord from unnest(paged_cases_nodes_json.listed) as c) p
      left join lateral app_hidden.cases_patient_inline(p.c) pt on true
      left join lateral app_hidden.cases_my_involvement_inline(p.c) mi on true
      left join lateral app_hidden.cases_task_summary_inline(p.c, 'patients') pts on true
      left join lateral app_hidden.cases_task_summary_inline(p.c, 'therapists') tts on true
      cross join lateral (select pt.id as "id", pt.username as "username", pt.alias as "alias") pto
      cross join lateral (select mi.id as "id", mi.acts_as_therapist as "actsAsTherapist", mi.acts_as_supervisor as "actsAsSupervisor",
                                 mi.acts_as_interviewer as "actsAsInterviewer", mi.acts_as_supporter as "actsAsSupporter",
                                 mi.acts_as_counselor as "actsAsCounselor", mi.acts_as_patient as "actsAsPatient") mio
      cross join lateral (select pts.count_of_open as "countOfOpen",
                                 to_char(pts.latest_due, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "latestDue",
                                 to_char(pts.next_time, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "nextTime") ptso
      cross join lateral (select tts.count_of_open as "countOfOpen", tts.count_of_overdue as "countOfOverdue") ttso
      cross join lateral (
        select (p.c).id as "id",
               app_public.cases_short_id(p.c) as "shortId",
               (p.c).title as "title",
               (p.c).stage as "stage",
               to_char((p.c).created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
               (select v from app_hidden.cases_new_messages_inline(p.c) v) as "newMessages",
               app_public.cases_search_similarity(p.c, paged_cases_nodes_json.asked) as "searchSimilarity",
               (select v from app_hidden.cases_open_safety_signals_inline(p.c) v) as "openSafetySignals",
               (p.c).is_dropout as "isDropout",
               (p.c).exclude_from_analysis as "excludeFromAnalysis",
               case when pt.id is not null then to_json(pto) end as "patient",
               case when mi.id is not null then to_json(mio) end as "myInvolvement",
               case when not (pts is null) then to_json(ptso) end as "patientTasks",
               case when not (tts is null) then to_json(ttso) end as "therapistTasks",
               to_char((select v from app_hidden.cases_next_waiting_date_inline(p.c) v), 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "nextWaitingDate",
               (select v from app_hidden.cases_latest_phq9_item9_inline(p.c) v) as "latestPhq9Item9",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select t.id as "id", to_char(t.assigned_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "assignedAt", t.treatment as "treatment"
                                   from app_public.treatment_assignments t where t.case_id = (p.c).id
                                  order by t.assigned_at, t.id limit 1) o), '[]'::json) as "treatmentAssignmentsByCaseIdList",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id",
                                        case when u.id is not null then to_json(x) end as "user"
                                   from app_public.cases_therapists(p.c) m
                                   left join lateral app_hidden.case_members_person_inline(m) u on true
                                   cross join lateral (select u.id as "id", u.username as "username", u.alias as "alias") x
                                  limit 10) o), '[]'::json) as "therapistsList",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id",
                                        case when u.id is not null then to_json(x) end as "user"
                                   from app_public.cases_counselors(p.c) m
                                   left join lateral app_hidden.case_members_person_inline(m) u on true
                                   cross join lateral (select u.id as "id", u.username as "username", u.alias as "alias") x
                                  limit 10) o), '[]'::json) as "counselorsList",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id",
                                        case when u.id is not null then to_json(x) end as "user"
                                   from app_public.cases_interviewers(p.c) m
                                   left join lateral app_hidden.case_members_person_inline(m) u on true
                                   cross join lateral (select u.id as "id", u.username as "username", u.alias as "alias") x
                                  limit 10) o), '[]'::json) as "interviewersList"
      ) node
  );
end
$$;

-- The root field pagedCases of PagedCases (with_details) or ShortPagedCases: {"totalCount":…,"nodes":[…]}.
create function app_hidden.paged_cases_page_json(filter_unassigned boolean, search text, stage text, first integer, "offset" integer, with_details boolean)
  returns text
  language plpgsql stable
as $$
declare
  listed app_public.cases[] := array(
    select c from app_public.paged_cases(paged_cases_page_json.filter_unassigned, paged_cases_page_json.search, paged_cases_page_json.stage) c
     limit paged_cases_page_json.first offset paged_cases_page_json."offset");
begin
  return '{"totalCount":'
    || (select count(*) from app_public.paged_cases(paged_cases_page_json.filter_unassigned, paged_cases_page_json.search, paged_cases_page_json.stage))
    || ',"nodes":'
    || case when paged_cases_page_json.with_details then app_hidden.paged_cases_nodes_json(listed, paged_cases_page_json.search)
            else app_hidden.case_list_nodes_json(listed, paged_cases_page_json.search) end
    || '}';
end
$$;

-- The root field caseList of CaseListWithMessageCounts: {"totalCount":…,"nodes":[…]}.
create function app_hidden.case_list_page_json(search text, stage text, first integer, "offset" integer)
  returns text
  language plpgsql stable
as $$
declare
  listed app_public.cases[] := array(
    select c from app_public.case_list(case_list_page_json.search, case_list_page_json.stage) c
     limit case_list_page_json.first offset case_list_page_json."offset");
begin
  return '{"totalCount":'
    || (select count(*) from app_public.case_list(case_list_page_json.search, case_list_page_json.stage))
    || ',"nodes":' || app_hidden.case_list_nodes_json(listed, case_list_page_json.search)
    || '}';
end
$$;

comment on function app_hidden.case_list_nodes_json(app_public.cases[], text) is 'The nodes of CaseListWithMessageCounts and ShortPagedCases as PostGraphile answers them, for the cases given, as the reader.';
comment on function app_hidden.paged_cases_nodes_json(app_public.cases[], text) is 'The nodes of PagedCases as PostGraphile answers them, for the cases given, as the reader.';
comment on function app_hidden.paged_cases_page_json(boolean, text, text, integer, integer, boolean) is 'pagedCases of the web''s PagedCases (with_details) or ShortPagedCases, as JSON text (src/domain/case-list-operations.ts).';
comment on function app_hidden.case_list_page_json(text, text, integer, integer) is 'caseList of the web''s CaseListWithMessageCounts, as JSON text (src/domain/case-list-operations.ts).';

revoke execute on function app_hidden.case_list_nodes_json(app_public.cases[], text),
  app_hidden.paged_cases_nodes_json(app_public.cases[], text),
  app_hidden.paged_cases_page_json(boolean, text, text, integer, integer, boolean),
  app_hidden.case_list_page_json(text, text, integer, integer) from public;
grant execute on function app_hidden.case_list_nodes_json(app_public.cases[], text),
  app_hidden.paged_cases_nodes_json(app_public.cases[], text),
  app_hidden.paged_cases_page_json(boolean, text, text, integer, integer, boolean),
  app_hidden.case_list_page_json(text, text, integer, integer) to sanad_user;
