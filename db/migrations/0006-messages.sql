-- Why: case messaging (spec §3 CaseMessage, §4 Messages, DESIGN.md §3 visibility). A sent
-- message reaches its sender and the members whose acts-as role is among its recipient groups;
-- a draft only its sender. Sent messages are part of the clinical record and never change.
-- Also the case search text and the queue of content-free mail notifications.

create table app_public.case_messages (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  sender_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  from_system boolean not null default false,
  subject text check (length(subject) <= 300),
  body text not null constraint body_not_empty check (length(btrim(body)) between 1 and 20000),
  to_interviewers boolean not null default false,
  to_patients boolean not null default false,
  to_supervisors boolean not null default false,
  to_therapists boolean not null default false,
  to_supporters boolean not null default false,
  to_counselors boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- empty while the message is a draft; set by the server when it is sent
  sent_at timestamptz,
  constraint sender_or_system check (from_system or sender_id is not null),
  constraint sent_has_recipients check (
    sent_at is null
    or to_interviewers or to_patients or to_supervisors or to_therapists or to_supporters or to_counselors
  )
);
comment on table app_public.case_messages is 'A message in a case: a draft while sent_at is empty, part of the record once sent.';
comment on column app_public.case_messages.sent_at is 'When the message was sent; empty for a draft. Set by the server.';
create index case_messages_case_sent_idx on app_public.case_messages (case_id, sent_at desc) where sent_at is not null;
create index case_messages_drafts_idx on app_public.case_messages (sender_id, case_id, created_at desc) where sent_at is null;

create trigger _100_set_updated_at before update on app_public.case_messages
  for each row execute function app_hidden.tg_set_updated_at();

alter table app_public.case_members
  add constraint case_members_favorite_message_fkey
  foreign key (favorite_message) references app_public.case_messages (id) on delete set null;

-- Which groups a member may address: a patient writes to the care team; staff to anyone.
create function app_hidden.may_address(
  case_id uuid, to_interviewers boolean, to_patients boolean, to_supervisors boolean,
  to_therapists boolean, to_supporters boolean, to_counselors boolean
) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (
    select 1 from app_public.case_members m
     where m.case_id = may_address.case_id and m.user_id = app_public.current_user_id()
       and (not m.acts_as_patient
            or m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer
            or m.acts_as_supporter or m.acts_as_counselor
            or not may_address.to_patients)
  )
$$;

-- The cases in which the signed-in person acts in a given role; one set per role keeps the
-- message policy to hashed sub-plans evaluated once per query.
create function app_hidden.my_case_ids_as(role text) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select m.case_id from app_public.case_members m
   where m.user_id = app_public.current_user_id()
     and case role
       when 'interviewer' then m.acts_as_interviewer
       when 'patient' then m.acts_as_patient
       when 'supervisor' then m.acts_as_supervisor
       when 'therapist' then m.acts_as_therapist
       when 'supporter' then m.acts_as_supporter
       when 'counselor' then m.acts_as_counselor
       else false
     end
$$;

grant execute on function app_hidden.may_address(uuid, boolean, boolean, boolean, boolean, boolean, boolean),
  app_hidden.my_case_ids_as(text) to sanad_user;

-- A sent message is stamped by the server, never by the client; an edited sent message or a
-- deleted one is refused with a clear reason (the record is not rewritten).
create function app_hidden.tg_case_messages_guard() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'DELETE' then
    if old.sent_at is not null then
      raise exception 'A sent message is part of the case record and cannot be deleted' using errcode = 'P0001', hint = 'SENT_MESSAGE_IMMUTABLE';
    end if;
    return old;
  end if;
  if tg_op = 'UPDATE' and old.sent_at is not null then
    raise exception 'A sent message is part of the case record and cannot be changed' using errcode = 'P0001', hint = 'SENT_MESSAGE_IMMUTABLE';
  end if;
  if new.sent_at is not null and (tg_op = 'INSERT' or old.sent_at is null) then
    new.sent_at := greatest(now(), new.created_at);
  end if;
  return new;
end;
$$;
create trigger _050_guard before insert or update or delete on app_public.case_messages
  for each row execute function app_hidden.tg_case_messages_guard();

-- Spec §4: the sender's last-read timestamp moves when they add or update a message.
create function app_hidden.tg_case_messages_mark_read() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.sender_id is not null and new.sender_id = app_public.current_user_id() then
    update app_public.case_members m
       set new_messages_after = greatest(m.new_messages_after, coalesce(new.sent_at, new.updated_at))
     where m.case_id = new.case_id and m.user_id = new.sender_id;
  end if;
  return null;
end;
$$;
create trigger _800_mark_read after insert or update on app_public.case_messages
  for each row execute function app_hidden.tg_case_messages_mark_read();

-- The audit trigger learns to redact: arguments starting with '!' name columns whose content
-- is never copied into the log (message text is for its recipients, and the log is read by
-- every staff member of the case). The log still shows who wrote, when and to whom.
create or replace function app_hidden.tg_audit() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  case_column text := tg_argv[0];
  extra text[] := coalesce(tg_argv[1:], '{}')::text[];
  redacted text[] := array(select substr(a, 2) from unnest(extra) a where a like '!%');
  ignored text[] := array(select a from unnest(extra) a where a not like '!%') || array['updated_at'];
  old_row jsonb := case when tg_op in ('UPDATE', 'DELETE') then to_jsonb(old) end;
  new_row jsonb := case when tg_op in ('INSERT', 'UPDATE') then to_jsonb(new) end;
  subject jsonb := coalesce(new_row, old_row);
begin
  if tg_op = 'UPDATE' and (old_row - ignored) = (new_row - ignored) then
    return null;
  end if;
  insert into app_public.audit_log (actor_id, table_name, operation, record_id, case_id, old_data, new_data)
  values (
    app_public.current_user_id(),
    tg_table_name,
    tg_op,
    (subject ->> 'id')::uuid,
    case when case_column = '-' then null else (subject ->> case_column)::uuid end,
    old_row - redacted,
    new_row - redacted
  );
  return null;
end;
$$;

create trigger _900_audit after insert or update or delete on app_public.case_messages
  for each row execute function app_hidden.tg_audit('case_id', '!subject', '!body');

-- Search text upkeep is not a change anybody made.
drop trigger _900_audit on app_public.cases;
create trigger _900_audit after insert or update or delete on app_public.cases
  for each row execute function app_hidden.tg_audit('id', 'search_text');

alter table app_public.case_messages enable row level security;

create policy select_visible on app_public.case_messages for select to sanad_user using (
  sender_id = (select app_public.current_user_id())
  or (sent_at is not null and (
       (to_interviewers and case_id in (select app_hidden.my_case_ids_as('interviewer')))
    or (to_patients and case_id in (select app_hidden.my_case_ids_as('patient')))
    or (to_supervisors and case_id in (select app_hidden.my_case_ids_as('supervisor')))
    or (to_therapists and case_id in (select app_hidden.my_case_ids_as('therapist')))
    or (to_supporters and case_id in (select app_hidden.my_case_ids_as('supporter')))
    or (to_counselors and case_id in (select app_hidden.my_case_ids_as('counselor')))
  ))
);
create policy insert_own on app_public.case_messages for insert to sanad_user with check (
  sender_id = (select app_public.current_user_id())
  and not from_system
  and app_hidden.may_address(case_id, to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters, to_counselors)
);
create policy update_own on app_public.case_messages for update to sanad_user
  using (sender_id = (select app_public.current_user_id()))
  with check (
    sender_id = (select app_public.current_user_id())
    and app_hidden.may_address(case_id, to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters, to_counselors)
  );
create policy delete_own on app_public.case_messages for delete to sanad_user
  using (sender_id = (select app_public.current_user_id()));

grant select on app_public.case_messages to sanad_user;
grant insert (case_id, subject, body, to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters,
  to_counselors, sent_at) on app_public.case_messages to sanad_user;
grant update (subject, body, to_interviewers, to_patients, to_supervisors, to_therapists, to_supporters,
  to_counselors, sent_at) on app_public.case_messages to sanad_user;
grant delete on app_public.case_messages to sanad_user;

-- Computed columns -------------------------------------------------------------------------

-- Unread: sent by someone else after my last-read time (spec §4).
create function app_public.case_messages_is_unread(m app_public.case_messages) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select m.sent_at is not null
     and m.sender_id is distinct from app_public.current_user_id()
     and exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id()
                    and m.sent_at > i.new_messages_after)
$$;

create function app_public.case_messages_is_favorite(m app_public.case_messages) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id() and i.favorite_message = m.id)
$$;

-- The signed-in person's membership in a case.
create function app_public.cases_my_involvement(c app_public.cases) returns app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select i.* from app_public.case_members i where i.case_id = c.id and i.user_id = app_public.current_user_id()
$$;

-- Everyone else in the case.
create function app_public.cases_others(c app_public.cases) returns setof app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select i.* from app_public.case_members i where i.case_id = c.id and i.user_id <> app_public.current_user_id()
   order by i.created_at
$$;

create function app_public.cases_patient(c app_public.cases) returns app_public.users
  language sql stable
  set search_path = pg_catalog
as $$
  select u.* from app_public.case_members i join app_public.users u on u.id = i.user_id
   where i.case_id = c.id and i.acts_as_patient
$$;

-- New messages for me: sent to one of my roles in this case, by someone else, after my
-- last-read time. Security definer with the visibility rule spelt out, because case lists
-- ask it for hundreds of cases at once.
create function app_public.cases_new_messages(c app_public.cases) returns integer
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select count(*)::integer
    from app_public.case_members i
    join app_public.case_messages m on m.case_id = i.case_id
   where i.case_id = c.id and i.user_id = app_public.current_user_id()
     and m.sent_at > i.new_messages_after
     and m.sender_id is distinct from i.user_id
     and ((m.to_interviewers and i.acts_as_interviewer) or (m.to_patients and i.acts_as_patient)
       or (m.to_supervisors and i.acts_as_supervisor) or (m.to_therapists and i.acts_as_therapist)
       or (m.to_supporters and i.acts_as_supporter) or (m.to_counselors and i.acts_as_counselor))
$$;

-- The newest sent message I may see (row-level security applies).
create function app_public.cases_latest_message(c app_public.cases) returns app_public.case_messages
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_messages m
   where m.case_id = c.id and m.sent_at is not null
   order by m.sent_at desc
   limit 1
$$;

-- Drafts, newest created first; sent messages, newest sent first (spec §4).
create function app_public.cases_unsent_messages(c app_public.cases) returns setof app_public.case_messages
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_messages m
   where m.case_id = c.id and m.sent_at is null
   order by m.created_at desc, m.id
$$;

create function app_public.cases_sent_messages(c app_public.cases) returns setof app_public.case_messages
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_messages m
   where m.case_id = c.id and m.sent_at is not null
   order by m.sent_at desc, m.id
$$;

grant execute on function app_public.case_messages_is_unread(app_public.case_messages),
  app_public.case_messages_is_favorite(app_public.case_messages),
  app_public.cases_my_involvement(app_public.cases), app_public.cases_others(app_public.cases),
  app_public.cases_patient(app_public.cases), app_public.cases_new_messages(app_public.cases),
  app_public.cases_latest_message(app_public.cases), app_public.cases_unsent_messages(app_public.cases),
  app_public.cases_sent_messages(app_public.cases) to sanad_user;

-- Actions -----------------------------------------------------------------------------------

-- Marks the messages of a case read up to a time (never later than now, never moving the mark
-- back: a late or repeated request cannot make read messages unread). A person who is not
-- a member gets "Not involved in this case", unless a coordinator (then nothing changes).
create function app_public.update_new_messages_after(case_id uuid, new_messages_after timestamptz)
  returns app_public.case_members
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  involvement app_public.case_members;
begin
  update app_public.case_members i
     set new_messages_after = greatest(i.new_messages_after, least(update_new_messages_after.new_messages_after, now()))
   where i.case_id = update_new_messages_after.case_id and i.user_id = app_public.current_user_id()
  returning i.* into involvement;
  if involvement.id is null and not app_hidden.is_coordinator() then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  return involvement;
end;
$$;
comment on function app_public.update_new_messages_after(uuid, timestamptz) is 'Marks the messages of a case as read up to the given time.';

-- Pins (or unpins) a message for the signed-in member of its case; one favourite per member.
create function app_public.update_favorite_message(message_id uuid, is_favorite boolean)
  returns app_public.case_members
  language plpgsql volatile
  set search_path = pg_catalog
as $$
declare
  message app_public.case_messages;
  involvement app_public.case_members;
begin
  -- Runs as the caller: the message must be visible to them under row-level security.
  select * into message from app_public.case_messages m where m.id = message_id;
  if message.id is null then
    raise exception 'This message does not exist, or you cannot see it' using errcode = 'P0001', hint = 'NOT_FOUND';
  end if;
  involvement := app_hidden.set_favorite_message(message.case_id, message.id, is_favorite);
  if involvement.id is null then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  return involvement;
end;
$$;

create function app_hidden.set_favorite_message(case_id uuid, message_id uuid, is_favorite boolean)
  returns app_public.case_members
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  update app_public.case_members i
     set favorite_message = case when is_favorite then message_id
                                 when i.favorite_message = message_id then null
                                 else i.favorite_message end
   where i.case_id = set_favorite_message.case_id and i.user_id = app_public.current_user_id()
  returning i.*
$$;

grant execute on function app_public.update_new_messages_after(uuid, timestamptz),
  app_public.update_favorite_message(uuid, boolean), app_hidden.set_favorite_message(uuid, uuid, boolean) to sanad_user;

-- Message reads by time (spec §7 AllMessagesAfter, AllMessagesInCaseAfter).
-- The parameter is "since", because "after" is the cursor argument of GraphQL connections.
create function app_public.messages_after(since timestamptz) returns setof app_public.case_messages
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_messages m
   where m.sent_at > since or (m.sent_at is null and m.updated_at > since)
   order by coalesce(m.sent_at, m.updated_at) desc, m.id
$$;

create function app_public.messages_in_case_after(case_id uuid, since timestamptz) returns setof app_public.case_messages
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_messages m
   where m.case_id = messages_in_case_after.case_id
     and (m.sent_at > since or (m.sent_at is null and m.updated_at > since))
   order by coalesce(m.sent_at, m.updated_at) desc, m.id
$$;
grant execute on function app_public.messages_after(timestamptz), app_public.messages_in_case_after(uuid, timestamptz) to sanad_user;

-- Case search -------------------------------------------------------------------------------

-- What staff search by: short id, title, and the patient's username, alias and email. Kept in
-- a column with a trigram index so that search stays fast at ten thousand cases.
alter table app_public.cases add column search_text text not null default '';
create index cases_search_trgm_idx on app_public.cases using gin (search_text gin_trgm_ops);

create function app_hidden.case_search_text(case_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select lower(concat_ws(' ',
           app_public.cases_short_id(c), c.title,
           (select string_agg(concat_ws(' ', u.username::text, u.alias, u.email::text), ' ')
              from app_public.case_members i join app_public.users u on u.id = i.user_id
             where i.case_id = c.id and i.acts_as_patient)))
    from app_public.cases c where c.id = case_search_text.case_id
$$;

create function app_hidden.tg_cases_search_text() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if tg_table_name = 'cases' then
    new.search_text := lower(concat_ws(' ', app_public.cases_short_id(new), new.title,
      (select string_agg(concat_ws(' ', u.username::text, u.alias, u.email::text), ' ')
         from app_public.case_members i join app_public.users u on u.id = i.user_id
        where i.case_id = new.id and i.acts_as_patient)));
    return new;
  elsif tg_table_name = 'case_members' then
    update app_public.cases c set search_text = app_hidden.case_search_text(c.id)
     where c.id = coalesce(new.case_id, old.case_id);
  elsif tg_table_name = 'users' then
    update app_public.cases c set search_text = app_hidden.case_search_text(c.id)
     where c.id in (select i.case_id from app_public.case_members i where i.user_id = new.id and i.acts_as_patient);
  end if;
  return null;
end;
$$;
create trigger _200_search_text before insert or update of title on app_public.cases
  for each row execute function app_hidden.tg_cases_search_text();
create trigger _200_search_text after insert or delete or update of acts_as_patient on app_public.case_members
  for each row execute function app_hidden.tg_cases_search_text();
create trigger _200_search_text after update of username, alias, email on app_public.users
  for each row execute function app_hidden.tg_cases_search_text();
update app_public.cases c set search_text = app_hidden.case_search_text(c.id);

-- How well a case matches a search (0 to 1), returned with the case list.
create function app_public.cases_search_similarity(c app_public.cases, search text) returns real
  language sql stable
  set search_path = pg_catalog, public
as $$
  select case when coalesce(btrim(search), '') = '' then 0::real
              else greatest(word_similarity(lower(btrim(search)), c.search_text),
                            case when strpos(c.search_text, lower(btrim(search))) > 0 then 1::real else 0::real end) end
$$;
grant execute on function app_public.cases_search_similarity(app_public.cases, text) to sanad_user;

-- The staff case list with message counts (spec §7 CaseListWithMessageCounts): optional
-- search (best matches first) and stage; cases in anonymization are never listed.
create function app_public.case_list(search text default null, stage text default null)
  returns setof app_public.cases
  language sql stable
  set search_path = pg_catalog, public
as $$
  select c.* from app_public.cases c
   where c.stage <> 'anonymization'
     and (case_list.stage is null or c.stage = case_list.stage)
     and (coalesce(btrim(search), '') = ''
          or lower(btrim(search)) <% c.search_text
          or strpos(c.search_text, lower(btrim(search))) > 0)
   order by
     case when coalesce(btrim(search), '') = '' then 0
          else greatest(word_similarity(lower(btrim(search)), c.search_text),
                        case when strpos(c.search_text, lower(btrim(search))) > 0 then 1 else 0 end) end desc,
     c.created_at desc, c.id
$$;
comment on function app_public.case_list(text, text) is 'Cases for the staff list: search by short id, title or patient; filter by stage.';

create function app_hidden.case_staff_roles(case_id uuid)
  returns table (acts_as_therapist boolean, acts_as_counselor boolean)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select i.acts_as_therapist, i.acts_as_counselor from app_public.case_members i where i.case_id = case_staff_roles.case_id
$$;
-- Paged case lists (spec §7 PagedCases, ShortPagedCases): as case_list, and optionally only
-- cases that have no therapist or counselor yet.
create function app_public.paged_cases(filter_unassigned boolean default false, search text default null, stage text default null)
  returns setof app_public.cases
  language sql stable
  set search_path = pg_catalog, public
as $$
  select c.* from app_public.case_list(search, stage) c
   where not coalesce(filter_unassigned, false)
      or not exists (select 1 from app_hidden.case_staff_roles(c.id) r where r.acts_as_therapist or r.acts_as_counselor)
$$;

grant execute on function app_public.case_list(text, text), app_public.paged_cases(boolean, text, text),
  app_hidden.case_staff_roles(uuid), app_hidden.case_search_text(uuid) to sanad_user;

-- Notifications ------------------------------------------------------------------------------

-- When a message is sent, each recipient is queued for a content-free mail; a worker in the
-- server sends them, at most one per recipient and case within a quiet period.
create table app_private.notification_queue (
  id bigint generated always as identity primary key,
  user_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  kind text not null default 'new_message',
  created_at timestamptz not null default now(),
  attempts integer not null default 0,
  run_after timestamptz not null default now()
);
create index notification_queue_run_idx on app_private.notification_queue (run_after);

create table app_private.notification_log (
  user_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  kind text not null,
  last_sent_at timestamptz not null,
  primary key (user_id, case_id, kind)
);
alter table app_private.notification_queue enable row level security;
alter table app_private.notification_log enable row level security;

create function app_hidden.tg_case_messages_notify() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.sent_at is not null and (tg_op = 'INSERT' or old.sent_at is null) then
    insert into app_private.notification_queue (user_id, case_id)
    select i.user_id, i.case_id from app_public.case_members i
     where i.case_id = new.case_id and i.user_id is distinct from new.sender_id
       and ((new.to_interviewers and i.acts_as_interviewer) or (new.to_patients and i.acts_as_patient)
         or (new.to_supervisors and i.acts_as_supervisor) or (new.to_therapists and i.acts_as_therapist)
         or (new.to_supporters and i.acts_as_supporter) or (new.to_counselors and i.acts_as_counselor));
  end if;
  return null;
end;
$$;
create trigger _850_notify after insert or update on app_public.case_messages
  for each row execute function app_hidden.tg_case_messages_notify();
