-- CONSORT-EHEALTH usage and exposure (issue 33): what each randomized participant used of the
-- intervention, and which content version they were sent. Coordinators only, like
-- app_public.trial_participants() (0061): the counts read tables a coordinator cannot see row by
-- row (letters of other cases, letter reads), so the functions are security definer, check the
-- coordinator first and return aggregates and ids only, never message or letter text.

create function app_public.trial_usage()
  returns table (
    case_id uuid, treatment text, randomized_at timestamptz,
    sign_ins bigint, worksheets_filled bigint, letters_sent bigint, letters_read bigint,
    messages_from_participant bigint, messages_to_participant bigint, messages_from_therapists bigint,
    last_activity_at timestamptz)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the trial''s usage.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  with randomized as (
    select ta.case_id, ta.treatment, ta.assigned_at from app_public.treatment_assignments ta
  ), patients as (
    select m.case_id, m.user_id from app_public.case_members m where m.acts_as_patient
  ), therapists as (
    select m.case_id, m.user_id from app_public.case_members m where m.acts_as_therapist
  ), worksheets as (
    select w.case_id, w.created_at from app_public.cbt_thoughts w
    union all select w.case_id, w.created_at from app_public.cbt_activities w
    union all select w.case_id, w.created_at from app_public.cbt_reframings w
    union all select w.case_id, w.created_at from app_public.ipt_conflicts w
    union all select w.case_id, w.created_at from app_public.ipt_relationships w
    union all select w.case_id, w.created_at from app_public.ipt_situations w
  ), activity as (
    select r.case_id, l.at from randomized r join patients p on p.case_id = r.case_id
      join app_public.account_log l on l.user_id = p.user_id and l.event = 'sign_in' and l.at >= r.assigned_at
    union all select w.case_id, w.created_at from worksheets w join randomized r on r.case_id = w.case_id and w.created_at >= r.assigned_at
    union all select lr.case_id, lr.read_at from app_public.letter_reads lr join patients p on p.case_id = lr.case_id and p.user_id = lr.reader_id
    union all select cm.case_id, cm.sent_at from app_public.case_messages cm join patients p on p.case_id = cm.case_id and p.user_id = cm.sender_id
     where cm.sent_at is not null
  )
  select r.case_id, r.treatment, r.assigned_at,
         (select count(*) from patients p join app_public.account_log l on l.user_id = p.user_id
           where p.case_id = r.case_id and l.event = 'sign_in' and l.at >= r.assigned_at),
         (select count(*) from worksheets w where w.case_id = r.case_id and w.created_at >= r.assigned_at),
         (select count(*) from app_public.letters le where le.case_id = r.case_id and le.published_at is not null),
         (select count(*) from app_public.letter_reads lr join patients p on p.case_id = lr.case_id and p.user_id = lr.reader_id
           where lr.case_id = r.case_id),
         (select count(*) from app_public.case_messages cm join patients p on p.case_id = cm.case_id and p.user_id = cm.sender_id
           where cm.case_id = r.case_id and cm.sent_at is not null),
         (select count(*) from app_public.case_messages cm
           where cm.case_id = r.case_id and cm.sent_at is not null and cm.to_patients
             and not exists (select 1 from patients p where p.case_id = cm.case_id and p.user_id = cm.sender_id)),
         (select count(*) from app_public.case_messages cm join therapists t on t.case_id = cm.case_id and t.user_id = cm.sender_id
           where cm.case_id = r.case_id and cm.sent_at is not null),
         (select max(a.at) from activity a where a.case_id = r.case_id)
    from randomized r
   order by r.assigned_at, r.case_id;
end;
$$;
comment on function app_public.trial_usage() is
  'CONSORT-EHEALTH usage per randomized case (sign-ins, worksheets, letters, messages, last activity); coordinators only.';
grant execute on function app_public.trial_usage() to sanad_user;

create function app_public.trial_content_exposure()
  returns table (case_id uuid, treatment text, kind text, template_id uuid, template_version integer, sent_at timestamptz, read_at timestamptz)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the trial''s content exposure.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  select le.case_id, ta.treatment, 'letter'::text, le.template_id,
         -- The template's version in force when the letter was written (versions are never edited).
         (select max(v.version) from app_public.content_template_versions v
           where v.template_id = le.template_id and v.saved_at <= le.created_at),
         le.published_at,
         (select min(lr.read_at) from app_public.letter_reads lr join app_public.case_members m
             on m.case_id = lr.case_id and m.user_id = lr.reader_id and m.acts_as_patient
           where lr.letter_id = le.id)
    from app_public.letters le
    join app_public.treatment_assignments ta on ta.case_id = le.case_id
   where le.published_at is not null
   order by le.case_id, le.published_at, le.id;
end;
$$;
comment on function app_public.trial_content_exposure() is
  'Every published letter of a randomized case with the template version it was written from and when the participant first read it; coordinators only.';
grant execute on function app_public.trial_content_exposure() to sanad_user;
