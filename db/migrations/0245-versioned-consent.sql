-- Why: consent was a set of flags set at registration; nothing recorded which text in which
-- language a participant agreed to, and nothing asked again when the protocol changed (issue 31,
-- item 1; docs/decisions/versioned-consent.md).
--
--   * consent_versions / consent_texts: the consent document, one numbered version with a text
--     per language. Coordinators write drafts; a published version never changes again.
--   * case_consents: what a patient agreed to: version, language, the text as shown (the
--     printable record), the time (timestamptz, UTC) and how their identity was confirmed.
--   * consent_requests: publishing a version marked major asks exactly the affected participants
--     (a consent to an earlier version, still collecting data) to consent again; until they do,
--     the questionnaire and worksheet tables refuse their new data (consent_required).
-- Cases without any consent record (registered before this migration, or while no version was
-- published) keep their registration flags and are neither asked nor gated.

create table app_public.consent_versions (
  id uuid primary key default gen_random_uuid(),
  version integer not null constraint consent_versions_version_range check (version between 1 and 100000),
  status text not null default 'draft' constraint consent_versions_status_known check (status in ('draft', 'published')),
  major boolean not null default false,
  change_note text constraint consent_versions_change_note_length check (length(change_note) between 1 and 2000),
  created_by uuid references app_public.users (id) on delete set null,
  created_at timestamptz not null default now(),
  published_by uuid references app_public.users (id) on delete set null,
  published_at timestamptz,
  constraint consent_versions_version_key unique (version),
  constraint consent_versions_published_format check ((status = 'published') = (published_at is not null))
);
comment on table app_public.consent_versions is 'Versions of the consent document; a published version is final.';
create index consent_versions_created_by_idx on app_public.consent_versions (created_by);
create index consent_versions_published_by_idx on app_public.consent_versions (published_by);

create table app_public.consent_texts (
  version_id uuid not null references app_public.consent_versions (id) on delete cascade,
  language_code text not null constraint consent_texts_language_known check (language_code in ('ar', 'de', 'en')),
  title text not null constraint consent_texts_title_length check (length(btrim(title)) between 1 and 200),
  body text not null constraint consent_texts_body_length check (length(btrim(body)) between 1 and 100000),
  editor_id uuid references app_public.users (id) on delete set null,
  updated_at timestamptz not null default now(),
  primary key (version_id, language_code)
);
comment on table app_public.consent_texts is 'The consent document of a version in one language.';
create index consent_texts_editor_idx on app_public.consent_texts (editor_id);

create table app_public.case_consents (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  user_id uuid not null references app_public.users (id) on delete cascade,
  version_id uuid not null references app_public.consent_versions (id),
  version integer not null,
  language_code text not null,
  -- The document exactly as shown: the printable record is made from these.
  title text not null,
  body text not null,
  agreed_at timestamptz not null default now(),
  identity_method text not null constraint case_consents_identity_method_known check (identity_method in ('email_link', 'typed_username', 'password')),
  identity_confirmed_at timestamptz
);
comment on table app_public.case_consents is 'What a patient agreed to: version, language, text, time and identity confirmation.';
create index case_consents_case_idx on app_public.case_consents (case_id, agreed_at desc);
create index case_consents_user_idx on app_public.case_consents (user_id);
create index case_consents_version_idx on app_public.case_consents (version_id);

create table app_public.consent_requests (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  version_id uuid not null references app_public.consent_versions (id),
  requested_at timestamptz not null default now(),
  answered_at timestamptz,
  answered_by_consent uuid references app_public.case_consents (id) on delete set null,
  constraint consent_requests_case_version_key unique (case_id, version_id)
);
comment on table app_public.consent_requests is 'A participant asked to consent again after a major amendment; open until answered.';
create index consent_requests_open_idx on app_public.consent_requests (case_id) where answered_at is null;
create index consent_requests_version_idx on app_public.consent_requests (version_id);
create index consent_requests_consent_idx on app_public.consent_requests (answered_by_consent);

create trigger _900_audit after insert or update or delete on app_public.case_consents
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.consent_requests
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.consent_versions
  for each row execute function app_hidden.tg_audit('-');
create trigger _900_audit after insert or update or delete on app_public.consent_texts
  for each row execute function app_hidden.tg_audit('-');

-- Row-level security ---------------------------------------------------------------------------

alter table app_public.consent_versions enable row level security;
alter table app_public.consent_texts enable row level security;
alter table app_public.case_consents enable row level security;
alter table app_public.consent_requests enable row level security;

-- Everyone may read published versions (registration shows them before anyone signs in);
-- coordinators also read drafts.
create policy select_published on app_public.consent_versions for select to sanad_anonymous
  using (status = 'published');
create policy select_published on app_public.consent_texts for select to sanad_anonymous
  using (exists (select 1 from app_public.consent_versions v where v.id = version_id and v.status = 'published'));
create policy select_user on app_public.consent_versions for select to sanad_user
  using (status = 'published' or (select app_hidden.is_coordinator()));
create policy select_user on app_public.consent_texts for select to sanad_user
  using (exists (select 1 from app_public.consent_versions v where v.id = version_id and v.status = 'published')
         or (select app_hidden.is_coordinator()));
grant select on app_public.consent_versions to sanad_user, sanad_anonymous;
grant select on app_public.consent_texts to sanad_user, sanad_anonymous;

-- Coordinators write the texts of drafts; the trigger below keeps published texts final.
create policy write_coordinator on app_public.consent_texts for insert to sanad_user
  with check ((select app_hidden.is_coordinator()));
create policy update_coordinator on app_public.consent_texts for update to sanad_user
  using ((select app_hidden.is_coordinator()));
create policy delete_coordinator on app_public.consent_texts for delete to sanad_user
  using ((select app_hidden.is_coordinator()));
grant insert (version_id, language_code, title, body), update (title, body), delete on app_public.consent_texts to sanad_user;

-- The patient reads their own consents; the case's staff and coordinators read the case's.
create policy select_case on app_public.case_consents for select to sanad_user
  using ((select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids()));
grant select on app_public.case_consents to sanad_user;
create policy select_case on app_public.consent_requests for select to sanad_user
  using ((select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids()));
grant select on app_public.consent_requests to sanad_user;

-- A published version's texts are final; so is its number, status and kind.
create function app_hidden.tg_consent_texts_final() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
declare
  target uuid := case when tg_op = 'DELETE' then old.version_id else new.version_id end;
begin
  if exists (select 1 from app_public.consent_versions v
              where v.status = 'published' and (v.id = target or (tg_op = 'UPDATE' and v.id = old.version_id))) then
    raise exception 'This consent version is published and can no longer be changed; make a new version instead.'
      using errcode = '55000', hint = 'consent_version_published';
  end if;
  if tg_op = 'DELETE' then
    return old;
  end if;
  new.editor_id := app_public.current_user_id();
  new.updated_at := now();
  return new;
end;
$$;
create trigger _100_final before insert or update or delete on app_public.consent_texts
  for each row execute function app_hidden.tg_consent_texts_final();

-- Versions -------------------------------------------------------------------------------------

-- The newest published version (what registration shows and what a participant is asked for).
create function app_hidden.current_consent_version() returns app_public.consent_versions
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select v.* from app_public.consent_versions v where v.status = 'published' order by v.version desc limit 1
$$;
grant execute on function app_hidden.current_consent_version() to sanad_user, sanad_anonymous;

-- A new draft, with the texts of the newest version to start from (coordinators).
create function app_hidden.create_consent_draft() returns app_public.consent_versions
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  made app_public.consent_versions;
  latest uuid;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may write consent documents.' using errcode = '42501', hint = 'forbidden';
  end if;
  if exists (select 1 from app_public.consent_versions v where v.status = 'draft') then
    raise exception 'A draft version exists already; edit or publish it first.' using errcode = '55000', hint = 'consent_draft_exists';
  end if;
  select v.id into latest from app_public.consent_versions v order by v.version desc limit 1;
  insert into app_public.consent_versions (version, created_by)
  values (coalesce((select max(v.version) from app_public.consent_versions v), 0) + 1, app_public.current_user_id())
  returning * into made;
  insert into app_public.consent_texts (version_id, language_code, title, body, editor_id)
  select made.id, t.language_code, t.title, t.body, app_public.current_user_id()
    from app_public.consent_texts t where t.version_id = latest;
  return made;
end;
$$;
grant execute on function app_hidden.create_consent_draft() to sanad_user;

-- Whose consent a new major version touches: patients who consented to an earlier version and
-- whose data collection goes on (not ended, excluded, withdrawn from new data or anonymized).
-- 0246 adds the withdrawals to this rule.
create function app_hidden.consent_affected_cases(version integer) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select distinct cc.case_id
    from app_public.case_consents cc
    join app_public.cases c on c.id = cc.case_id
   where c.stage not in ('finished', 'excluded', 'anonymization')
     and not exists (select 1 from app_public.case_consents later
                      where later.case_id = cc.case_id and later.version >= consent_affected_cases.version)
$$;

-- Publishes a draft; a major version asks exactly the affected participants to consent again.
create function app_hidden.publish_consent_version(version_id uuid, major boolean, change_note text) returns app_public.consent_versions
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  target app_public.consent_versions;
  missing text[];
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may publish consent documents.' using errcode = '42501', hint = 'forbidden';
  end if;
  if change_note is null or length(btrim(change_note)) = 0 or length(change_note) > 2000 then
    raise exception 'Say what changed (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  select v.* into target from app_public.consent_versions v where v.id = publish_consent_version.version_id for update;
  if target.id is null then
    raise exception 'There is no such consent version.' using errcode = 'P0002', hint = 'consent_version_unknown';
  end if;
  if target.status = 'published' then
    raise exception 'This consent version is published already.' using errcode = '55000', hint = 'consent_version_published';
  end if;
  select array_agg(l order by l) into missing from unnest(array['ar', 'de', 'en']) l
   where not exists (select 1 from app_public.consent_texts t where t.version_id = target.id and t.language_code = l);
  if missing is not null then
    raise exception 'The consent text is missing in: %.', array_to_string(missing, ', ') using errcode = '55000', hint = 'consent_texts_missing';
  end if;
  update app_public.consent_versions v
     set status = 'published', major = publish_consent_version.major, change_note = btrim(publish_consent_version.change_note),
         published_by = app_public.current_user_id(), published_at = now()
   where v.id = target.id
  returning * into target;
  if target.major then
    insert into app_public.consent_requests (case_id, version_id)
    select a, target.id from app_hidden.consent_affected_cases(target.version) a
    on conflict do nothing;
  end if;
  return target;
end;
$$;
grant execute on function app_hidden.publish_consent_version(uuid, boolean, text) to sanad_user;

-- Recording a consent --------------------------------------------------------------------------

-- The one door for a consent record: the version must be the current published one, the text
-- must exist in the language; answers the case's open requests. Called by registration (as the
-- owner) and by app_hidden.give_consent (a signed-in patient).
create function app_hidden.record_consent(case_id uuid, user_id uuid, version_id uuid, language_code text, identity_method text,
                                          identity_confirmed boolean) returns app_public.case_consents
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  target app_public.consent_versions;
  shown app_public.consent_texts;
  made app_public.case_consents;
begin
  select v.* into target from app_public.consent_versions v where v.id = record_consent.version_id;
  if target.id is null then
    raise exception 'There is no such consent version.' using errcode = 'P0002', hint = 'consent_version_unknown';
  end if;
  if target.status <> 'published' then
    raise exception 'This consent version is a draft; only a published version can be agreed to.' using errcode = '55000', hint = 'consent_version_draft';
  end if;
  if target.id <> (app_hidden.current_consent_version()).id then
    raise exception 'A newer consent version exists; please read and agree to the current one.' using errcode = '55000', hint = 'consent_version_outdated';
  end if;
  select t.* into shown from app_public.consent_texts t
   where t.version_id = target.id and t.language_code = record_consent.language_code;
  if shown.version_id is null then
    raise exception 'The consent text is not available in this language.' using errcode = '22023', hint = 'consent_language_missing';
  end if;
  insert into app_public.case_consents (case_id, user_id, version_id, version, language_code, title, body, identity_method, identity_confirmed_at)
  values (record_consent.case_id, record_consent.user_id, target.id, target.version, shown.language_code, shown.title, shown.body,
          record_consent.identity_method, case when identity_confirmed then now() end)
  returning * into made;
  update app_public.consent_requests r set answered_at = now(), answered_by_consent = made.id
   where r.case_id = record_consent.case_id and r.answered_at is null
     and (select v.version from app_public.consent_versions v where v.id = r.version_id) <= target.version;
  return made;
end;
$$;

-- A signed-in patient agrees to the current version; their identity is confirmed by typing their
-- username (issue 31 item 3's e-signature may require the password instead: identity_method).
create function app_hidden.give_consent(version_id uuid, language_code text, typed_username text) returns app_public.case_consents
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  my_case uuid;
  made app_public.case_consents;
begin
  select m.case_id into my_case from app_public.case_members m
   where m.user_id = me and m.acts_as_patient order by m.created_at desc limit 1;
  if me is null or my_case is null then
    raise exception 'Only a participant can give their consent.' using errcode = '42501', hint = 'forbidden';
  end if;
  if typed_username is null or not exists (select 1 from app_public.users u where u.id = me and lower(u.username::text) = lower(btrim(typed_username))) then
    raise exception 'Type your username exactly to confirm that it is you who agrees.' using errcode = '22023', hint = 'identity_not_confirmed';
  end if;
  made := app_hidden.record_consent(my_case, me, version_id, language_code, 'typed_username', true);
  return made;
end;
$$;
grant execute on function app_hidden.give_consent(uuid, text, text) to sanad_user;

-- Gate ------------------------------------------------------------------------------------------

-- True while the case has an unanswered request to consent again.
create function app_hidden.consent_pending(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.consent_requests r where r.case_id = consent_pending.case_id and r.answered_at is null)
$$;
grant execute on function app_hidden.consent_pending(uuid) to sanad_user;

-- Data collection waits for consent: every table a patient submits data to (questionnaires and
-- worksheets: the tables with a submitter) refuses new or changed rows of a case whose consent
-- is pending. 0246 extends app_hidden.tg_collection_needs_consent with withdrawals.
create function app_hidden.tg_collection_needs_consent() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if app_hidden.consent_pending(new.case_id) then
    -- P0001: every API (REST, GraphQL) answers it as 400 with this code.
    raise exception 'Please read and agree to the updated consent before you continue.'
      using errcode = 'P0001', hint = 'consent_required';
  end if;
  return new;
end;
$$;

do $$
declare
  t text;
begin
  for t in
    select c.table_name from information_schema.columns c
      join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name and tb.table_type = 'BASE TABLE'
     where c.table_schema = 'app_public' and c.column_name = 'submitter_id'
       and exists (select 1 from information_schema.columns k where k.table_schema = 'app_public' and k.table_name = c.table_name and k.column_name = 'case_id')
     order by 1
  loop
    execute format('create trigger _050_needs_consent before insert or update on app_public.%I for each row execute function app_hidden.tg_collection_needs_consent()', t);
  end loop;
end;
$$;

-- Coverage --------------------------------------------------------------------------------------

-- For coordinators: per collected table, how many records were collected under a valid consent
-- (the case's latest consent before the record was at least the newest major version published
-- before it), how many were not, and how many come from cases with registration flags only.
create function app_hidden.consent_coverage() returns table (collection text, covered bigint, not_covered bigint, flags_only bigint)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  t text;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the consent coverage.' using errcode = '42501', hint = 'forbidden';
  end if;
  for t in
    select r.relname::text from pg_trigger g join pg_class r on r.oid = g.tgrelid
     where r.relnamespace = 'app_public'::regnamespace and g.tgname = '_050_needs_consent' order by 1
  loop
    return query execute format($q$
      select %L::text,
             count(*) filter (where s.kind = 'covered'), count(*) filter (where s.kind = 'not_covered'), count(*) filter (where s.kind = 'flags_only')
        from (select case
                when not exists (select 1 from app_public.case_consents cc where cc.case_id = r.case_id) then 'flags_only'
                when coalesce((select max(cc.version) from app_public.case_consents cc where cc.case_id = r.case_id and cc.agreed_at <= r.created_at), 0)
                     >= coalesce((select max(v.version) from app_public.consent_versions v where v.major and v.published_at <= r.created_at), 1)
                  then 'covered'
                else 'not_covered' end as kind
                from app_public.%I r) s $q$, t, t);
  end loop;
end;
$$;
grant execute on function app_hidden.consent_coverage() to sanad_user;

-- Per version: participants who agreed to it and open requests for it.
create function app_hidden.consent_version_summary() returns table (
  version_id uuid, version integer, status text, major boolean, published_at timestamptz, change_note text,
  languages text[], consents bigint, open_requests bigint, answered_requests bigint)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the consent coverage.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  select v.id, v.version, v.status, v.major, v.published_at, v.change_note,
         coalesce((select array_agg(t.language_code order by t.language_code) from app_public.consent_texts t where t.version_id = v.id), '{}'),
         (select count(distinct cc.case_id) from app_public.case_consents cc where cc.version_id = v.id),
         (select count(*) from app_public.consent_requests r where r.version_id = v.id and r.answered_at is null),
         (select count(*) from app_public.consent_requests r where r.version_id = v.id and r.answered_at is not null)
    from app_public.consent_versions v order by v.version desc;
end;
$$;
grant execute on function app_hidden.consent_version_summary() to sanad_user;
