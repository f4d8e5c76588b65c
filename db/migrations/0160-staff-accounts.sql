-- Why: coordinators manage staff accounts in the web app (issue 27, item 6): invite by mail,
-- change roles, disable (every session ends at once) and re-enable, each change recorded with
-- who made it, when, and the state before and after. Until now flags were set only with the
-- CLI. The rules live here so that every door (the REST route, a future GraphQL call, the CLI)
-- keeps them: only coordinators; staff accounts only (never a patient's); the last active
-- coordinator can be neither disabled nor lose the flag.

-- ---------------------------------------------------------------------------------------------
-- A disabled account: beside the password, where sign-in looks (never readable by requests).

alter table app_private.user_secrets add column disabled_at timestamptz;

-- ---------------------------------------------------------------------------------------------
-- Who changed which staff account, when, from what to what. Never updated (rows go only with their account); read through
-- app_hidden.staff_account_changes() by coordinators. (Account events as such are logged by the
-- users table's own triggers; this records the administrative decision and its author.)

create table app_private.staff_account_changes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references app_public.users (id) on delete cascade,
  changed_by uuid references app_public.users (id) on delete set null,
  changed_at timestamptz not null default now(),
  action text not null constraint staff_account_change_action_known check (action in ('invite', 'reinvite', 'roles', 'disable', 'enable')),
  before jsonb constraint staff_account_change_before_object check (before is null or jsonb_typeof(before) = 'object'),
  after jsonb not null constraint staff_account_change_after_object check (jsonb_typeof(after) = 'object')
);
alter table app_private.staff_account_changes enable row level security;
create index staff_account_changes_recent_idx on app_private.staff_account_changes (changed_at desc);

create function app_hidden.tg_staff_account_changes_append_only() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  raise exception 'The record of staff account changes is append-only' using errcode = '42501';
end
$$;
create trigger _100_append_only before update on app_private.staff_account_changes
  for each row execute function app_hidden.tg_staff_account_changes_append_only();

-- ---------------------------------------------------------------------------------------------
-- Helpers

-- The roles a coordinator may give, in the order the screen shows them.
create function app_hidden.staff_roles_known() returns text[]
  language sql immutable
  set search_path = pg_catalog
as $$ select array['coordinator', 'interviewer', 'therapist', 'supervisor', 'supporter', 'counselor', 'tester'] $$;

create function app_hidden.require_coordinator() returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not coalesce((select u.is_coordinator_account from app_public.users u where u.id = app_public.current_user_id()), false) then
    raise exception 'Only coordinators can manage staff accounts' using errcode = '42501', hint = 'coordinator_only';
  end if;
end
$$;

-- The state of an account as the change record keeps it.
create function app_hidden.staff_account_state(target uuid) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select jsonb_build_object(
    'roles', to_jsonb(array_remove(array[
      case when u.is_coordinator_account then 'coordinator' end,
      case when u.is_interviewer_account then 'interviewer' end,
      case when u.is_therapist_account then 'therapist' end,
      case when u.is_supervisor_account then 'supervisor' end,
      case when u.is_supporter_account then 'supporter' end,
      case when u.is_counselor_account then 'counselor' end,
      case when u.is_tester_account then 'tester' end], null)),
    'disabled', s.disabled_at is not null)
  from app_public.users u join app_private.user_secrets s on s.user_id = u.id
  where u.id = target
$$;

-- A staff account to change: exists, is a person (not the system) and not a patient's.
create function app_hidden.lock_staff_account(target uuid) returns void
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  perform 1 from app_public.users u where u.id = target and u.system_role = 'USER' and not u.is_patient_account for update;
  if not found then
    raise exception 'There is no such staff account' using errcode = 'P0002', hint = 'staff_account_not_found';
  end if;
end
$$;

-- True when no other active coordinator would be left. Coordinator rows are locked first, so
-- two coordinators removing each other at once cannot both succeed.
create function app_hidden.is_last_active_coordinator(target uuid) returns boolean
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  perform 1 from app_public.users u where u.is_coordinator_account order by u.id for update;
  return not exists (
    select 1 from app_public.users u join app_private.user_secrets s on s.user_id = u.id
     where u.is_coordinator_account and s.disabled_at is null and u.system_role = 'USER' and u.id <> target);
end
$$;

create function app_hidden.record_staff_account_change(target uuid, action text, before jsonb) returns jsonb
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  after jsonb := app_hidden.staff_account_state(target);
begin
  insert into app_private.staff_account_changes (user_id, changed_by, action, before, after)
  values (target, app_public.current_user_id(), action, before, after);
  return after;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Commands (called by the /api/staff-accounts routes as the signed-in coordinator)

comment on table app_private.staff_account_changes is 'Who changed which staff account, when, with the roles and disabled state before and after.';

create function app_hidden.staff_accounts()
  returns table (id uuid, username text, email text, alias text, roles text[], disabled boolean, invitation_pending boolean,
                 last_login timestamptz, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.require_coordinator();
  return query
    select u.id, u.username::text, u.email::text, u.alias,
           array(select jsonb_array_elements_text(app_hidden.staff_account_state(u.id) -> 'roles')),
           s.disabled_at is not null, u.email_confirmed_at is null, u.last_login, u.created_at
      from app_public.users u join app_private.user_secrets s on s.user_id = u.id
     where u.system_role = 'USER' and not u.is_patient_account
       and (u.is_coordinator_account or u.is_interviewer_account or u.is_therapist_account or u.is_supervisor_account
            or u.is_supporter_account or u.is_counselor_account or u.is_tester_account
            or exists (select 1 from app_private.staff_account_changes c where c.user_id = u.id))
     order by lower(u.username::text);
end
$$;

create function app_hidden.staff_account_changes(max_rows integer default 100)
  returns table (id uuid, user_id uuid, username text, changed_by_username text, changed_at timestamptz, action text, before jsonb, after jsonb)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.require_coordinator();
  return query
    select c.id, c.user_id, u.username::text, b.username::text, c.changed_at, c.action, c.before, c.after
      from app_private.staff_account_changes c
      join app_public.users u on u.id = c.user_id
      left join app_public.users b on b.id = c.changed_by
     order by c.changed_at desc, c.id
     limit least(greatest(max_rows, 1), 500);
end
$$;

-- Invites a staff member: the account exists without a usable password until the invited
-- person opens the mailed link (a password-reset token, made by the server) and chooses one.
create function app_hidden.invite_staff_account(username citext, email citext, alias text, roles text[], locale text, token_hash text, expires_at timestamptz)
  returns uuid
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  new_id uuid;
begin
  perform app_hidden.require_coordinator();
  if roles is null or cardinality(roles) = 0 or not (roles <@ app_hidden.staff_roles_known()) then
    raise exception 'Choose at least one staff role' using errcode = '22023', hint = 'staff_roles_invalid';
  end if;
  insert into app_public.users (username, email, alias, locale, is_coordinator_account, is_interviewer_account, is_therapist_account,
                                is_supervisor_account, is_supporter_account, is_counselor_account, is_tester_account)
  values (invite_staff_account.username, invite_staff_account.email, nullif(btrim(invite_staff_account.alias), ''), invite_staff_account.locale,
          'coordinator' = any (roles), 'interviewer' = any (roles), 'therapist' = any (roles), 'supervisor' = any (roles),
          'supporter' = any (roles), 'counselor' = any (roles), 'tester' = any (roles))
  returning id into new_id;
  -- No password hash can match the empty string: nobody signs in before choosing a password.
  insert into app_private.user_secrets (user_id, password_hash) values (new_id, '');
  insert into app_private.action_tokens (token_hash, kind, user_id, token_generation, expires_at)
  values (invite_staff_account.token_hash, 'reset_password', new_id, 0, invite_staff_account.expires_at);
  perform app_hidden.record_staff_account_change(new_id, 'invite', null);
  return new_id;
end
$$;

-- A new invitation link for an account whose owner has not chosen a password yet.
create function app_hidden.reinvite_staff_account(target uuid, token_hash text, expires_at timestamptz) returns jsonb
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  state jsonb;
begin
  perform app_hidden.require_coordinator();
  perform app_hidden.lock_staff_account(target);
  if exists (select 1 from app_public.users u where u.id = target and u.email_confirmed_at is not null) then
    raise exception 'This person has chosen a password already; they can ask for a password reset' using errcode = 'P0001', hint = 'invitation_accepted';
  end if;
  state := app_hidden.staff_account_state(target);
  insert into app_private.action_tokens (token_hash, kind, user_id, token_generation, expires_at)
  values (reinvite_staff_account.token_hash, 'reset_password', target,
          (select s.token_generation from app_private.user_secrets s where s.user_id = target), reinvite_staff_account.expires_at);
  return app_hidden.record_staff_account_change(target, 'reinvite', state);
end
$$;

create function app_hidden.set_staff_roles(target uuid, roles text[]) returns jsonb
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  before jsonb;
begin
  perform app_hidden.require_coordinator();
  if roles is null or not (roles <@ app_hidden.staff_roles_known()) then
    raise exception 'Unknown staff role' using errcode = '22023', hint = 'staff_roles_invalid';
  end if;
  perform app_hidden.lock_staff_account(target);
  before := app_hidden.staff_account_state(target);
  if before -> 'roles' = to_jsonb(array(select r from unnest(app_hidden.staff_roles_known()) r where r = any (roles))) then
    return before; -- nothing changes, nothing to record
  end if;
  if before -> 'roles' ? 'coordinator' and not ('coordinator' = any (roles)) and not (before ->> 'disabled')::boolean
     and app_hidden.is_last_active_coordinator(target) then
    raise exception 'This is the last active coordinator; give another person the coordinator role first' using errcode = 'P0001', hint = 'last_coordinator';
  end if;
  update app_public.users u
     set is_coordinator_account = 'coordinator' = any (roles), is_interviewer_account = 'interviewer' = any (roles),
         is_therapist_account = 'therapist' = any (roles), is_supervisor_account = 'supervisor' = any (roles),
         is_supporter_account = 'supporter' = any (roles), is_counselor_account = 'counselor' = any (roles),
         is_tester_account = 'tester' = any (roles)
   where u.id = target;
  return app_hidden.record_staff_account_change(target, 'roles', before);
end
$$;

-- Disables or re-enables an account. Disabling ends every session at once (the tokens are
-- revoked and mailed links of the old generation stop working); sign-in refuses it.
create function app_hidden.set_staff_disabled(target uuid, disabled boolean) returns jsonb
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  before jsonb;
begin
  perform app_hidden.require_coordinator();
  if disabled is null then
    raise exception 'Say whether the account is disabled' using errcode = '22023', hint = 'staff_disabled_invalid';
  end if;
  perform app_hidden.lock_staff_account(target);
  before := app_hidden.staff_account_state(target);
  if (before ->> 'disabled')::boolean = disabled then
    return before;
  end if;
  if disabled and target = app_public.current_user_id() then
    raise exception 'You cannot disable your own account' using errcode = 'P0001', hint = 'not_yourself';
  end if;
  if disabled and before -> 'roles' ? 'coordinator' and app_hidden.is_last_active_coordinator(target) then
    raise exception 'This is the last active coordinator and cannot be disabled' using errcode = 'P0001', hint = 'last_coordinator';
  end if;
  if disabled then
    update app_private.user_secrets s set disabled_at = now(), token_generation = s.token_generation + 1 where s.user_id = target;
    update app_private.login_tokens t set revoked_at = now() where t.user_id = target and t.revoked_at is null;
  else
    update app_private.user_secrets s set disabled_at = null where s.user_id = target;
  end if;
  return app_hidden.record_staff_account_change(target, case when disabled then 'disable' else 'enable' end, before);
end
$$;

grant execute on function
  app_hidden.staff_accounts(), app_hidden.staff_account_changes(integer),
  app_hidden.invite_staff_account(citext, citext, text, text[], text, text, timestamptz),
  app_hidden.reinvite_staff_account(uuid, text, timestamptz),
  app_hidden.set_staff_roles(uuid, text[]), app_hidden.set_staff_disabled(uuid, boolean)
  to sanad_user;
