-- Why: issue 27 item 3, arms own their content, the part 0220 left open. A case without an arm
-- kept every worksheet, so a patient still in screening or waiting for the interview's decision
-- could work on the CBT and the IPT sheets before the trial drew their arm: contamination before
-- allocation, and a baseline that is no longer a baseline. The rule now reads:
--   * randomized case: the arm's sheets and those a therapist sent in with a reason (0220);
--   * case in the trial before its allocation (stage 'screening' or 'interview', no arm): no
--     worksheet at all, whoever asks;
--   * counseling case (stage 'counseling') and a case outside the trial (stage 'registration',
--     the coordinators' manual path): every sheet. Counseling is not an arm of the trial, and
--     the counselor chooses the exercises that fit (spec §8).
-- The one door stays app_hidden.worksheet_in_reach (the patient's policies, the list of sheets,
-- the out-of-arm send); the write gate of 0122 now names both refusals with a code a person can
-- act on, instead of the row-level-security refusal "forbidden".
-- See docs/decisions/arms-own-their-content.md ("Before randomization and on counseling").

-- The rule ---------------------------------------------------------------------------------------

-- True while the case is in the trial but not yet allocated: no treatment content yet.
create function app_hidden.awaiting_allocation(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select app_hidden.case_arm(awaiting_allocation.case_id) is null
     and exists (select 1 from app_public.cases c
                  where c.id = awaiting_allocation.case_id and c.stage in ('screening', 'interview'))
$$;
comment on function app_hidden.awaiting_allocation(uuid) is
  'True while a case is in the trial before its arm is drawn (screening, interview): it gets no worksheet yet.';
grant execute on function app_hidden.awaiting_allocation(uuid) to sanad_user;

create or replace function app_hidden.worksheet_in_reach(case_id uuid, worksheet text) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case
    when app_hidden.case_arm(worksheet_in_reach.case_id) is null then not app_hidden.awaiting_allocation(worksheet_in_reach.case_id)
    else exists (select 1 from app_public.arm_worksheets w
                  where w.arm = app_hidden.case_arm(worksheet_in_reach.case_id) and w.worksheet = worksheet_in_reach.worksheet)
      or exists (select 1 from app_public.out_of_arm_sends s
                  where s.case_id = worksheet_in_reach.case_id and s.kind = 'worksheet' and s.content = worksheet_in_reach.worksheet)
  end
$$;

-- The write gate ------------------------------------------------------------------------------------

-- 0122's stage refusals, with the worksheet before allocation.
create or replace function app_hidden.stage_refusal(case_id uuid, act text) returns text
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  kind constant text := app_hidden.case_stop_kind(stage_refusal.case_id);
  current_stage text;
begin
  select c.stage into current_stage from app_public.cases c where c.id = stage_refusal.case_id;
  if kind is not null then
    return case kind
      when 'screening' then 'PATH_ENDED_SCREENING'
      when 'interview' then 'PATH_ENDED_INTERVIEW'
      when 'missedInterview' then 'PATH_ENDED_MISSED_INTERVIEW'
      when 'dropout' then 'PATH_ENDED_DROPOUT'
      else 'PATH_ENDED_TEAM'
    end;
  end if;
  if current_stage in ('finished', 'rejected') then
    return 'PATH_FINISHED';
  end if;
  if act = 'booking' then
    if current_stage = 'screening' then
      return 'SCREENING_NOT_COMPLETE';
    end if;
    if current_stage not in ('registration', 'interview') then
      return 'BOOKING_CLOSED';
    end if;
  elsif act = 'worksheet' then
    if app_hidden.awaiting_allocation(stage_refusal.case_id) then
      return 'WORKSHEETS_AFTER_ALLOCATION';
    end if;
  else
    raise exception 'Unknown act "%".', act using errcode = '22023', hint = 'UNKNOWN_ACT';
  end if;
  return null;
end;
$$;

create or replace function app_hidden.refuse_by_stage(case_id uuid, act text) returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  refusal constant text := app_hidden.stage_refusal(refuse_by_stage.case_id, act);
begin
  if refusal is not null then
    raise exception '%', case refusal
        when 'SCREENING_NOT_COMPLETE' then 'An interview can be booked once the screening questionnaires are complete'
        when 'BOOKING_CLOSED' then 'Booking an interview is not open at this step of the trial'
        when 'PATH_FINISHED' then 'The participation in the trial has ended'
        when 'WORKSHEETS_AFTER_ALLOCATION' then 'Worksheets open once the treatment has been assigned'
        else 'The participation in the trial has ended: ' || lower(replace(substr(refusal, 12), '_', ' '))
      end
      using errcode = 'P0001', hint = refusal;
  end if;
end;
$$;

-- The patient's write: first the stage (above), then the arm, each refused with its own code
-- (before the policies, whose refusal would only say "not allowed").
create or replace function app_hidden.tg_worksheet_stage_gate() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  -- The writer is the case's patient (the server's own writes carry no user id).
  if exists (select 1 from app_public.case_members m
                  where m.case_id = new.case_id and m.user_id = app_public.current_user_id() and m.acts_as_patient) then
    perform app_hidden.refuse_by_stage(new.case_id, 'worksheet');
    if not app_hidden.worksheet_in_reach(new.case_id, tg_table_name) then
      raise exception 'This worksheet belongs to another treatment; your therapist can send it to you if it fits.'
        using errcode = '42501', hint = 'WORKSHEET_NOT_IN_ARM';
    end if;
  end if;
  return new;
end;
$$;

-- Letters: the screen asks for the reason before sending ----------------------------------------

-- The arm a letter's template belongs to when it is not the case's own (sending it needs a
-- reason, 0220), else null. Members of the case and coordinators, who can read the letter.
create function app_public.letter_other_arm(letter_id uuid) returns text
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  the_letter app_public.letters;
begin
  select * into the_letter from app_public.letters l where l.id = letter_other_arm.letter_id;
  if the_letter.id is null
     or not (app_hidden.is_coordinator() or the_letter.case_id in (select app_hidden.my_case_ids())) then
    raise exception 'Not involved in this case' using errcode = '42501', hint = 'NOT_INVOLVED';
  end if;
  return app_hidden.letter_out_of_arm(the_letter.case_id, the_letter.template_id);
end;
$$;
comment on function app_public.letter_other_arm(uuid) is
  'The treatment arm of a letter''s template when it is not the case''s arm (sending the letter then needs a reason), else null.';
grant execute on function app_public.letter_other_arm(uuid) to sanad_user;
