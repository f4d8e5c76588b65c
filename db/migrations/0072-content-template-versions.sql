-- Why: coordinators keep every text of the trial (pages, letters, messages, mails) in three
-- languages without a code change (issue 14): every saved version of a content template is kept
-- and can be restored, and a letter or message template that names a placeholder the server
-- cannot fill is refused when it is saved, not when a therapist starts a letter from it.

-- Versions -------------------------------------------------------------------------------------

create table app_public.content_template_versions (
  id uuid primary key default gen_random_uuid(),
  template_id uuid not null references app_public.content_templates (id) on delete cascade,
  version integer not null,
  title text not null,
  content text not null,
  description text,
  subject text,
  treatment_code text,
  reader_gender app_public.gender,
  writer_gender app_public.gender,
  editor_id uuid references app_public.users (id) on delete set null,
  saved_at timestamptz not null default now(),
  constraint one_number_per_version unique (template_id, version)
);
comment on table app_public.content_template_versions is 'Every saved version of a content template, newest the highest number; restore one with restoreContentTemplateVersion.';

-- Written by the template's own trigger only: no request role may add, change or remove a version.
create function app_hidden.tg_content_templates_version() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'UPDATE' and (old.title, old.content, old.description, old.subject, old.treatment_code, old.reader_gender, old.writer_gender)
      is not distinct from (new.title, new.content, new.description, new.subject, new.treatment_code, new.reader_gender, new.writer_gender) then
    return null;
  end if;
  insert into app_public.content_template_versions
    (template_id, version, title, content, description, subject, treatment_code, reader_gender, writer_gender, editor_id, saved_at)
  values (
    new.id,
    coalesce((select max(v.version) from app_public.content_template_versions v where v.template_id = new.id), 0) + 1,
    new.title, new.content, new.description, new.subject, new.treatment_code, new.reader_gender, new.writer_gender,
    new.editor_id, now()
  );
  return null;
end;
$$;
create trigger _800_version after insert or update on app_public.content_templates
  for each row execute function app_hidden.tg_content_templates_version();

-- The templates saved before versions were kept start at version 1.
insert into app_public.content_template_versions
  (template_id, version, title, content, description, subject, treatment_code, reader_gender, writer_gender, editor_id, saved_at)
select id, 1, title, content, description, subject, treatment_code, reader_gender, writer_gender, editor_id, updated_at
  from app_public.content_templates;

create index content_template_versions_template_idx on app_public.content_template_versions (template_id, version desc);
create index content_template_versions_editor_idx on app_public.content_template_versions (editor_id);

alter table app_public.content_template_versions enable row level security;
create policy select_coordinator on app_public.content_template_versions for select to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.content_template_versions to sanad_user;

-- Restoring saves the old version's text as the newest version (the history only grows). Runs
-- as the caller: the content templates' policies let coordinators only.
create function app_public.restore_content_template_version(version_id uuid) returns app_public.content_templates
  language plpgsql volatile
  set search_path = pg_catalog
as $$
declare
  restored app_public.content_templates;
begin
  update app_public.content_templates t
     set title = v.title, content = v.content, description = v.description, subject = v.subject,
         treatment_code = v.treatment_code, reader_gender = v.reader_gender, writer_gender = v.writer_gender
    from app_public.content_template_versions v
   where v.id = restore_content_template_version.version_id and t.id = v.template_id
  returning t.* into restored;
  if restored.id is null then
    raise exception 'No such version, or you may not edit templates' using errcode = 'P0001', hint = 'VERSION_NOT_FOUND';
  end if;
  return restored;
end;
$$;
comment on function app_public.restore_content_template_version(uuid) is 'Makes an earlier version of a content template its current text again (coordinators).';
grant execute on function app_public.restore_content_template_version(uuid) to sanad_user;

-- Placeholders ----------------------------------------------------------------------------------

-- The names the server fills in letters and message texts (src/domain/letter-templates.ts
-- LETTER_PLACEHOLDERS; a test keeps both lists equal).
create function app_hidden.letter_placeholders() returns text[]
  language sql immutable
  set search_path = pg_catalog
as $$ select array['patient_alias', 'therapist_alias', 'date'] $$;
grant execute on function app_hidden.letter_placeholders() to sanad_user;

create function app_hidden.tg_content_templates_placeholders() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
declare
  unknown text[];
begin
  if new.type not in ('LETTER', 'MESSAGE') then
    return new;
  end if;
  select array_agg(distinct m[1] order by m[1]) into unknown
    from regexp_matches(coalesce(new.content, '') || ' ' || coalesce(new.subject, ''), '\{\{\s*([A-Za-z0-9_]+)\s*\}\}', 'g') as m
   where not m[1] = any (app_hidden.letter_placeholders());
  if unknown is not null then
    raise exception 'Unknown placeholder(s) %: use only %', array_to_string(unknown, ', '),
      (select string_agg('{{' || p || '}}', ', ') from unnest(app_hidden.letter_placeholders()) p)
      using errcode = 'P0001', hint = 'UNKNOWN_PLACEHOLDER';
  end if;
  return new;
end;
$$;
create trigger _300_placeholders before insert or update on app_public.content_templates
  for each row execute function app_hidden.tg_content_templates_placeholders();
