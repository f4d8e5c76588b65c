-- Why: staff insert a message template into the case message composer (issue 14). The server
-- chooses the MESSAGE template variant for the case (the patient's language, the case's
-- treatment, the reader's and the writer's gender, as letters choose theirs) and fills its
-- placeholders from the database, never from the client. Only the care team of the case may
-- do this: the patient of the case, other patients, staff outside the case and coordinators who
-- are not members get nothing from these functions (the route answers 403).
-- See docs/DECISIONS.md "2026-11 Therapy content, completion".

-- Who the message speaks of and who writes it, for a staff member of the case; nothing otherwise.
-- A case without a patient yet gives the writer with empty patient fields (no template fits).
create function app_hidden.message_template_people(case_id uuid)
  returns table (patient_alias text, patient_gender app_public.gender, patient_locale text,
                 writer_alias text, writer_gender app_public.gender, treatment_code text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce(p.alias, p.username::text), p.gender, p.locale,
         coalesce(w.alias, w.username::text), w.gender,
         (select a.treatment from app_public.treatment_assignments a where a.case_id = message_template_people.case_id)
    from app_public.users w
    left join app_public.case_members pm on pm.case_id = message_template_people.case_id and pm.acts_as_patient
    left join app_public.users p on p.id = pm.user_id
   where w.id = app_public.current_user_id()
     and exists (select 1 from app_public.case_members wm
                  where wm.case_id = message_template_people.case_id and wm.user_id = app_public.current_user_id()
                    and not wm.acts_as_patient
                    and (wm.acts_as_therapist or wm.acts_as_supervisor or wm.acts_as_interviewer
                         or wm.acts_as_supporter or wm.acts_as_counselor))
   limit 1
$$;
comment on function app_hidden.message_template_people(uuid) is
  'The patient''s and the writer''s alias and gender, the patient''s language and the case''s treatment, for a staff member of the case only.';
grant execute on function app_hidden.message_template_people(uuid) to sanad_user;

-- The MESSAGE templates in the patient's language, for a staff member of the case (a counselor
-- account is not "staff" for the content templates' own policy, yet writes in its cases).
create function app_hidden.case_message_templates(case_id uuid)
  returns table (id uuid, code text, title text, subject text, content text, language_code text,
                 treatment_code text, reader_gender app_public.gender, writer_gender app_public.gender)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select t.id, t.code, t.title, t.subject, t.content, t.language_code, t.treatment_code, t.reader_gender, t.writer_gender
    from app_public.content_templates t
    join app_hidden.message_template_people(case_message_templates.case_id) people on people.patient_locale = t.language_code
   where t.type = 'MESSAGE'
   order by t.code, t.id
$$;
comment on function app_hidden.case_message_templates(uuid) is
  'The MESSAGE content templates in the language of the case''s patient, for a staff member of the case only.';
grant execute on function app_hidden.case_message_templates(uuid) to sanad_user;
