-- Why: issue 27 item 3, arms own their content. A CBT patient could write IPT worksheets (and
-- /all-exercises offered all six sheets to everyone): contamination between the arms of the
-- trial. Now each arm owns its worksheets (its treatment modules, synced from the
-- TREATMENT_MODULES configuration at start) and its letter templates (content_templates'
-- treatment_code, compared without case: 'CBT' is the arm 'cbt'). The database decides: the patient of a randomized case reads and writes
-- only the worksheets of its arm, plus a sheet a therapist of the case sent out of the arm with
-- a reason; that send is recorded and counted per arm (the contamination report coordinators
-- read in the trial area and the export). Cases without an arm (before randomization, the
-- counseling path) keep every sheet: there is no arm to contaminate yet.
-- See docs/decisions/arms-own-their-content.md.

-- The arm's worksheets -------------------------------------------------------------------------

create table app_public.arm_worksheets (
  arm text not null constraint arm_length check (length(arm) between 1 and 64),
  worksheet text not null constraint worksheet_known check (worksheet in
    ('ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts')),
  -- the treatment week at whose end the module is due
  week integer not null constraint week_range check (week between 1 and 104),
  primary key (arm, worksheet)
);
comment on table app_public.arm_worksheets is
  'The worksheets each treatment arm owns (its treatment modules, from the TREATMENT_MODULES configuration), with the week each is due.';
alter table app_public.arm_worksheets enable row level security;
-- Which sheets an arm has is trial configuration, not case data: every signed-in person reads it.
create policy select_all on app_public.arm_worksheets for select to sanad_user using (true);
grant select on app_public.arm_worksheets to sanad_user;

-- The shipped default (workflows/treatment-modules.json); the server replaces it with its
-- configuration at every start (syncArmWorksheets).
insert into app_public.arm_worksheets (arm, worksheet, week) values
  ('cbt', 'cbt_thoughts', 1), ('cbt', 'cbt_reframings', 2), ('cbt', 'cbt_activities', 3),
  ('ipt', 'ipt_relationships', 1), ('ipt', 'ipt_conflicts', 2), ('ipt', 'ipt_situations', 3);

-- Out-of-arm sends: the recorded contamination --------------------------------------------------

create table app_public.out_of_arm_sends (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- the case's arm at the send, and what was sent from outside it
  arm text not null,
  kind text not null constraint kind_known check (kind in ('worksheet', 'letter')),
  content text not null constraint content_length check (length(content) between 1 and 200),
  reason text not null constraint reason_length check (length(btrim(reason)) between 1 and 2000),
  sent_by uuid references app_public.users (id) on delete set null,
  sent_at timestamptz not null default now()
);
comment on table app_public.out_of_arm_sends is
  'Content sent to a patient from outside the case''s treatment arm, with the therapist''s reason (the contamination record, counted per arm).';
create index out_of_arm_sends_case_idx on app_public.out_of_arm_sends (case_id, kind, content);
alter table app_public.out_of_arm_sends enable row level security;
create policy select_coordinator_or_team on app_public.out_of_arm_sends for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())
);
-- No insert, update or delete grant: app_public.send_out_of_arm_worksheet is the one door, and
-- a record of contamination never changes.
grant select on app_public.out_of_arm_sends to sanad_user;
create trigger _900_audit after insert or update or delete on app_public.out_of_arm_sends
  for each row execute function app_hidden.tg_audit('case_id');

-- The rule ---------------------------------------------------------------------------------------

-- The arm of a case, or null before randomization.
create function app_hidden.case_arm(case_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select a.treatment from app_public.treatment_assignments a where a.case_id = case_arm.case_id
$$;

-- May this case hold entries of this worksheet? Its arm's sheets, a sheet sent out of the arm,
-- or any sheet while the case has no arm.
create function app_hidden.worksheet_in_reach(case_id uuid, worksheet text) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case
    when app_hidden.case_arm(worksheet_in_reach.case_id) is null then true
    else exists (select 1 from app_public.arm_worksheets w
                  where w.arm = app_hidden.case_arm(worksheet_in_reach.case_id) and w.worksheet = worksheet_in_reach.worksheet)
      or exists (select 1 from app_public.out_of_arm_sends s
                  where s.case_id = worksheet_in_reach.case_id and s.kind = 'worksheet' and s.content = worksheet_in_reach.worksheet)
  end
$$;
grant execute on function app_hidden.case_arm(uuid) to sanad_user;
grant execute on function app_hidden.worksheet_in_reach(uuid, text) to sanad_user;

-- The patient's policies of each worksheet now ask the rule as well (reading, writing, sending).
do $$
declare
  t text;
  own text;
begin
  foreach t in array array['ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts'] loop
    own := format('submitter_id = (select app_public.current_user_id())
            and case_id in (select app_hidden.my_case_ids_as(''patient''))
            and app_hidden.worksheet_in_reach(case_id, %L)', t);
    execute format('drop policy select_own_or_sent on app_public.%I', t);
    execute format('drop policy insert_own on app_public.%I', t);
    execute format('drop policy update_own on app_public.%I', t);
    execute format('drop policy delete_own on app_public.%I', t);
    execute format('create policy select_own_or_sent on app_public.%I for select to sanad_user using (
      (%s) or (published_at is not null and case_id in (select app_hidden.my_care_team_case_ids())))', t, own);
    execute format('create policy insert_own on app_public.%I for insert to sanad_user with check (%s)', t, own);
    execute format('create policy update_own on app_public.%I for update to sanad_user using (%s) with check (%s)', t, own, own);
    execute format('create policy delete_own on app_public.%I for delete to sanad_user using (%s)', t, own);
  end loop;
end;
$$;

-- The doors ------------------------------------------------------------------------------------

-- The worksheets the patient of a case may use, in the order of their weeks, each with whether it
-- belongs to the arm (false: sent out of the arm). Members of the case and coordinators.
create function app_public.case_worksheet_codes(case_id uuid)
  returns table (worksheet text, in_arm boolean, week integer)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  the_arm text;
begin
  if not (app_hidden.is_coordinator() or case_worksheet_codes.case_id in (select app_hidden.my_case_ids())) then
    raise exception 'Not involved in this case' using errcode = '42501', hint = 'NOT_INVOLVED';
  end if;
  the_arm := app_hidden.case_arm(case_worksheet_codes.case_id);
  return query
  select c.code, the_arm is null or w.worksheet is not null, w.week
    from unnest(array['cbt_thoughts', 'cbt_reframings', 'cbt_activities', 'ipt_conflicts', 'ipt_relationships', 'ipt_situations'])
         with ordinality as c(code, o)
    left join app_public.arm_worksheets w on w.arm = the_arm and w.worksheet = c.code
   where app_hidden.worksheet_in_reach(case_worksheet_codes.case_id, c.code)
   order by w.week nulls last, c.o;
end;
$$;
comment on function app_public.case_worksheet_codes(uuid) is
  'The worksheets the patient of a case may use: its arm''s, and those a therapist sent out of the arm (in_arm false).';
grant execute on function app_public.case_worksheet_codes(uuid) to sanad_user;

-- A therapist of a randomized case sends a worksheet of another arm, with a reason: recorded,
-- counted in the contamination report, and from then on the patient may use the sheet.
create function app_public.send_out_of_arm_worksheet(case_id uuid, worksheet text, reason text)
  returns app_public.out_of_arm_sends
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  the_arm text;
  sent app_public.out_of_arm_sends;
begin
  if send_out_of_arm_worksheet.case_id not in (select app_hidden.my_case_ids_as('therapist')) then
    raise exception 'Only a therapist of this case may send it a worksheet.' using errcode = '42501', hint = 'NOT_CASE_THERAPIST';
  end if;
  if worksheet is null or worksheet not in ('ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts') then
    raise exception 'This worksheet does not exist.' using errcode = 'P0001', hint = 'WORKSHEET_UNKNOWN';
  end if;
  the_arm := app_hidden.case_arm(send_out_of_arm_worksheet.case_id);
  if the_arm is null then
    raise exception 'The case has no treatment arm yet; every worksheet is open to it.' using errcode = 'P0001', hint = 'CASE_NOT_RANDOMIZED';
  end if;
  if app_hidden.worksheet_in_reach(send_out_of_arm_worksheet.case_id, worksheet) then
    raise exception 'The patient already has this worksheet.' using errcode = '23505', hint = 'WORKSHEET_ALREADY_OPEN';
  end if;
  if length(btrim(coalesce(reason, ''))) = 0 then
    raise exception 'A worksheet from another arm needs a reason; it is recorded and reported.' using errcode = 'P0001', hint = 'OUT_OF_ARM_REASON_REQUIRED';
  end if;
  if length(reason) > 2000 then
    raise exception 'The reason is longer than 2000 characters.' using errcode = 'P0001', hint = 'OUT_OF_ARM_REASON_TOO_LONG';
  end if;
  insert into app_public.out_of_arm_sends (case_id, arm, kind, content, reason, sent_by)
  values (send_out_of_arm_worksheet.case_id, the_arm, 'worksheet', worksheet, btrim(reason), app_public.current_user_id())
  returning * into sent;
  return sent;
end;
$$;
comment on function app_public.send_out_of_arm_worksheet(uuid, text, text) is
  'A therapist of the case sends a worksheet of another arm, with the reason (recorded and counted as contamination).';
grant execute on function app_public.send_out_of_arm_worksheet(uuid, text, text) to sanad_user;

-- A letter sent from a template of another arm: the sender gives a reason (letters.out_of_arm_reason),
-- recorded as contamination when the letter is sent; without one, sending is refused.
alter table app_public.letters add column out_of_arm_reason text
  constraint out_of_arm_reason_length check (length(out_of_arm_reason) <= 2000);
comment on column app_public.letters.out_of_arm_reason is
  'Why a letter from another arm''s template was sent to this case (required for such a letter; recorded as contamination).';
grant insert (out_of_arm_reason), update (out_of_arm_reason) on app_public.letters to sanad_user;

-- The arm a letter's template belongs to when it is not the case's own, else null.
create function app_hidden.letter_out_of_arm(case_id uuid, template_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select t.treatment_code from app_public.content_templates t
   where t.id = letter_out_of_arm.template_id and t.treatment_code is not null
     and app_hidden.case_arm(letter_out_of_arm.case_id) is not null
     and lower(t.treatment_code) <> lower(app_hidden.case_arm(letter_out_of_arm.case_id))
$$;

-- Before: sending such a letter needs a reason. After (the row actually written, so an upsert's
-- proposed insert that turns into an update is counted once): the send is recorded.
create function app_hidden.tg_letter_arm() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  template_arm text;
begin
  if new.published_at is null or (tg_op = 'UPDATE' and old.published_at is not null) or new.template_id is null then
    return case when tg_when = 'BEFORE' then new else null end;
  end if;
  template_arm := app_hidden.letter_out_of_arm(new.case_id, new.template_id);
  if template_arm is null then
    return case when tg_when = 'BEFORE' then new else null end;
  end if;
  if tg_when = 'BEFORE' then
    if length(btrim(coalesce(new.out_of_arm_reason, ''))) = 0 then
      raise exception 'This letter''s template belongs to another arm; sending it needs a reason, which is recorded and reported.'
        using errcode = 'P0001', hint = 'OUT_OF_ARM_REASON_REQUIRED';
    end if;
    return new;
  end if;
  insert into app_public.out_of_arm_sends (case_id, arm, kind, content, reason, sent_by)
  values (new.case_id, app_hidden.case_arm(new.case_id), 'letter', template_arm, btrim(new.out_of_arm_reason), app_public.current_user_id());
  return null;
end;
$$;
create trigger _060_arm before insert or update on app_public.letters
  for each row execute function app_hidden.tg_letter_arm();
create trigger _860_arm_sent after insert or update on app_public.letters
  for each row execute function app_hidden.tg_letter_arm();

-- The contamination report: per arm, how many out-of-arm sends and in how many cases, beside the
-- arm's randomized cases. Coordinators only (the trial area and the export).
create function app_public.arm_contamination()
  returns table (arm text, randomized integer, sends integer, cases integer, worksheets integer, letters integer)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
#variable_conflict use_column
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators read the contamination report.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  with arms as (
    select a.treatment as arm, count(*)::integer as randomized from app_public.treatment_assignments a group by a.treatment
  ), sends as (
    select s.arm, count(*)::integer as sends, count(distinct s.case_id)::integer as cases,
           (count(*) filter (where s.kind = 'worksheet'))::integer as worksheets,
           (count(*) filter (where s.kind = 'letter'))::integer as letters
      from app_public.out_of_arm_sends s group by s.arm
  )
  select coalesce(a.arm, s.arm), coalesce(a.randomized, 0), coalesce(s.sends, 0), coalesce(s.cases, 0),
         coalesce(s.worksheets, 0), coalesce(s.letters, 0)
    from arms a full join sends s on s.arm = a.arm
   order by 1;
end;
$$;
comment on function app_public.arm_contamination() is
  'Per treatment arm: randomized cases and the out-of-arm sends (worksheets, letters) with their reasons recorded. Coordinators only.';
grant execute on function app_public.arm_contamination() to sanad_user;
