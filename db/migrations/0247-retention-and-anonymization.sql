-- Why: the stage "anonymization" only hid a case from staff lists; no data was anonymized. And
-- nothing ever removed what the platform need not keep (issue 31 items 4 and 5;
-- docs/decisions/retention-and-anonymization.md).
--   * Setting a case's stage to "anonymization" schedules its erasure (0246's erase_case) after
--     the retention period of the kind `anonymized_case_identifiers`; a legal hold postpones it.
--   * Retention per record kind (days; null keeps for ever), set by coordinators.
--   * app_hidden.run_retention(perform) is the daily job's one function: with perform = false it
--     reports what is due, with perform = true it does it; both runs are logged in
--     app_public.retention_runs.

create table app_public.retention_settings (
  record_kind text primary key constraint retention_settings_record_kind_known
    check (record_kind in ('anonymized_case_identifiers', 'notification_log', 'expired_tokens')),
  keep_days integer constraint retention_settings_keep_days_range check (keep_days between 0 and 36500),
  updated_by uuid references app_public.users (id) on delete set null,
  updated_at timestamptz not null default now()
);
comment on table app_public.retention_settings is 'How long each kind of record is kept, in days (null: kept for ever).';
create index retention_settings_updated_by_idx on app_public.retention_settings (updated_by);
insert into app_public.retention_settings (record_kind, keep_days) values
  ('anonymized_case_identifiers', 30), ('notification_log', 365), ('expired_tokens', 30);

create table app_public.case_anonymizations (
  case_id uuid primary key references app_public.cases (id) on delete cascade,
  requested_at timestamptz not null default now(),
  erased_at timestamptz
);
comment on table app_public.case_anonymizations is 'Cases set to the stage anonymization: when, and when their identifiers were erased.';

create table app_public.retention_runs (
  id uuid primary key default gen_random_uuid(),
  ran_at timestamptz not null default now(),
  performed boolean not null,
  -- [{"record_kind": …, "records": n, "cases": [...]}]: counts and case ids, never erased values
  report jsonb not null constraint retention_runs_report_object check (jsonb_typeof(report) = 'array')
);
comment on table app_public.retention_runs is 'Every run of the retention job: the report of what was due, and whether it was done.';
create index retention_runs_ran_at_idx on app_public.retention_runs (ran_at desc);

create trigger _900_audit after insert or update or delete on app_public.retention_settings
  for each row execute function app_hidden.tg_audit('-');
create trigger _900_audit after insert or update or delete on app_public.case_anonymizations
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.retention_settings enable row level security;
alter table app_public.case_anonymizations enable row level security;
alter table app_public.retention_runs enable row level security;
create policy select_coordinator on app_public.retention_settings for select to sanad_user using ((select app_hidden.is_coordinator()));
create policy select_coordinator on app_public.case_anonymizations for select to sanad_user using ((select app_hidden.is_coordinator()));
create policy select_coordinator on app_public.retention_runs for select to sanad_user using ((select app_hidden.is_coordinator()));
grant select on app_public.retention_settings, app_public.case_anonymizations, app_public.retention_runs to sanad_user;

-- A case entering the stage anonymization is scheduled (once); leaving it cancels what is not done.
create function app_hidden.tg_cases_anonymization() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.stage = 'anonymization' and (tg_op = 'INSERT' or old.stage is distinct from 'anonymization') then
    insert into app_public.case_anonymizations (case_id) values (new.id)
    on conflict (case_id) do update set requested_at = now() where app_public.case_anonymizations.erased_at is null;
  elsif tg_op = 'UPDATE' and old.stage = 'anonymization' and new.stage <> 'anonymization' then
    delete from app_public.case_anonymizations a where a.case_id = new.id and a.erased_at is null;
  end if;
  return null;
end;
$$;
create trigger _850_anonymization after insert or update of stage on app_public.cases
  for each row execute function app_hidden.tg_cases_anonymization();
insert into app_public.case_anonymizations (case_id, requested_at)
select c.id, c.updated_at from app_public.cases c where c.stage = 'anonymization';

-- Coordinators set a kind's period (null keeps for ever).
create function app_hidden.set_retention(record_kind text, keep_days integer) returns app_public.retention_settings
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  saved app_public.retention_settings;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may set retention periods.' using errcode = '42501', hint = 'forbidden';
  end if;
  update app_public.retention_settings s set keep_days = set_retention.keep_days, updated_by = app_public.current_user_id(), updated_at = now()
   where s.record_kind = set_retention.record_kind
  returning * into saved;
  if saved.record_kind is null then
    raise exception 'There is no such kind of record.' using errcode = '22023', hint = 'retention_kind_unknown';
  end if;
  return saved;
end;
$$;
grant execute on function app_hidden.set_retention(text, integer) to sanad_user;

create function app_hidden.retention_days(record_kind text) returns integer
  language sql stable security definer
  set search_path = pg_catalog
as $$ select s.keep_days from app_public.retention_settings s where s.record_kind = retention_days.record_kind $$;

-- Anonymized cases whose period has passed, not under legal hold, not yet erased.
create function app_hidden.anonymizations_due(at timestamptz) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select a.case_id from app_public.case_anonymizations a
    join app_public.cases c on c.id = a.case_id and c.stage = 'anonymization'
   where a.erased_at is null
     and app_hidden.retention_days('anonymized_case_identifiers') is not null
     and a.requested_at + make_interval(days => app_hidden.retention_days('anonymized_case_identifiers')) <= anonymizations_due.at
     and not exists (select 1 from app_public.case_legal_holds h where h.case_id = a.case_id)
   order by a.requested_at, a.case_id
$$;

-- The daily job's one function: what is due (perform = false: the report only) and doing it
-- (perform = true). Each run is logged. Runs as the owner (the job) or a coordinator.
create function app_hidden.run_retention(perform boolean, at timestamptz default now()) returns app_public.retention_runs
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  report jsonb := '[]';
  cases uuid[];
  c uuid;
  n bigint;
  days integer;
  logged app_public.retention_runs;
begin
  -- Only sanad_user may execute this, always with a person's id: a coordinator. The job runs as
  -- the owner, with no person.
  if app_public.current_user_id() is not null and not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may run the retention job.' using errcode = '42501', hint = 'forbidden';
  end if;
  -- anonymized cases: their identifiers
  select coalesce(array_agg(d), '{}') into cases from app_hidden.anonymizations_due(run_retention.at) d;
  report := report || jsonb_build_array(jsonb_build_object('record_kind', 'anonymized_case_identifiers', 'records', cardinality(cases), 'cases', to_jsonb(cases)));
  if perform then
    foreach c in array cases loop
      perform 1 from app_hidden.erase_case(c, true, 'anonymization');
      update app_public.case_anonymizations a set erased_at = now() where a.case_id = c;
    end loop;
  end if;
  -- the log of notification mails sent
  days := app_hidden.retention_days('notification_log');
  if days is not null then
    select count(*) into n from app_private.notification_log l where l.last_sent_at < run_retention.at - make_interval(days => days);
    if perform then
      delete from app_private.notification_log l where l.last_sent_at < run_retention.at - make_interval(days => days);
    end if;
  else
    n := 0;
  end if;
  report := report || jsonb_build_array(jsonb_build_object('record_kind', 'notification_log', 'records', n));
  -- sign-in tokens and mailed links past their expiry
  days := app_hidden.retention_days('expired_tokens');
  if days is not null then
    select (select count(*) from app_private.login_tokens t where t.expires_at < run_retention.at - make_interval(days => days))
         + (select count(*) from app_private.action_tokens t where t.expires_at < run_retention.at - make_interval(days => days)) into n;
    if perform then
      delete from app_private.login_tokens t where t.expires_at < run_retention.at - make_interval(days => days);
      delete from app_private.action_tokens t where t.expires_at < run_retention.at - make_interval(days => days);
    end if;
  else
    n := 0;
  end if;
  report := report || jsonb_build_array(jsonb_build_object('record_kind', 'expired_tokens', 'records', n));
  insert into app_public.retention_runs (ran_at, performed, report) values (run_retention.at, perform, report) returning * into logged;
  return logged;
end;
$$;
grant execute on function app_hidden.run_retention(boolean, timestamptz) to sanad_user;

-- The dry run of one case's anonymization: when it is due and what it will erase (coordinators).
create function app_hidden.anonymization_preview(case_id uuid) returns table (due_at timestamptz, held boolean, record_kind text, field text, records bigint)
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  due timestamptz;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may see what an anonymization will erase.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = anonymization_preview.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  select a.requested_at + make_interval(days => coalesce(app_hidden.retention_days('anonymized_case_identifiers'), 0)) into due
    from app_public.case_anonymizations a where a.case_id = anonymization_preview.case_id and a.erased_at is null;
  return query
  select due, exists (select 1 from app_public.case_legal_holds h where h.case_id = anonymization_preview.case_id), e.record_kind, e.field, e.records
    from app_hidden.erase_case(anonymization_preview.case_id, false) e;
end;
$$;
grant execute on function app_hidden.anonymization_preview(uuid) to sanad_user;
