-- Why: the information pages (about, FAQ, privacy, imprint, conditions, …), and later letter
-- and mail texts, are content that coordinators edit per language without a code change
-- (spec §3 "Content template"). Public pages are readable by everyone, signed in or not.

create table app_public.content_templates (
  id uuid primary key default gen_random_uuid(),
  -- PAGE for the open information pages; LETTER, MESSAGE and MAIL are spec §3's communication types
  type text not null default 'PAGE' check (type in ('PAGE', 'LETTER', 'MESSAGE', 'MAIL')),
  code text not null constraint code_format check (code ~ '^[A-Za-z][A-Za-z0-9_-]{0,63}$'),
  language_code text not null check (language_code in ('ar', 'de', 'en')),
  title text not null check (length(title) between 1 and 300),
  content text not null check (length(content) <= 200000),
  description text check (length(description) <= 2000),
  subject text check (length(subject) <= 300),
  treatment_code text check (length(treatment_code) <= 64),
  reader_gender app_public.gender,
  writer_gender app_public.gender,
  editor_id uuid references app_public.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint one_text_per_variant unique nulls not distinct (type, code, language_code, treatment_code, reader_gender, writer_gender)
);
comment on table app_public.content_templates is 'Editable texts per language: information pages, letters, messages and mails.';

create trigger _100_set_updated_at before update on app_public.content_templates
  for each row execute function app_hidden.tg_set_updated_at();

-- The editor is whoever saved last, never what the client claims.
create function app_hidden.tg_content_templates_editor() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  new.editor_id := coalesce(app_public.current_user_id(), new.editor_id);
  return new;
end;
$$;
create trigger _200_set_editor before insert or update on app_public.content_templates
  for each row execute function app_hidden.tg_content_templates_editor();

create trigger _900_audit after insert or update or delete on app_public.content_templates
  for each row execute function app_hidden.tg_audit('-');

alter table app_public.content_templates enable row level security;

create policy select_public_pages on app_public.content_templates for select to sanad_anonymous, sanad_user
  using (type = 'PAGE');
create policy select_staff on app_public.content_templates for select to sanad_user
  using ((select app_hidden.is_staff()));
create policy insert_coordinator on app_public.content_templates for insert to sanad_user
  with check ((select app_hidden.is_coordinator()));
create policy update_coordinator on app_public.content_templates for update to sanad_user
  using ((select app_hidden.is_coordinator()));
create policy delete_coordinator on app_public.content_templates for delete to sanad_user
  using ((select app_hidden.is_coordinator()));

grant select on app_public.content_templates to sanad_anonymous, sanad_user;
grant insert (type, code, language_code, title, content, description, subject, treatment_code, reader_gender, writer_gender)
  on app_public.content_templates to sanad_user;
grant update (title, content, description, subject, treatment_code, reader_gender, writer_gender)
  on app_public.content_templates to sanad_user;
grant delete on app_public.content_templates to sanad_user;
