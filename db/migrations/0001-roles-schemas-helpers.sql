-- Why: every later migration relies on the three schemas, the two request roles and the
-- identity helpers that row-level security policies call. See db/CONVENTIONS.md.

-- Request roles. Roles are cluster-wide on a PostgreSQL server, so create them only once;
-- several Sanad databases (tests, staging) may share one server.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sanad_anonymous') then
    create role sanad_anonymous nologin;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'sanad_user') then
    create role sanad_user nologin;
  end if;
end
$$;

-- The connection user (schema owner) switches to these roles per transaction.
grant sanad_anonymous to current_user;
grant sanad_user to current_user;

create extension if not exists citext;
create extension if not exists pg_trgm;
create extension if not exists btree_gist;

-- Functions are executable by PUBLIC by default; every grant in Sanad is explicit instead.
alter default privileges revoke execute on functions from public;

create schema app_public;   -- exposed through GraphQL and the REST collections
create schema app_hidden;   -- helpers the request roles may call but the APIs do not expose
create schema app_private;  -- secrets and bookkeeping, never reachable by request roles

grant usage on schema app_public to sanad_anonymous, sanad_user;
grant usage on schema app_hidden to sanad_anonymous, sanad_user;

-- The signed-in user's id, set by the server per transaction from a verified token.
create function app_public.current_user_id() returns uuid
  language sql stable
  set search_path = pg_catalog
as $$
  select nullif(current_setting('jwt.claims.user_id', true), '')::uuid
$$;
comment on function app_public.current_user_id() is 'The id of the signed-in user, or null.';
grant execute on function app_public.current_user_id() to sanad_anonymous, sanad_user;

-- Keeps updated_at true without trusting callers to set it.
create function app_hidden.tg_set_updated_at() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  new.updated_at := greatest(now(), old.updated_at + interval '1 millisecond');
  return new;
end;
$$;
