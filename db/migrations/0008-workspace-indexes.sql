-- Why: the case workspace at the size of a large trial (10,000 cases, 1,500 staff, 500,000
-- messages; bench/workspace-seed.ts) was too slow: one case list cost 10 to 160 ms of database
-- time and the unread poll (GET /api/my_messages) 105 ms, so that at 32 concurrent requests they
-- took 0.3 to 3 s. EXPLAIN (ANALYZE, BUFFERS) as sanad_user (bench/workspace-explain.ts) found
-- these causes, fixed here without changing any signature, column or rule of the API:
--   1. The unread poll read all 500,000 messages: no index leads from a case to all its
--      messages (drafts included).
--   2. The case list's per-case fields (patient, latestMessage, myInvolvement, newMessages) are
--      functions PostgreSQL runs once per case. Each run planned its query again and ran the
--      row-level security sub-plans of users, case_members and case_messages again: up to
--      0.8 ms per case. They now spell out the same visibility rule as security definer
--      PL/pgSQL, whose plans are kept for the session: 10 to 40 µs per case.
--   3. case_list() and the message lists could not be inlined (their `set search_path`
--      forbids it), so every call read, checked and sorted all visible cases or messages
--      before the API took the first 100 or 50. Inlinable now, the page size reaches the plan.
--   4. Under row-level security the trigram index cannot serve a search (pg_trgm's operators
--      are not leakproof), so a coordinator's search computed word_similarity for every case.
--   5. The identity helpers the policies call were SQL functions, planned again in every
--      statement; in PL/pgSQL their plans are kept too.
-- Names from pg_trgm are qualified with `public`, where migration 0001 installed it, because
-- an inlinable function cannot pin its search_path (see cases_short_id in 0003).

-- Indexes --------------------------------------------------------------------------------------

-- All of a case's messages, drafts first then newest sent first, with every column the
-- visibility rule, the unread count and the unread list read: those run as index-only scans.
-- Replaces case_messages_case_sent_idx, which held sent messages only.
create index case_messages_case_covering_idx on app_public.case_messages (case_id, sent_at desc)
  include (id, sender_id, created_at, to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters, to_counselors);
drop index app_public.case_messages_case_sent_idx;

-- A person's messages by case, newest sent first: the newest message a coordinator sees in a case
-- they are not a member of (cases_latest_message), and the lookup behind the `on delete set null`
-- of sender_id, which otherwise reads all messages when an account is deleted.
create index case_messages_sender_idx on app_public.case_messages (sender_id, case_id, sent_at desc) include (id);

-- Identity helpers ------------------------------------------------------------------------------

-- Inlinable (no `set search_path`, only pg_catalog names): policies and functions read the
-- setting directly instead of calling a function that is planned on each call.
create or replace function app_public.current_user_id() returns uuid
  language sql stable
as $$
  select nullif(pg_catalog.current_setting('jwt.claims.user_id', true), '')::pg_catalog.uuid
$$;

create or replace function app_hidden.is_coordinator() returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return coalesce(
    (select u.is_coordinator_account from app_public.users u where u.id = app_public.current_user_id()),
    false);
end;
$$;

create or replace function app_hidden.is_staff() returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return coalesce(
    (select u.is_coordinator_account or u.is_interviewer_account or u.is_therapist_account
            or u.is_supervisor_account or u.is_supporter_account
       from app_public.users u where u.id = app_public.current_user_id()),
    false);
end;
$$;

-- Rows: a person's cases number tens (a supervisor's about a hundred), not the default
-- thousand; with the default the planner reads all cases rather than the member's few.
create or replace function app_hidden.my_case_ids() returns setof uuid
  language plpgsql stable security definer
  rows 50
  set search_path = pg_catalog
as $$
begin
  return query select m.case_id from app_public.case_members m where m.user_id = app_public.current_user_id();
end;
$$;

create or replace function app_hidden.is_member(case_id uuid) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return exists (
    select 1 from app_public.case_members m
     where m.case_id = is_member.case_id and m.user_id = app_public.current_user_id());
end;
$$;

create or replace function app_hidden.my_peer_ids() returns setof uuid
  language plpgsql stable security definer
  rows 200
  set search_path = pg_catalog
as $$
begin
  return query
  select distinct other.user_id
    from app_public.case_members mine
    join app_public.case_members other on other.case_id = mine.case_id
   where mine.user_id = app_public.current_user_id();
end;
$$;

create or replace function app_hidden.my_case_ids_as(role text) returns setof uuid
  language plpgsql stable security definer
  rows 50
  set search_path = pg_catalog
as $$
begin
  return query
  select m.case_id from app_public.case_members m
   where m.user_id = app_public.current_user_id()
     and case my_case_ids_as.role
       when 'interviewer' then m.acts_as_interviewer
       when 'patient' then m.acts_as_patient
       when 'supervisor' then m.acts_as_supervisor
       when 'therapist' then m.acts_as_therapist
       when 'supporter' then m.acts_as_supporter
       when 'counselor' then m.acts_as_counselor
       else false
     end;
end;
$$;

-- Per-case fields of the case list ---------------------------------------------------------------
-- Each is asked for up to a hundred cases per list. The visibility rule of the policies is
-- spelt out in each (as cases_new_messages in 0006 does), so that no policy sub-plan runs per
-- case. The rule, for the case `c` the caller was allowed to read:
--   * its members and the patient row: visible to the case's members and to coordinators;
--   * a message: visible to its sender, and once sent to the members acting in one of its
--     recipient groups.

-- The signed-in person's own membership: always visible to them.
create or replace function app_public.cases_my_involvement(c app_public.cases) returns app_public.case_members
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return (select i from app_public.case_members i where i.case_id = c.id and i.user_id = app_public.current_user_id());
end;
$$;

-- The patient: visible to the case's members (who share the case with them) and to coordinators.
-- One statement, with is_member() and is_coordinator() written out: a call per case counts.
create or replace function app_public.cases_patient(c app_public.cases) returns app_public.users
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return (
    select u from app_public.case_members i join app_public.users u on u.id = i.user_id
     where i.case_id = c.id and i.acts_as_patient
       and (exists (select 1 from app_public.case_members m
                     where m.case_id = c.id and m.user_id = app_public.current_user_id())
            or exists (select 1 from app_public.users k
                        where k.id = app_public.current_user_id() and k.is_coordinator_account)));
end;
$$;

-- The newest sent message the caller may see: one they sent, or one sent to a group they act
-- in here. A coordinator's list asks this for a hundred cases they are not a member of, where
-- only their own messages count: those come from the sender index instead of a walk through the
-- case's messages. The candidates' ids come from index-only scans; only the winner is read from
-- the table. One statement, because each one costs a plan execution per case.
create or replace function app_public.cases_latest_message(c app_public.cases) returns app_public.case_messages
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return (
    select m from app_public.case_messages m
     where m.id = coalesce(
       (select s.id
          from app_public.case_members i
          join app_public.case_messages s on s.case_id = i.case_id
         where i.case_id = c.id and i.user_id = app_public.current_user_id() and s.sent_at is not null
           and (s.sender_id = i.user_id
             or (s.to_interviewers and i.acts_as_interviewer) or (s.to_patients and i.acts_as_patient)
             or (s.to_supervisors and i.acts_as_supervisor) or (s.to_therapists and i.acts_as_therapist)
             or (s.to_supporters and i.acts_as_supporter) or (s.to_counselors and i.acts_as_counselor))
         order by s.sent_at desc
         limit 1),
       -- Not a member (or nothing addressed to them): only their own messages.
       (select s.id from app_public.case_messages s
         where s.sender_id = app_public.current_user_id() and s.case_id = c.id and s.sent_at is not null
         order by s.sent_at desc
         limit 1)));
end;
$$;

-- Unchanged rule (0006), in PL/pgSQL so that its plan is kept; counted from the covering index.
create or replace function app_public.cases_new_messages(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return (
    select count(*)::integer
      from app_public.case_members i
      join app_public.case_messages m on m.case_id = i.case_id
     where i.case_id = c.id and i.user_id = app_public.current_user_id()
       and m.sent_at > i.new_messages_after
       and m.sender_id is distinct from i.user_id
       and ((m.to_interviewers and i.acts_as_interviewer) or (m.to_patients and i.acts_as_patient)
         or (m.to_supervisors and i.acts_as_supervisor) or (m.to_therapists and i.acts_as_therapist)
         or (m.to_supporters and i.acts_as_supporter) or (m.to_counselors and i.acts_as_counselor)));
end;
$$;

-- Inlinable: a plain expression per case.
create or replace function app_public.cases_search_similarity(c app_public.cases, search text) returns real
  language sql stable
as $$
  select case when coalesce(btrim(search), '') = '' then 0::real
              else greatest(public.word_similarity(lower(btrim(search)), c.search_text),
                            case when strpos(c.search_text, lower(btrim(search))) > 0 then 1::real else 0::real end) end
$$;

-- Per-message fields of a case's page, asked for each of its messages: unchanged rules (0006),
-- in PL/pgSQL so that their plans are kept.
create or replace function app_public.case_messages_is_unread(m app_public.case_messages) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return m.sent_at is not null
     and m.sender_id is distinct from app_public.current_user_id()
     and exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id()
                    and m.sent_at > i.new_messages_after);
end;
$$;

create or replace function app_public.case_messages_is_favorite(m app_public.case_messages) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id() and i.favorite_message = m.id);
end;
$$;

-- Message lists of a case's page: inlinable, so that the page size reaches the index scan.
create or replace function app_public.cases_unsent_messages(c app_public.cases) returns setof app_public.case_messages
  language sql stable
as $$
  select m.* from app_public.case_messages m
   where m.case_id = c.id and m.sent_at is null
   order by m.created_at desc, m.id
$$;

create or replace function app_public.cases_sent_messages(c app_public.cases) returns setof app_public.case_messages
  language sql stable
as $$
  select m.* from app_public.case_messages m
   where m.case_id = c.id and m.sent_at is not null
   order by m.sent_at desc, m.id
$$;

-- The case list -----------------------------------------------------------------------------------
-- Same rows and order as in 0006, but inlinable (no `set search_path`), so that the API's page
-- size reaches the plan (a top-N sort instead of sorting and returning every visible case). Three
-- branches, of which each call runs one: their conditions use only the caller and the arguments,
-- so even the generic plan PostGraphile's prepared statements get after a few calls skips the
-- others at run time:
--   * a coordinator without search: all cases but those in anonymization;
--   * a coordinator searching: the matching ids from the trigram index, through
--     app_hidden.coordinator_case_search (see there);
--   * everyone else: row-level security limits them to their own cases anyway, so they are read
--     through the memberships (tens of rows) instead of checking all 10,000 cases.

-- Ids of the cases matching a search, for a coordinator (who may see every case) and for no one
-- else. It bypasses row-level security because under it PostgreSQL may not use an index for a
-- condition whose operator is not leakproof (pg_trgm's are not): the search read all 10,000
-- cases, computing word_similarity for each (80 ms). It must not tell anybody else which cases
-- exist, hence the coordinator check. The substring test is a LIKE (the search's own % _ \
-- escaped), which the index answers, where strpos would read every row. Sequential scans are
-- off inside: the planner prices word_similarity as cheap and chose to read all cases for a long
-- search term (95 ms, against 3 ms through the index). Rows 10: a search names a few cases.
create function app_hidden.coordinator_case_search(search text) returns setof uuid
  language plpgsql stable security definer
  rows 10
  set search_path = pg_catalog, public
  set enable_seqscan = off
as $$
declare
  term text := lower(btrim(search));
begin
  if coalesce(term, '') = '' or not app_hidden.is_coordinator() then
    return;
  end if;
  return query
  select c.id from app_public.cases c
   where term <% c.search_text
      or c.search_text like '%' || replace(replace(replace(term, '\', '\\'), '%', '\%'), '_', '\_') || '%';
end;
$$;
grant execute on function app_hidden.coordinator_case_search(text) to sanad_user;

create or replace function app_public.case_list(search text default null, stage text default null)
  returns setof app_public.cases
  language sql stable
as $$
  select c.* from (
      select c.* from app_public.cases c
       where (select app_hidden.is_coordinator())
         and coalesce(btrim(case_list.search), '') = ''
         and c.stage <> 'anonymization'
         and (case_list.stage is null or c.stage = case_list.stage)
      union all
      select c.* from app_public.cases c
       where (select app_hidden.is_coordinator())
         and coalesce(btrim(case_list.search), '') <> ''
         and c.id in (select app_hidden.coordinator_case_search(case_list.search))
         and c.stage <> 'anonymization'
         and (case_list.stage is null or c.stage = case_list.stage)
      union all
      select c.* from app_public.cases c
       where not (select app_hidden.is_coordinator())
         and c.id in (select app_hidden.my_case_ids())
         and c.stage <> 'anonymization'
         and (case_list.stage is null or c.stage = case_list.stage)
         and (coalesce(btrim(case_list.search), '') = ''
              or lower(btrim(case_list.search)) operator(public.<%) c.search_text
              or strpos(c.search_text, lower(btrim(case_list.search))) > 0)
    ) as c
   order by
     case when coalesce(btrim(case_list.search), '') = '' then 0
          else greatest(public.word_similarity(lower(btrim(case_list.search)), c.search_text),
                        case when strpos(c.search_text, lower(btrim(case_list.search))) > 0 then 1 else 0 end) end desc,
     c.created_at desc, c.id
$$;
