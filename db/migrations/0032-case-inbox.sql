-- Why: the case list (spec §7 CaseListWithMessageCounts, PagedCases) showed for every case of
-- a page the signed-in person's count of new messages and the newest message they may see, and
-- both were counted from the case's messages on every request: at 10,000 cases and 500,000
-- messages a page of 100 cost 90–200 ms of database time at 32 concurrent requests before the
-- API added its share (issue "Speed at clinic scale"). Here both are kept ready per member in
-- app_private.case_inbox, written in the same transaction as every change that moves them, so
-- that a page reads one indexed row per case.
--
-- What moves them: a message sent (inserted sent, or a draft sent), any change of a sent message
-- (the guard refuses those today, but an owner script could), a member added, removed, given
-- other roles, or marking messages read (new_messages_after). Drafts count for neither (a draft
-- is not new to anybody and is never the latest message), so editing or deleting a draft moves
-- nothing and costs nothing here.
--
-- Correct under concurrent writers: a change recounts the affected members from the messages
-- instead of adding and subtracting, and the recount runs while the case's row is locked
-- (FOR NO KEY UPDATE, which foreign-key checks and the case list's reads do not wait for). In
-- READ COMMITTED, which every request uses, each statement of the PL/pgSQL recount sees what
-- was committed before it started, so the last writer of a case to take the lock counts every
-- change committed before it plus its own; a writer that has not yet taken the lock will count
-- after it. Several cases are locked in id order, so two writers cannot wait for each other.
-- `npm run sanad -- rebuild-case-inbox` recounts everything (app_hidden.rebuild_case_inbox).
--
-- The readers keep their signatures and answers: cases_new_messages and cases_latest_message
-- read the kept rows (a coordinator who is not a member still sees only their own messages, as
-- before). case_list reads a person's own cases through their memberships by primary key, and
-- cases_patient checks its rule in a form that is cheap for coordinators too.

-- The kept figures ---------------------------------------------------------------------------

create table app_private.case_inbox (
  user_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- sent by someone else to one of this member's roles after their last-read time
  new_messages integer not null default 0 check (new_messages >= 0),
  -- the newest sent message this member may see (one they sent, or one sent to a role they
  -- act in here); no foreign key: sent messages are never deleted, a case's go with it (and
  -- this row too), and a key check on every recount would lock the message row
  latest_message_id uuid,
  primary key (user_id, case_id)
);
comment on table app_private.case_inbox is 'Per member of a case: new messages and the newest visible message, kept by triggers.';
create index case_inbox_case_idx on app_private.case_inbox (case_id);
-- app_private: row-level security and no policy, request roles never read it directly.
alter table app_private.case_inbox enable row level security;

-- Recounts the members of the given cases (all of them, or only the given people), with each
-- case's row locked first. Runs as the owner: the counts follow the visibility rule of the
-- message policy (0006), not what the writer may see.
create function app_hidden.refresh_case_inbox(case_ids uuid[], user_ids uuid[] default null) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  locked uuid[];
begin
  if coalesce(cardinality(case_ids), 0) = 0 then
    return;
  end if;
  -- One recount per case at a time, taken in id order; a case deleted in this transaction is
  -- not found, and its rows go with it.
  select array_agg(l.id) into locked
    from (select c.id from app_public.cases c where c.id = any(case_ids) order by c.id for no key update of c) as l;
  if locked is null then
    return;
  end if;
  -- A new statement, so a new snapshot: it sees every change committed by the writers that
  -- held these locks before.
  insert into app_private.case_inbox as b (user_id, case_id, new_messages, latest_message_id)
  select i.user_id, i.case_id,
         (select count(*)::integer from app_public.case_messages m
           where m.case_id = i.case_id and m.sent_at > i.new_messages_after
             and m.sender_id is distinct from i.user_id
             and ((m.to_interviewers and i.acts_as_interviewer) or (m.to_patients and i.acts_as_patient)
               or (m.to_supervisors and i.acts_as_supervisor) or (m.to_therapists and i.acts_as_therapist)
               or (m.to_supporters and i.acts_as_supporter) or (m.to_counselors and i.acts_as_counselor))),
         (select s.id from app_public.case_messages s
           where s.case_id = i.case_id and s.sent_at is not null
             and (s.sender_id = i.user_id
               or (s.to_interviewers and i.acts_as_interviewer) or (s.to_patients and i.acts_as_patient)
               or (s.to_supervisors and i.acts_as_supervisor) or (s.to_therapists and i.acts_as_therapist)
               or (s.to_supporters and i.acts_as_supporter) or (s.to_counselors and i.acts_as_counselor))
           order by s.sent_at desc, s.id desc
           limit 1)
    from app_public.case_members i
   where i.case_id = any(locked) and (user_ids is null or i.user_id = any(user_ids))
  on conflict (user_id, case_id) do update
    set new_messages = excluded.new_messages, latest_message_id = excluded.latest_message_id
    where (b.new_messages, b.latest_message_id) is distinct from (excluded.new_messages, excluded.latest_message_id);
  -- People who are no longer members.
  delete from app_private.case_inbox b
   where b.case_id = any(locked) and (user_ids is null or b.user_id = any(user_ids))
     and not exists (select 1 from app_public.case_members i where i.case_id = b.case_id and i.user_id = b.user_id);
end;
$$;

-- Everything again, for the operations CLI (after a bulk load with triggers off, or if ever in
-- doubt). Locks every case in id order, as the writers do, so it can run beside them.
create function app_hidden.rebuild_case_inbox() returns integer
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  all_cases uuid[];
  kept integer;
begin
  select array_agg(l.id) into all_cases
    from (select c.id from app_public.cases c order by c.id for no key update of c) as l;
  delete from app_private.case_inbox b
   where not exists (select 1 from app_public.case_members i where i.case_id = b.case_id and i.user_id = b.user_id);
  perform app_hidden.refresh_case_inbox(all_cases);
  select count(*)::integer into kept from app_private.case_inbox;
  return kept;
end;
$$;
comment on function app_hidden.rebuild_case_inbox() is 'Recounts every member''s new messages and latest message; answers the number of rows kept.';

-- Triggers ------------------------------------------------------------------------------------
-- Statement-level, with transition tables: a statement that writes many rows (a seed, a script)
-- recounts each case once, not once per row.

create function app_hidden.tg_case_inbox_messages() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  touched uuid[];
begin
  if tg_op = 'INSERT' then
    select array_agg(distinct n.case_id) into touched from new_rows n where n.sent_at is not null;
  elsif tg_op = 'DELETE' then
    select array_agg(distinct o.case_id) into touched from old_rows o where o.sent_at is not null;
  else
    -- A draft that stays a draft moves nothing.
    select array_agg(distinct t.case_id) into touched
      from old_rows o join new_rows n on n.id = o.id,
           lateral (values (o.case_id), (n.case_id)) as t(case_id)
     where (o.sent_at is not null or n.sent_at is not null)
       and (o.case_id, o.sender_id, o.sent_at, o.to_interviewers, o.to_patients, o.to_supervisors, o.to_therapists,
            o.to_supporters, o.to_counselors)
           is distinct from
           (n.case_id, n.sender_id, n.sent_at, n.to_interviewers, n.to_patients, n.to_supervisors, n.to_therapists,
            n.to_supporters, n.to_counselors);
  end if;
  perform app_hidden.refresh_case_inbox(touched);
  return null;
end;
$$;
create trigger _700_inbox_insert after insert on app_public.case_messages
  referencing new table as new_rows for each statement execute function app_hidden.tg_case_inbox_messages();
create trigger _700_inbox_update after update on app_public.case_messages
  referencing old table as old_rows new table as new_rows for each statement execute function app_hidden.tg_case_inbox_messages();
create trigger _700_inbox_delete after delete on app_public.case_messages
  referencing old table as old_rows for each statement execute function app_hidden.tg_case_inbox_messages();

create function app_hidden.tg_case_inbox_members() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  touched_cases uuid[];
  touched_users uuid[];
begin
  if tg_op = 'INSERT' then
    select array_agg(distinct n.case_id), array_agg(distinct n.user_id) into touched_cases, touched_users from new_rows n;
  elsif tg_op = 'DELETE' then
    select array_agg(distinct o.case_id), array_agg(distinct o.user_id) into touched_cases, touched_users from old_rows o;
  else
    -- Only what the counts depend on: the last-read time, the roles, who and where.
    select array_agg(distinct t.case_id), array_agg(distinct t.user_id) into touched_cases, touched_users
      from old_rows o join new_rows n on n.id = o.id,
           lateral (values (o.case_id, o.user_id), (n.case_id, n.user_id)) as t(case_id, user_id)
     where (o.case_id, o.user_id, o.new_messages_after, o.acts_as_therapist, o.acts_as_supervisor, o.acts_as_interviewer,
            o.acts_as_supporter, o.acts_as_counselor, o.acts_as_patient)
           is distinct from
           (n.case_id, n.user_id, n.new_messages_after, n.acts_as_therapist, n.acts_as_supervisor, n.acts_as_interviewer,
            n.acts_as_supporter, n.acts_as_counselor, n.acts_as_patient);
  end if;
  perform app_hidden.refresh_case_inbox(touched_cases, touched_users);
  return null;
end;
$$;
create trigger _700_inbox_insert after insert on app_public.case_members
  referencing new table as new_rows for each statement execute function app_hidden.tg_case_inbox_members();
create trigger _700_inbox_update after update on app_public.case_members
  referencing old table as old_rows new table as new_rows for each statement execute function app_hidden.tg_case_inbox_members();
create trigger _700_inbox_delete after delete on app_public.case_members
  referencing old table as old_rows for each statement execute function app_hidden.tg_case_inbox_members();

-- Readers ---------------------------------------------------------------------------------------
-- Same signatures, same answers (0008): one primary-key read per case instead of a count.

create or replace function app_public.cases_new_messages(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return coalesce(
    (select b.new_messages from app_private.case_inbox b where b.user_id = app_public.current_user_id() and b.case_id = c.id),
    0);
end;
$$;

-- A member's newest visible message is kept; someone who is not a member (a coordinator) sees
-- only messages they sent themselves, found through the sender index as before.
create or replace function app_public.cases_latest_message(c app_public.cases) returns app_public.case_messages
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  kept app_private.case_inbox;
begin
  select * into kept from app_private.case_inbox b where b.user_id = me and b.case_id = c.id;
  if found then
    return (select m from app_public.case_messages m where m.id = kept.latest_message_id);
  end if;
  return (select m from app_public.case_messages m
           where m.sender_id = me and m.case_id = c.id and m.sent_at is not null
           order by m.sent_at desc, m.id desc
           limit 1);
end;
$$;

-- The patient: same rule as 0008 (visible to the case's members and to coordinators), checked
-- first in statements of its own. 0008's single statement, with the two EXISTS joined by OR,
-- cost about 100 µs per case when the reader is a coordinator who is not a member (measured:
-- 10 ms for a page of 100), against 12 µs this way.
create or replace function app_public.cases_patient(c app_public.cases) returns app_public.users
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
begin
  if not exists (select 1 from app_public.case_members m where m.case_id = c.id and m.user_id = me)
     and not exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account) then
    return null;
  end if;
  return (select u from app_public.case_members i join app_public.users u on u.id = i.user_id
           where i.case_id = c.id and i.acts_as_patient);
end;
$$;

-- The case list ---------------------------------------------------------------------------------
-- Same rows and order as 0008. Changed: a person's own cases are joined from their memberships
-- (0008's `id in (…)` let the planner hash all 10,000 cases against them). A coordinator's
-- unfiltered list still sorts the listed cases' rows (a top-N sort, no per-case function runs
-- before the page is cut): PostgreSQL does not merge an index scan in list order with the
-- other branches for this UNION ALL (measured; see docs/DECISIONS.md "Speed at clinic scale").

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
      select c.* from app_hidden.my_case_ids() as mine(id)
        join app_public.cases c on c.id = mine.id
       where not (select app_hidden.is_coordinator())
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

-- Fill the kept figures for the data that exists.
select app_hidden.rebuild_case_inbox();
