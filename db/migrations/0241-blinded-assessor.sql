-- Why: issue 30 item 6, a blinded outcome assessor. An account flag (like the other account
-- flags) for a person who enters the post and follow-up assessments of the cases a coordinator
-- assigns, and must learn nothing of the arm. The blinding is kept by the database, not by
-- screens:
--   * an assessor is never a case member and never staff (app_hidden.is_staff does not count
--     the flag, and a trigger refuses an assessor as a case member), so every case-bound policy
--     (messages, worksheets, letters, tasks, audit and access logs, assignments) already hides
--     every record that could name the arm;
--   * an assessor's only reads are the functions below, which return the case code, the
--     patient's alias and the assessments, never the treatment (unless a coordinator unblinded
--     that case for that assessor, with a reason, in the append-only unblinding log of 0240);
--   * the flag cannot be combined with another staff or patient flag.
-- After the post assessment the assessor records a guess of the arm; the blinding index (Bang's,
-- per arm) is computed from the guesses for coordinators and the export.
-- See docs/decisions/blinded-assessor.md.

alter table app_public.users add column is_assessor_account boolean not null default false;
comment on column app_public.users.is_assessor_account is
  'A blinded outcome assessor: enters post and follow-up assessments of assigned cases and never sees the arm.';
-- A blinded person holds no other role that would show the arm.
alter table app_public.users add constraint users_assessor_alone check (
  not is_assessor_account or not (is_patient_account or is_therapist_account or is_supervisor_account or is_interviewer_account
    or is_supporter_account or is_counselor_account or is_coordinator_account));

create function app_hidden.is_assessor() returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce((select u.is_assessor_account from app_public.users u where u.id = app_public.current_user_id()), false)
$$;
grant execute on function app_hidden.is_assessor() to sanad_user;

-- An assessor is never a member of a case: membership would open the case's records.
create function app_hidden.tg_member_not_assessor() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if exists (select 1 from app_public.users u where u.id = new.user_id and u.is_assessor_account) then
    raise exception 'A blinded assessor cannot be a member of a case.' using errcode = '55000', hint = 'assessor_not_member';
  end if;
  return new;
end;
$$;
create trigger _040_not_assessor before insert or update of user_id on app_public.case_members
  for each row execute function app_hidden.tg_member_not_assessor();

-- Assignments ----------------------------------------------------------------------------------

create table app_public.assessor_assignments (
  case_id uuid not null references app_public.cases (id) on delete cascade,
  assessor_id uuid not null references app_public.users (id) on delete cascade,
  assigned_by uuid references app_public.users (id) on delete set null,
  assigned_at timestamptz not null default now(),
  primary key (case_id, assessor_id)
);
create index assessor_assignments_assessor_idx on app_public.assessor_assignments (assessor_id);
comment on table app_public.assessor_assignments is 'Which blinded assessor assesses which case; set by coordinators.';
alter table app_public.assessor_assignments enable row level security;
create policy select_own on app_public.assessor_assignments for select to sanad_user using (
  (select app_hidden.is_coordinator()) or assessor_id = (select app_public.current_user_id())
);
grant select on app_public.assessor_assignments to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.assessor_assignments
  for each row execute function app_hidden.tg_audit('case_id');

create function app_hidden.assign_assessor(case_id uuid, assessor_id uuid) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may assign an assessor.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = assign_assessor.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  if not exists (select 1 from app_public.users u where u.id = assign_assessor.assessor_id and u.is_assessor_account) then
    raise exception 'The person named is not a blinded assessor.' using errcode = '22023', hint = 'not_an_assessor';
  end if;
  insert into app_public.assessor_assignments (case_id, assessor_id, assigned_by)
  values (assign_assessor.case_id, assign_assessor.assessor_id, app_public.current_user_id())
  on conflict do nothing;
end;
$$;
grant execute on function app_hidden.assign_assessor(uuid, uuid) to sanad_user;

-- Assessments and guesses --------------------------------------------------------------------

create table app_public.blinded_assessments (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  assessor_id uuid references app_public.users (id) on delete set null,
  time_of_measurement text not null constraint blinded_assessment_time_known check (time_of_measurement in ('post', 'fu1', 'fu2')),
  -- clinician-rated severities: PTSD (CAPS-5 total, 0-80) and depression (MADRS total, 0-60)
  ptsd_severity integer constraint blinded_assessment_ptsd_range check (ptsd_severity between 0 and 80),
  depression_severity integer constraint blinded_assessment_depression_range check (depression_severity between 0 and 60),
  notes text constraint blinded_assessment_notes_length check (length(notes) <= 4000),
  assessed_at timestamptz not null default now(),
  constraint blinded_assessment_one_per_time unique (case_id, time_of_measurement),
  constraint blinded_assessment_filled check (ptsd_severity is not null or depression_severity is not null)
);
comment on table app_public.blinded_assessments is 'Post and follow-up assessments entered by a blinded assessor.';
alter table app_public.blinded_assessments enable row level security;
create policy select_own on app_public.blinded_assessments for select to sanad_user using (
  (select app_hidden.is_coordinator()) or assessor_id = (select app_public.current_user_id())
);
grant select on app_public.blinded_assessments to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.blinded_assessments
  for each row execute function app_hidden.tg_audit('case_id');

create table app_public.blinding_guesses (
  case_id uuid not null references app_public.cases (id) on delete cascade,
  assessor_id uuid not null references app_public.users (id) on delete cascade,
  -- an arm code of the allocation, or dont_know
  guess text not null constraint blinding_guess_format check (guess ~ '^[a-z][a-z0-9_-]{0,31}$'),
  guessed_at timestamptz not null default now(),
  constraint blinding_guess_one_per_time primary key (case_id, assessor_id)
);
comment on table app_public.blinding_guesses is 'The arm a blinded assessor guessed after the post assessment (for the blinding index).';
alter table app_public.blinding_guesses enable row level security;
-- Coordinators only: an assessor's own guess names an arm, and they need not read it back.
create policy select_coordinator on app_public.blinding_guesses for select to sanad_user using ((select app_hidden.is_coordinator()));
grant select on app_public.blinding_guesses to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.blinding_guesses
  for each row execute function app_hidden.tg_audit('case_id');

create function app_hidden.require_assigned(case_id uuid) returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_assessor() then
    raise exception 'Only a blinded assessor enters blinded assessments.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.assessor_assignments a
                  where a.case_id = require_assigned.case_id and a.assessor_id = app_public.current_user_id()) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
end;
$$;

create function app_hidden.record_blinded_assessment(case_id uuid, time_of_measurement text, ptsd_severity integer,
                                                     depression_severity integer, notes text) returns uuid
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  id uuid;
begin
  perform app_hidden.require_assigned(record_blinded_assessment.case_id);
  if exists (select 1 from app_public.blinded_assessments b
              where b.case_id = record_blinded_assessment.case_id and b.time_of_measurement = record_blinded_assessment.time_of_measurement) then
    raise exception 'This assessment was recorded already.' using errcode = '23505', hint = 'already_recorded';
  end if;
  if record_blinded_assessment.time_of_measurement in ('fu1', 'fu2') and not exists (
       select 1 from app_public.blinded_assessments b where b.case_id = record_blinded_assessment.case_id and b.time_of_measurement = 'post') then
    raise exception 'Enter the post assessment first.' using errcode = '55000', hint = 'post_assessment_first';
  end if;
  insert into app_public.blinded_assessments (case_id, assessor_id, time_of_measurement, ptsd_severity, depression_severity, notes)
  values (record_blinded_assessment.case_id, app_public.current_user_id(), record_blinded_assessment.time_of_measurement,
          record_blinded_assessment.ptsd_severity, record_blinded_assessment.depression_severity, nullif(btrim(record_blinded_assessment.notes), ''))
  returning blinded_assessments.id into id;
  return id;
end;
$$;
grant execute on function app_hidden.record_blinded_assessment(uuid, text, integer, integer, text) to sanad_user;

-- The arms the assessor may guess: the allocation's codes (the trial's public design, not the case's arm).
create function app_public.blinding_guess_options() returns text[]
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not (app_hidden.is_assessor() or app_hidden.is_coordinator()) then
    raise exception 'Only blinded assessors and coordinators may read the guess options.' using errcode = '42501', hint = 'forbidden';
  end if;
  return coalesce((select array_agg(a ->> 'code' order by o) from app_private.allocation_config c,
                   jsonb_array_elements(c.arms) with ordinality as e(a, o)), '{}') || array['dont_know'];
end;
$$;
grant execute on function app_public.blinding_guess_options() to sanad_user;

create function app_hidden.record_arm_guess(case_id uuid, guess text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.require_assigned(record_arm_guess.case_id);
  if not exists (select 1 from app_public.blinded_assessments b
                  where b.case_id = record_arm_guess.case_id and b.time_of_measurement = 'post') then
    raise exception 'Enter the post assessment first.' using errcode = '55000', hint = 'post_assessment_first';
  end if;
  if exists (select 1 from app_public.unblinding_events e where e.kind = 'case' and e.case_id = record_arm_guess.case_id
              and e.assessor_id = app_public.current_user_id()) then
    raise exception 'The arm of this case was shown to you; a guess no longer counts.' using errcode = '55000', hint = 'case_unblinded';
  end if;
  if guess is null or not (guess = any (app_public.blinding_guess_options())) then
    raise exception 'Choose one of the arms or "don''t know".' using errcode = '22023', hint = 'guess_unknown';
  end if;
  if exists (select 1 from app_public.blinding_guesses g where g.case_id = record_arm_guess.case_id and g.assessor_id = app_public.current_user_id()) then
    raise exception 'The guess was recorded already.' using errcode = '23505', hint = 'already_recorded';
  end if;
  insert into app_public.blinding_guesses (case_id, assessor_id, guess) values (record_arm_guess.case_id, app_public.current_user_id(), guess);
end;
$$;
grant execute on function app_hidden.record_arm_guess(uuid, text) to sanad_user;

-- Unblinding one case for its assessor (an emergency, a safety review): logged with the reason.
create function app_hidden.unblind_case_for_assessor(case_id uuid, assessor_id uuid, reason text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may unblind a case.' using errcode = '42501', hint = 'forbidden';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_public.assessor_assignments a
                  where a.case_id = unblind_case_for_assessor.case_id and a.assessor_id = unblind_case_for_assessor.assessor_id) then
    raise exception 'This assessor is not assigned to the case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  insert into app_public.unblinding_events (kind, case_id, assessor_id, reason, unblinded_by)
  values ('case', unblind_case_for_assessor.case_id, unblind_case_for_assessor.assessor_id, btrim(reason), app_public.current_user_id());
end;
$$;
grant execute on function app_hidden.unblind_case_for_assessor(uuid, uuid, text) to sanad_user;

-- The assessor's read: their cases, without the arm ---------------------------------------------

create function app_public.my_assessment_cases()
  returns table (case_id uuid, case_code text, patient_name text, assigned_at timestamptz,
                 post_at timestamptz, fu1_at timestamptz, fu2_at timestamptz, guessed boolean, unblinded_arm text)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_assessor() then
    raise exception 'Only blinded assessors have assessment cases.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
    select a.case_id, app_public.cases_short_id(c), coalesce(p.alias, '—'), a.assigned_at,
           (select b.assessed_at from app_public.blinded_assessments b where b.case_id = a.case_id and b.time_of_measurement = 'post'),
           (select b.assessed_at from app_public.blinded_assessments b where b.case_id = a.case_id and b.time_of_measurement = 'fu1'),
           (select b.assessed_at from app_public.blinded_assessments b where b.case_id = a.case_id and b.time_of_measurement = 'fu2'),
           -- whether the guess is recorded, not the guess: an arm code on the assessor's screen is none of their business once typed
           exists (select 1 from app_public.blinding_guesses g where g.case_id = a.case_id and g.assessor_id = a.assessor_id),
           -- the arm only where a coordinator unblinded this case for this assessor (logged)
           case when exists (select 1 from app_public.unblinding_events e
                              where e.kind = 'case' and e.case_id = a.case_id and e.assessor_id = a.assessor_id)
                then (select t.treatment from app_public.treatment_assignments t where t.case_id = a.case_id) end
      from app_public.assessor_assignments a
      join app_public.cases c on c.id = a.case_id
      left join lateral (select u.alias from app_public.case_members m join app_public.users u on u.id = m.user_id
                          where m.case_id = a.case_id and m.acts_as_patient limit 1) p on true
     where a.assessor_id = app_public.current_user_id()
     order by a.assigned_at, a.case_id;
end;
$$;
comment on function app_public.my_assessment_cases() is
  'A blinded assessor''s cases: code, patient alias, which assessments are done and whether the guess is recorded; never the arm unless unblinded for them.';
grant execute on function app_public.my_assessment_cases() to sanad_user;

-- Coordinators: every blinded assessment with the arm and the guess (the export) ------------------

create function app_public.blinded_assessment_rows()
  returns table (case_id uuid, case_code text, time_of_measurement text, ptsd_severity integer, depression_severity integer,
                 assessor text, assessed_at timestamptz, treatment text, guess text, unblinded boolean)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may export the blinded assessments.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
    select b.case_id, app_public.cases_short_id(c), b.time_of_measurement, b.ptsd_severity, b.depression_severity,
           (select coalesce(u.alias, u.username::text) from app_public.users u where u.id = b.assessor_id), b.assessed_at,
           t.treatment,
           (select g.guess from app_public.blinding_guesses g where g.case_id = b.case_id and g.assessor_id = b.assessor_id),
           exists (select 1 from app_public.unblinding_events e where e.kind = 'case' and e.case_id = b.case_id and e.assessor_id = b.assessor_id)
      from app_public.blinded_assessments b
      join app_public.cases c on c.id = b.case_id
      left join app_public.treatment_assignments t on t.case_id = b.case_id
     order by c.created_at, b.case_id, array_position(array['post', 'fu1', 'fu2'], b.time_of_measurement);
end;
$$;
grant execute on function app_public.blinded_assessment_rows() to sanad_user;

-- Bang's blinding index per arm: (correct - incorrect) / all guesses of cases in that arm, with
-- "don't know" in the denominator. 1 = fully unblinded, 0 = random guessing, -1 = opposite
-- guessing. Guesses after a case was unblinded for the assessor cannot exist (refused above).
create function app_public.blinding_index()
  returns table (treatment text, guesses bigint, correct bigint, incorrect bigint, dont_know bigint, bang_index numeric)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the blinding index.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
    select t.treatment, count(*), count(*) filter (where g.guess = t.treatment),
           count(*) filter (where g.guess <> t.treatment and g.guess <> 'dont_know'),
           count(*) filter (where g.guess = 'dont_know'),
           round((count(*) filter (where g.guess = t.treatment) - count(*) filter (where g.guess <> t.treatment and g.guess <> 'dont_know'))::numeric
                 / count(*), 3)
      from app_public.blinding_guesses g join app_public.treatment_assignments t on t.case_id = g.case_id
     group by t.treatment order by t.treatment;
end;
$$;
comment on function app_public.blinding_index() is 'Bang''s blinding index per arm from the assessors'' guesses; coordinators only.';
grant execute on function app_public.blinding_index() to sanad_user;
