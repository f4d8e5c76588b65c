-- Why: letters from the therapist to the patient (spec §3 "Letters", "Letter templates", §7
-- /api/letters and /api/letter_templates). A therapist or counselor of the case writes a draft,
-- usually started from a LETTER content template whose placeholders the server fills, and sends
-- it; from then on it is part of the record and nobody may change or delete it (spec §4), by the
-- same guard as the worksheets (app_hidden.tg_sent_entry_guard, 0070). The patient and the care
-- team read sent letters; a draft only its writer.

create table app_public.letters (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  sender_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  -- the template the letter was started from, kept for the record even after the template goes
  template_id uuid references app_public.content_templates (id) on delete set null,
  language_code text not null default 'ar' constraint language_known check (language_code in ('ar', 'de', 'en')),
  subject text constraint subject_length check (length(subject) <= 300),
  body text not null default '' constraint body_length check (length(body) <= 50000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(body)) > 0)
);
comment on table app_public.letters is 'A letter from a therapist to the patient of a case. A draft while published_at is empty; unchangeable once sent.';
comment on column app_public.letters.published_at is 'When the letter was sent (set by the server); empty for a draft.';
create index letters_case_idx on app_public.letters (case_id, published_at);
create index letters_sender_idx on app_public.letters (sender_id);
create index letters_template_idx on app_public.letters (template_id);

-- Mails to the patient when a letter is sent: content-free, like every notification.
create function app_hidden.tg_letters_notify() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.published_at is not null and (tg_op = 'INSERT' or old.published_at is null) then
    insert into app_private.notification_queue (user_id, case_id, kind)
    select m.user_id, m.case_id, 'new_letter' from app_public.case_members m
     where m.case_id = new.case_id and m.acts_as_patient and m.user_id is distinct from new.sender_id;
  end if;
  return null;
end;
$$;

create trigger _050_guard before insert or update or delete on app_public.letters
  for each row execute function app_hidden.tg_sent_entry_guard('sender_id');
create trigger _100_set_updated_at before update on app_public.letters
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _850_notify after insert or update on app_public.letters
  for each row execute function app_hidden.tg_letters_notify();
create trigger _900_audit after insert or update or delete on app_public.letters
  for each row execute function app_hidden.tg_audit('case_id', '!subject', '!body');

alter table app_public.letters enable row level security;

create policy select_own_or_sent on app_public.letters for select to sanad_user using (
  sender_id = (select app_public.current_user_id())
  or (published_at is not null and case_id in (select app_hidden.my_case_ids()))
);
create policy insert_own on app_public.letters for insert to sanad_user with check (
  sender_id = (select app_public.current_user_id())
  and (case_id in (select app_hidden.my_case_ids_as('therapist')) or case_id in (select app_hidden.my_case_ids_as('counselor')))
);
create policy update_own on app_public.letters for update to sanad_user
  using (sender_id = (select app_public.current_user_id()))
  with check (
    sender_id = (select app_public.current_user_id())
    and (case_id in (select app_hidden.my_case_ids_as('therapist')) or case_id in (select app_hidden.my_case_ids_as('counselor')))
  );
create policy delete_own on app_public.letters for delete to sanad_user
  using (sender_id = (select app_public.current_user_id()));

grant select on app_public.letters to sanad_user;
grant insert (id, case_id, template_id, language_code, subject, body, published_at) on app_public.letters to sanad_user;
grant update (case_id, template_id, language_code, subject, body, published_at) on app_public.letters to sanad_user;
grant delete on app_public.letters to sanad_user;

-- What the server fills a template with: the patient's and the writer's alias and gender, for a
-- writer who may write letters in the case; nothing for anyone else.
create function app_hidden.letter_people(case_id uuid)
  returns table (patient_alias text, patient_gender text, patient_locale text, writer_alias text, writer_gender text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(p.alias, p.username::text), p.gender::text, p.locale, coalesce(w.alias, w.username::text), w.gender::text
    from app_public.case_members pm
    join app_public.users p on p.id = pm.user_id
    join app_public.users w on w.id = app_public.current_user_id()
   where pm.case_id = letter_people.case_id and pm.acts_as_patient
     and exists (select 1 from app_public.case_members wm
                  where wm.case_id = letter_people.case_id and wm.user_id = app_public.current_user_id()
                    and (wm.acts_as_therapist or wm.acts_as_counselor))
   limit 1
$$;
grant execute on function app_hidden.letter_people(uuid) to sanad_user;

-- The letter templates (spec §7 /api/letter_templates): the LETTER content templates, read by
-- staff under the content templates' own policies (the view runs as its reader).
create view app_public.letter_templates with (security_invoker = true) as
select id, code, language_code, title, subject, description, content, treatment_code, reader_gender, writer_gender, updated_at
  from app_public.content_templates
 where type = 'LETTER';
comment on view app_public.letter_templates is 'The letter templates: LETTER content templates by code, language, treatment code and the reader''s and writer''s gender.';
grant select on app_public.letter_templates to sanad_user;
