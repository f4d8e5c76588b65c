-- Issue 34 (item 2): the login role of the request pool. Until now the server's request
-- connections logged in as the schema owner and switched down per transaction; SQL running as a
-- request role could `reset role` and be the owner again. sanad_authenticator is the role the
-- request pool logs in as: it may log in and become a request role, nothing else. NOINHERIT:
-- being a member of sanad_user gives it none of sanad_user's privileges until a transaction
-- says `set local role`, so `reset role` inside a request leaves a role that can read and
-- change no table. The owner keeps its own connections for migrations, the CLI and background
-- work (docs/decisions/authenticator-role.md).
--
-- Roles belong to the whole cluster: created when missing, its powers stated again when it exists.
-- The password is not set here: the server sets it from its configuration at start
-- (src/server/db/authenticator.ts), or the operator gives AUTHENTICATOR_DATABASE_URL.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sanad_authenticator') then
    create role sanad_authenticator login noinherit;
  end if;
end
$$;

alter role sanad_authenticator login noinherit nocreatedb nocreaterole;

-- The request roles it may become, and only those.
grant sanad_anonymous to sanad_authenticator;
grant sanad_user to sanad_authenticator;
grant sanad_scorer to sanad_authenticator;
