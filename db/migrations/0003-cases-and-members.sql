-- Why: the case is the shared workspace of spec §3; its members (involvements) decide who
-- sees what. The identity helpers and the row-level security of users and cases live here
-- because both depend on membership.

create table app_public.cases (
  id uuid primary key default gen_random_uuid(),
  title text check (length(title) <= 200),
  description text check (length(description) <= 10000),
  diagnosis text check (length(diagnosis) <= 2000),
  emergency_contact text check (length(emergency_contact) <= 2000),
  stage text not null default 'registration'
    constraint stage_format check (stage ~ '^[a-z][a-z0-9_-]{0,63}$'),
  is_dropout boolean not null default false,
  dropout_reason text check (length(dropout_reason) <= 2000),
  ask_for_post_if_dropped_out boolean not null default false,
  exclude_from_analysis boolean not null default false,
  reason_for_exclusion text check (length(reason_for_exclusion) <= 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app_public.cases is 'A patient''s shared workspace with their care team.';
create index cases_stage_idx on app_public.cases (stage);
create index cases_created_idx on app_public.cases (created_at desc);

create trigger _100_set_updated_at before update on app_public.cases
  for each row execute function app_hidden.tg_set_updated_at();

-- Short id of spec §3: characters 3 to 7 of the id, an ellipsis, then its last 2 characters.
-- No `set search_path` here on purpose: it would stop PostgreSQL from inlining the function
-- into case lists (4 ms per 1000 rows). It is not security definer and names pg_catalog.
create function app_public.cases_short_id(c app_public.cases) returns text
  language sql immutable
as $$
  select pg_catalog.substr(c.id::text, 3, 5) operator(pg_catalog.||) '…' operator(pg_catalog.||) pg_catalog.right(c.id::text, 2)
$$;
comment on function app_public.cases_short_id(app_public.cases) is 'The short id shown to people.';

create table app_public.case_members (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  user_id uuid not null references app_public.users (id) on delete cascade,
  acts_as_therapist boolean not null default false,
  acts_as_supervisor boolean not null default false,
  acts_as_interviewer boolean not null default false,
  acts_as_supporter boolean not null default false,
  acts_as_counselor boolean not null default false,
  acts_as_patient boolean not null default false,
  -- the last-read timestamp: messages sent after it count as new for this member (the epoch,
  -- not -infinity, so that every client can represent it)
  new_messages_after timestamptz not null default '1970-01-01 00:00:00+00',
  -- the message this member pinned; the foreign key arrives with the messages table
  favorite_message uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (case_id, user_id)
);
comment on table app_public.case_members is 'Involvement: a person in a case, with the roles they act in there.';
create index case_members_user_idx on app_public.case_members (user_id, case_id);
-- A case has exactly one patient at most.
create unique index case_members_one_patient_idx on app_public.case_members (case_id) where acts_as_patient;

create trigger _100_set_updated_at before update on app_public.case_members
  for each row execute function app_hidden.tg_set_updated_at();

-- Identity helpers. SECURITY DEFINER so that policies can consult membership without
-- recursing into the policies of case_members; search_path pinned against hijacking.
create function app_hidden.is_coordinator() returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(
    (select u.is_coordinator_account from app_public.users u where u.id = app_public.current_user_id()),
    false)
$$;

-- Staff: any of the five staff account flags (spec §6 "Definitions").
create function app_hidden.is_staff() returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(
    (select u.is_coordinator_account or u.is_interviewer_account or u.is_therapist_account
            or u.is_supervisor_account or u.is_supporter_account
       from app_public.users u where u.id = app_public.current_user_id()),
    false)
$$;

create function app_hidden.my_case_ids() returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select m.case_id from app_public.case_members m where m.user_id = app_public.current_user_id()
$$;

create function app_hidden.is_member(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (
    select 1 from app_public.case_members m
     where m.case_id = is_member.case_id and m.user_id = app_public.current_user_id())
$$;

-- People who share at least one case with the signed-in user.
create function app_hidden.my_peer_ids() returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select distinct other.user_id
    from app_public.case_members mine
    join app_public.case_members other on other.case_id = mine.case_id
   where mine.user_id = app_public.current_user_id()
$$;

grant execute on function app_hidden.is_coordinator(), app_hidden.is_staff(), app_hidden.my_case_ids(),
  app_hidden.is_member(uuid), app_hidden.my_peer_ids() to sanad_user;
grant execute on function app_public.cases_short_id(app_public.cases) to sanad_user;

alter table app_public.cases enable row level security;
alter table app_public.case_members enable row level security;

-- Users: yourself, the people in your cases, and everyone for a coordinator.
create policy select_visible on app_public.users for select to sanad_user using (
  id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or id in (select app_hidden.my_peer_ids())
);
create policy update_self on app_public.users for update to sanad_user
  using (id = (select app_public.current_user_id()))
  with check (id = (select app_public.current_user_id()));
grant select on app_public.users to sanad_user;
-- What a person may change about themselves; flags, email and consent go through
-- /api/auth or a coordinator's tools, never a plain update.
grant update (alias, phone, locale, time_zone, gender) on app_public.users to sanad_user;

-- Cases: members see their cases; a coordinator sees and manages all.
create policy select_member on app_public.cases for select to sanad_user using (
  (select app_hidden.is_coordinator()) or id in (select app_hidden.my_case_ids())
);
create policy insert_coordinator on app_public.cases for insert to sanad_user
  with check ((select app_hidden.is_coordinator()));
create policy update_coordinator on app_public.cases for update to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.cases to sanad_user;
grant insert (title, description, diagnosis, emergency_contact, stage) on app_public.cases to sanad_user;
grant update (title, description, diagnosis, emergency_contact, stage, is_dropout, dropout_reason,
  ask_for_post_if_dropped_out, exclude_from_analysis, reason_for_exclusion) on app_public.cases to sanad_user;

-- Members: visible to the case's members; managed by coordinators.
create policy select_member on app_public.case_members for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())
);
create policy insert_coordinator on app_public.case_members for insert to sanad_user
  with check ((select app_hidden.is_coordinator()));
create policy update_coordinator on app_public.case_members for update to sanad_user
  using ((select app_hidden.is_coordinator()));
create policy delete_coordinator on app_public.case_members for delete to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.case_members to sanad_user;
grant insert (case_id, user_id, acts_as_therapist, acts_as_supervisor, acts_as_interviewer, acts_as_supporter,
  acts_as_counselor, acts_as_patient) on app_public.case_members to sanad_user;
grant update (acts_as_therapist, acts_as_supervisor, acts_as_interviewer, acts_as_supporter, acts_as_counselor,
  acts_as_patient) on app_public.case_members to sanad_user;
grant delete on app_public.case_members to sanad_user;

-- The signed-in user's own row (GraphQL currentUser).
create function app_public.current_user() returns app_public.users
  language sql stable
  set search_path = pg_catalog
as $$
  select u.* from app_public.users u where u.id = app_public.current_user_id()
$$;
grant execute on function app_public.current_user() to sanad_user;

-- Coordinators' contact details for staff (spec §7 AllCoordinators). A narrow type, so the
-- function cannot be used to read any other column of a coordinator's account.
create type app_public.coordinator as (id uuid, username text, alias text, email text);
create function app_public.all_coordinators() returns setof app_public.coordinator
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select u.id, u.username::text, u.alias, u.email::text
    from app_public.users u
   where u.is_coordinator_account and app_hidden.is_staff()
   order by u.username
$$;
comment on function app_public.all_coordinators() is 'The coordinators, for staff: id, username, alias and email.';
grant execute on function app_public.all_coordinators() to sanad_user;
