-- Why: the interview screens poll the same reads (a person's slots, the free slots, the
-- calendar week) every 30 seconds, and each answer is hundreds of nested rows that cost GraphQL
-- far more CPU than the database. The server keeps such answers (src/server/graphql/read-cache.ts)
-- and must know, cheaply and exactly, whether anything they were built from has changed since.
-- Each cached topic has a version here, raised once by every transaction that changes one of the
-- topic's tables; a kept answer is served only while the version it was built at is current.
-- See docs/DECISIONS.md "Read cache".

create table app_private.read_versions (
  topic text primary key,
  version bigint not null default 0
);
alter table app_private.read_versions enable row level security;
comment on table app_private.read_versions is
  'One counter per cached read topic, raised by every committed change to the tables it is built from.';

insert into app_private.read_versions (topic) values ('interviews');

-- Raises the topic's version once per transaction. It runs as a deferred constraint trigger, so
-- at commit: the counter row is locked only for the last instant of the transaction, when it
-- waits for nothing else, so no lock cycle can form with the rows the transaction changed.
-- The transaction-local setting makes a bulk change one raise, not one per row.
create function app_hidden.tg_raise_read_version() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  flag text := 'sanad.read_version_raised_' || tg_argv[0];
begin
  if coalesce(current_setting(flag, true), '') <> 'on' then
    update app_private.read_versions set version = version + 1 where topic = tg_argv[0];
    perform set_config(flag, 'on', true);
  end if;
  return null;
end;
$$;
comment on function app_hidden.tg_raise_read_version() is
  'Raises app_private.read_versions for the topic named in the trigger argument, once per transaction.';

-- The interview reads are built from the slots and bookings, from who is a member of which case
-- (a patient sees the slots of their case's bookings), and from the people's names, gender and
-- roles (shown with each slot; coordinators and interviewers see more). Sign-ins and other
-- profile fields do not touch them.
create constraint trigger _950_read_version after insert or update or delete on app_public.interview_offers
  deferrable initially deferred for each row execute function app_hidden.tg_raise_read_version('interviews');
create constraint trigger _950_read_version after insert or update or delete on app_public.interview_bookings
  deferrable initially deferred for each row execute function app_hidden.tg_raise_read_version('interviews');
create constraint trigger _950_read_version after insert or update or delete on app_public.case_members
  deferrable initially deferred for each row execute function app_hidden.tg_raise_read_version('interviews');
create constraint trigger _950_read_version
  after insert or delete or update of username, gender, is_coordinator_account, is_interviewer_account on app_public.users
  deferrable initially deferred for each row execute function app_hidden.tg_raise_read_version('interviews');

-- The server reads the versions as the owner; request roles have no business with them.
revoke all on app_private.read_versions from public;
