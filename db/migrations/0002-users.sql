-- Why: accounts (spec §3 "Full account" and the patient's exclusion flags) with their secrets
-- kept apart in app_private, so no API can ever select a password hash or a token.

create type app_public.gender as enum ('FEMALE', 'MALE', 'DIVERSE');
-- USER is a person; SYSTEM is the platform's own account, the author of system messages and
-- of actions the workflow takes on its own.
create type app_public.system_role as enum ('USER', 'SYSTEM');

-- Asking the server to convert a time is ~100x cheaper than scanning pg_timezone_names,
-- which matters because the check runs on every update of a user row (each sign-in).
create function app_hidden.is_time_zone(name text) returns boolean
  language plpgsql immutable
  set search_path = pg_catalog
as $$
begin
  perform pg_catalog.timezone(name, timestamptz '2000-01-01 00:00:00+00');
  return name !~ '^[+-]?[0-9]';
exception when others then
  return false;
end;
$$;
grant execute on function app_hidden.is_time_zone(text) to sanad_anonymous, sanad_user;

create table app_public.users (
  id uuid primary key default gen_random_uuid(),
  username citext not null unique
    constraint username_format check (username ~ '^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$'),
  email citext not null unique
    constraint email_format check (length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  alias text constraint alias_length check (length(alias) between 1 and 80),
  gender app_public.gender,
  system_role app_public.system_role not null default 'USER',
  is_patient_account boolean not null default false,
  is_therapist_account boolean not null default false,
  is_supervisor_account boolean not null default false,
  is_interviewer_account boolean not null default false,
  is_supporter_account boolean not null default false,
  is_counselor_account boolean not null default false,
  is_coordinator_account boolean not null default false,
  is_tester_account boolean not null default false,
  is_counseling_only boolean not null default false,
  registered_for_counseling boolean not null default false,
  phone text constraint phone_format check (phone ~ '^\+?[0-9 ()./-]{3,32}$'),
  last_login timestamptz,
  nr_of_logins integer not null default 0 check (nr_of_logins >= 0),
  anti_suicide_contract_at timestamptz,
  access_path_kind text check (length(access_path_kind) <= 80),
  access_path_detail text check (length(access_path_detail) <= 500),
  -- consent and confirmation flags, set at registration and on the profile
  agreed_to_terms boolean not null default false,
  agreed_to_privacy_policy boolean not null default false,
  agreed_to_research_use boolean not null default false,
  agreed_to_be_contacted boolean not null default false,
  confirmed_adult boolean not null default false,
  email_confirmed_at timestamptz,
  -- exclusion flags of spec §3 Patient, set by the screening rules or by staff
  excluded boolean not null default false,
  excluded_for_bdi_gte45 boolean not null default false,
  excluded_for_lack_of_email boolean not null default false,
  excluded_for_lack_of_internet_access boolean not null default false,
  excluded_during_interview boolean not null default false,
  excluded_for_missing_interview boolean not null default false,
  excluded_for_minor_age boolean not null default false,
  excluded_for_no_trauma_or_low_bdi boolean not null default false,
  excluded_for_upcoming_treatment boolean not null default false,
  locale text not null default 'ar' check (locale in ('ar', 'de', 'en')),
  time_zone text not null default 'UTC' constraint time_zone_known check (app_hidden.is_time_zone(time_zone)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app_public.users is 'A person with an account: patient, staff member or the system.';
comment on column app_public.users.email_confirmed_at is 'When the address was confirmed through the mailed link; sign-in needs it.';

create trigger _100_set_updated_at before update on app_public.users
  for each row execute function app_hidden.tg_set_updated_at();

create index users_coordinators_idx on app_public.users (id) where is_coordinator_account;

-- Secrets beside the public row (one-to-one), never granted to a request role.
create table app_private.user_secrets (
  user_id uuid primary key references app_public.users (id) on delete cascade,
  password_hash text not null,
  failed_attempts integer not null default 0,
  first_failed_at timestamptz,
  locked_until timestamptz,
  -- bumped on every password change: mailed reset links of an older generation stop working
  token_generation integer not null default 0
);

-- Every issued bearer token, so that signing out and changing the password revoke them.
create table app_private.login_tokens (
  id uuid primary key,
  user_id uuid not null references app_public.users (id) on delete cascade,
  expires_at timestamptz not null,
  not_before timestamptz not null default now(),
  payload jsonb not null default '{}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index login_tokens_user_idx on app_private.login_tokens (user_id) where revoked_at is null;

-- Single-use mailed links (registration confirmation, password reset, email change). Only the
-- SHA-256 of the token is kept, so a database leak does not leak working links.
create table app_private.action_tokens (
  token_hash text primary key,
  kind text not null check (kind in ('confirm_registration', 'reset_password', 'change_email')),
  user_id uuid not null references app_public.users (id) on delete cascade,
  new_email citext,
  token_generation integer not null default 0,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  check ((kind = 'change_email') = (new_email is not null))
);
create index action_tokens_user_idx on app_private.action_tokens (user_id, kind);

-- Hashed-email validity records (spec §3 Other records): which addresses were proven to
-- reach a person, and until when, kept as a keyed hash so that they outlive anonymization
-- of the account without keeping the address itself.
create table app_private.hashed_email_validity (
  email_hash text primary key,
  user_id uuid references app_public.users (id) on delete set null,
  confirmed_at timestamptz not null default now(),
  valid_until timestamptz
);

alter table app_public.users enable row level security;
alter table app_private.user_secrets enable row level security;
alter table app_private.login_tokens enable row level security;
alter table app_private.action_tokens enable row level security;
alter table app_private.hashed_email_validity enable row level security;
