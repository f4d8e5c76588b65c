-- Why: every change to case data must be traceable (who, when, what, before and after) in a
-- log that no application role can rewrite. The trigger runs as the owner, so request roles
-- need no grant on the log beyond reading what policies allow.

create table app_public.audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null default clock_timestamp(),
  actor_id uuid,
  -- the database role of the change: sanad_user for requests, the owner for CLI and server work
  actor_role text not null default current_user,
  table_name text not null,
  operation text not null check (operation in ('INSERT', 'UPDATE', 'DELETE')),
  record_id uuid,
  case_id uuid,
  old_data jsonb,
  new_data jsonb
);
comment on table app_public.audit_log is 'Append-only history of changes to case data.';
create index audit_log_case_idx on app_public.audit_log (case_id, at desc);
create index audit_log_record_idx on app_public.audit_log (record_id, at desc);

-- Append-only for everyone, the owner included: updates and deletes raise.
create function app_hidden.tg_audit_log_append_only() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  raise exception 'The audit log is append-only' using errcode = '42501';
end;
$$;
create trigger _000_append_only before update or delete on app_public.audit_log
  for each row execute function app_hidden.tg_audit_log_append_only();
create trigger _000_no_truncate before truncate on app_public.audit_log
  for each statement execute function app_hidden.tg_audit_log_append_only();

-- Generic audit trigger. Arguments: the column holding the case id ('id' for cases, '-' for
-- none), then columns whose changes alone are not worth a row (sign-in counters, timestamps).
create function app_hidden.tg_audit() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  case_column text := tg_argv[0];
  ignored text[] := coalesce(tg_argv[1:], '{}')::text[] || array['updated_at'];
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
    old_row,
    new_row
  );
  return null;
end;
$$;

create trigger _900_audit after insert or update or delete on app_public.cases
  for each row execute function app_hidden.tg_audit('id');
create trigger _900_audit after insert or update or delete on app_public.case_members
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.users
  for each row execute function app_hidden.tg_audit('-', 'last_login', 'nr_of_logins');

alter table app_public.audit_log enable row level security;
-- Staff members of a case read its log; coordinators read everything. Patients do not: the
-- log records staff work and other people's data.
create policy select_staff on app_public.audit_log for select to sanad_user using (
  (select app_hidden.is_coordinator())
  or ((select app_hidden.is_staff()) and case_id in (select app_hidden.my_case_ids()))
);
grant select on app_public.audit_log to sanad_user;
