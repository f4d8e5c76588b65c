-- Why: a trial inspected against ICH E6(R3) must show who read a patient's records and every
-- account event (creation, role or flag change, sign-in success and failure, password and
-- second-factor changes), in logs that cannot be switched off or rewritten (issue 30). Two
-- append-only logs, partitioned by month so that years of reads stay cheap to keep and query:
--   access_log   one row per staff read request per kind of record, with the cases it touched
--   account_log  one row per account event; flag and role changes come from a trigger on
--                app_public.users, so every screen or command that changes them is logged
-- Partitions live in app_private: request roles reach the rows only through the parent's
-- policies. Rows are written by the server as the owner; no request role may insert.

-- ---------------------------------------------------------------------------------------------
-- Append-only, for every role the owner included (the same rule as the case audit log, 0004)

create function app_hidden.tg_log_append_only() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  raise exception 'The % is append-only: its rows cannot be changed or deleted', replace(tg_table_name, '_', ' ')
    using errcode = '42501';
end;
$$;

-- ---------------------------------------------------------------------------------------------
-- The access log

-- Partitioned tables take no identity column before PostgreSQL 17: a plain sequence instead.
create sequence app_public.access_log_id_seq;
create table app_public.access_log (
  id bigint not null default nextval('app_public.access_log_id_seq'),
  at timestamptz not null default clock_timestamp(),
  reader_id uuid not null,
  -- the kind of record read (src/domain/access-log.ts RECORD_KINDS)
  record_kind text not null constraint access_log_kind_format check (record_kind ~ '^[a-z][a-zA-Z]{0,39}$'),
  -- the door it was read through
  api text not null constraint access_log_api check (api in ('graphql', 'rest', 'workflow', 'export', 'screen')),
  case_ids uuid[] not null,
  primary key (at, id)
) partition by range (at);
alter sequence app_public.access_log_id_seq owned by app_public.access_log.id;
comment on table app_public.access_log is 'Append-only log of staff reads of case records: who, when, which kind of record, through which door, which cases.';
create index access_log_cases_idx on app_public.access_log using gin (case_ids);
create index access_log_reader_idx on app_public.access_log (reader_id, at desc);

create table app_private.access_log_default partition of app_public.access_log default;

-- ---------------------------------------------------------------------------------------------
-- The account log

create sequence app_public.account_log_id_seq;
create table app_public.account_log (
  id bigint not null default nextval('app_public.account_log_id_seq'),
  at timestamptz not null default clock_timestamp(),
  -- the account the event is about; null for a failed sign-in with an unknown name
  user_id uuid,
  -- who acted: the person themselves, another person, or null for the server
  actor_id uuid,
  event text not null constraint account_log_event check (event in (
    'created', 'invited', 'flags_changed', 'email_changed', 'disabled', 'enabled',
    'sign_in', 'sign_in_failed', 'signed_out', 'password_changed', 'password_reset',
    'mfa_enrolled', 'mfa_disabled', 'mfa_reset', 'mfa_recovery_used', 'mfa_failed')),
  detail jsonb not null default '{}',
  -- the client address of sign-in events
  address text constraint account_log_address_length check (length(address) <= 100),
  primary key (at, id)
) partition by range (at);
alter sequence app_public.account_log_id_seq owned by app_public.account_log.id;
comment on table app_public.account_log is 'Append-only log of account events: creation, role and flag changes, sign-ins, password and second-factor changes.';
create index account_log_user_idx on app_public.account_log (user_id, at desc);

create table app_private.account_log_default partition of app_public.account_log default;

-- Row triggers on a partitioned table reach every partition; TRUNCATE triggers do not, so
-- ensure_log_partitions adds them to each partition.
create trigger _000_append_only before update or delete on app_public.access_log
  for each row execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_public.access_log
  for each statement execute function app_hidden.tg_log_append_only();
create trigger _000_append_only before update or delete on app_public.account_log
  for each row execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_public.account_log
  for each statement execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_private.access_log_default
  for each statement execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_private.account_log_default
  for each statement execute function app_hidden.tg_log_append_only();
alter table app_private.access_log_default enable row level security;
alter table app_private.account_log_default enable row level security;

-- ---------------------------------------------------------------------------------------------
-- Monthly partitions: from last month to `months_ahead` months ahead. Rows of a month without
-- a partition land in the default partition and are kept there (never lost). Run by the
-- migration and at every server start.

create function app_hidden.ensure_log_partitions(months_ahead integer default 12) returns integer
  language plpgsql
  set search_path = pg_catalog
as $$
declare
  log text;
  month date;
  partition text;
  created integer := 0;
begin
  foreach log in array array['access_log', 'account_log'] loop
    for i in -1 .. months_ahead loop
      month := (date_trunc('month', now() at time zone 'UTC') + make_interval(months => i))::date;
      partition := format('%s_y%sm%s', log, to_char(month, 'YYYY'), to_char(month, 'MM'));
      continue when exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                             where n.nspname = 'app_private' and c.relname = partition);
      -- A month whose rows already sit in the default partition stays there.
      continue when exists (
        select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
         where i.inhparent = format('app_public.%I', log)::regclass and c.relname = log || '_default')
        and (case log
               when 'access_log' then exists (select 1 from app_private.access_log_default
                                               where at >= (month::timestamp at time zone 'UTC')
                                                 and at < ((month + interval '1 month')::timestamp at time zone 'UTC'))
               else exists (select 1 from app_private.account_log_default
                             where at >= (month::timestamp at time zone 'UTC')
                               and at < ((month + interval '1 month')::timestamp at time zone 'UTC'))
             end);
      execute format('create table app_private.%I partition of app_public.%I for values from (%L) to (%L)',
        partition, log, month::timestamp at time zone 'UTC', (month + interval '1 month')::timestamp at time zone 'UTC');
      execute format('alter table app_private.%I enable row level security', partition);
      execute format('create trigger _000_no_truncate before truncate on app_private.%I for each statement execute function app_hidden.tg_log_append_only()', partition);
      created := created + 1;
    end loop;
  end loop;
  return created;
end;
$$;
comment on function app_hidden.ensure_log_partitions(integer) is 'Creates the monthly partitions of the access and account logs up to the given number of months ahead.';

select app_hidden.ensure_log_partitions(12);

-- ---------------------------------------------------------------------------------------------
-- Who may read: coordinators read both logs whole (the case's access history screen). Nobody
-- is granted insert, update or delete; the server writes as the owner.

alter table app_public.access_log enable row level security;
alter table app_public.account_log enable row level security;
create policy select_coordinator on app_public.access_log for select to sanad_user
  using ((select app_hidden.is_coordinator()));
create policy select_coordinator on app_public.account_log for select to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.access_log, app_public.account_log to sanad_user;

-- ---------------------------------------------------------------------------------------------
-- Recording reads: one row per request and kind of record, for the cases of which the reader
-- is not the patient (a patient reading their own case is not a staff read).

create function app_hidden.record_case_reads(reader uuid, api text, kinds text[], case_lists jsonb) returns integer
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  written integer := 0;
  kind_index integer;
  ids uuid[];
begin
  if reader is null then
    return 0;
  end if;
  for kind_index in 1 .. coalesce(array_length(kinds, 1), 0) loop
    select coalesce(array_agg(distinct c.id order by c.id), '{}')
      into ids
      from jsonb_array_elements_text(case_lists -> (kind_index - 1)) as c(id)
     where not exists (select 1 from app_public.case_members m
                        where m.case_id = c.id::uuid and m.user_id = reader and m.acts_as_patient);
    -- A read that touched only the reader's own case as its patient is not logged; a read
    -- whose cases are unknown (an empty list from the start) is, with no case.
    continue when array_length(ids, 1) is null and jsonb_array_length(case_lists -> (kind_index - 1)) > 0;
    insert into app_public.access_log (reader_id, record_kind, api, case_ids)
    values (reader, kinds[kind_index], api, ids);
    written := written + 1;
  end loop;
  return written;
end;
$$;
comment on function app_hidden.record_case_reads(uuid, text, text[], jsonb) is 'Logs one read request: per kind of record, the cases it touched.';

-- ---------------------------------------------------------------------------------------------
-- Account events from the users table itself: creation and every change of an account flag,
-- role, or address, whichever screen or command made it.

create function app_hidden.tg_account_log() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  before_row jsonb;
  after_row jsonb := to_jsonb(new);
  changed jsonb := '{}';
  key text;
  actor uuid := app_public.current_user_id();
begin
  if tg_op = 'INSERT' then
    insert into app_public.account_log (user_id, actor_id, event, detail)
    values (new.id, actor, 'created',
            jsonb_build_object('flags', (select coalesce(jsonb_agg(k order by k), '[]') from jsonb_each(after_row) e(k, v)
                                         where k like 'is\_%' and v = 'true'::jsonb),
                               'system_role', new.system_role));
    return null;
  end if;
  before_row := to_jsonb(old);
  -- Flags and roles (is_*_account, is_counseling_only, system_role) and any state column an
  -- administration screen adds (disabled, disabled_at, deactivated_at, active).
  for key in select k from jsonb_object_keys(after_row) k
              where (k like 'is\_%' or k in ('system_role', 'active', 'disabled', 'disabled_at', 'deactivated_at', 'locked'))
                and (before_row -> k) is distinct from (after_row -> k) loop
    changed := changed || jsonb_build_object(key, jsonb_build_object('before', before_row -> key, 'after', after_row -> key));
  end loop;
  if changed <> '{}' then
    insert into app_public.account_log (user_id, actor_id, event, detail)
    values (new.id, actor,
            case
              when changed ?| array['disabled', 'disabled_at', 'deactivated_at', 'active']
                   and coalesce(after_row ->> 'disabled', 'false') = 'true'
                    or (after_row ? 'disabled_at' and after_row -> 'disabled_at' <> 'null'::jsonb and before_row -> 'disabled_at' = 'null'::jsonb)
                    or (after_row ? 'deactivated_at' and after_row -> 'deactivated_at' <> 'null'::jsonb and before_row -> 'deactivated_at' = 'null'::jsonb)
                    or (after_row ->> 'active' = 'false' and before_row ->> 'active' = 'true')
                then 'disabled'
              when changed ?| array['disabled', 'disabled_at', 'deactivated_at', 'active'] then 'enabled'
              else 'flags_changed'
            end,
            changed);
  end if;
  if old.email is distinct from new.email then
    insert into app_public.account_log (user_id, actor_id, event) values (new.id, actor, 'email_changed');
  end if;
  return null;
end;
$$;

create trigger _910_account_log after insert or update on app_public.users
  for each row execute function app_hidden.tg_account_log();

-- ---------------------------------------------------------------------------------------------
-- Reading the access log. Screens poll, so reads are shown grouped: per reader, kind of record
-- and door, per hour, with the number of reads and the last time. Readers are named as people
-- see them (alias, else username) with their roles, never by id.

-- The roles a reader acts in: in the case (its membership) and by account (coordinator).
create function app_hidden.reader_roles(reader uuid, of_case uuid) returns text[]
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(array_agg(role order by role), '{}') from (
    select unnest(array[
      case when m.acts_as_therapist then 'therapist' end,
      case when m.acts_as_supervisor then 'supervisor' end,
      case when m.acts_as_interviewer then 'interviewer' end,
      case when m.acts_as_supporter then 'supporter' end,
      case when m.acts_as_counselor then 'counselor' end]) as role
      from app_public.case_members m where m.case_id = of_case and m.user_id = reader
    union
    select 'coordinator' from app_public.users u where u.id = reader and u.is_coordinator_account
  ) roles where role is not null
$$;

-- Coordinators: a case's access history.
create function app_hidden.case_access_history(of_case uuid, max_rows integer default 500)
  returns table (last_at timestamptz, reads bigint, reader_name text, reader_roles text[], record_kind text, api text)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators read the access history of a case' using errcode = '42501';
  end if;
  return query
    select max(l.at), count(*), coalesce(u.alias, u.username::text, '—'), app_hidden.reader_roles(l.reader_id, of_case), l.record_kind, l.api
      from app_public.access_log l
      left join app_public.users u on u.id = l.reader_id
     where l.case_ids @> array[of_case]
     group by date_trunc('hour', l.at), l.reader_id, u.alias, u.username, l.record_kind, l.api
     order by max(l.at) desc
     limit least(greatest(max_rows, 1), 2000);
end;
$$;

-- Patients: who on the care team opened their record (their own case as its patient).
create function app_hidden.my_record_readers(max_rows integer default 500)
  returns table (last_at timestamptz, reads bigint, reader_name text, reader_roles text[], record_kind text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select max(l.at), count(*), coalesce(u.alias, u.username::text, '—'), app_hidden.reader_roles(l.reader_id, mine.case_id), l.record_kind
    from app_public.case_members mine
    join app_public.access_log l on l.case_ids @> array[mine.case_id]
    left join app_public.users u on u.id = l.reader_id
   where mine.user_id = app_public.current_user_id() and mine.acts_as_patient
   group by date_trunc('hour', l.at), l.reader_id, u.alias, u.username, mine.case_id, l.record_kind
   order by max(l.at) desc
   limit least(greatest(max_rows, 1), 2000)
$$;

grant execute on function app_hidden.case_access_history(uuid, integer),
  app_hidden.my_record_readers(integer) to sanad_user;
