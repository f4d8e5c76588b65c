-- Why: issue 27, "one door for every clinical decision". Several decisions had a second door
-- that skipped the trial's rules:
--   * an interview report could be finalized while the trial was not in its interview phase (the
--     report said accepted, the trial said screening), and a case could get a second final
--     intake report (a randomized patient then "rejected" by a later report);
--   * the arm could be drawn outside the trial's randomization step (the GraphQL mutation
--     randomizeCase), so the randomization task stayed open and the stage did not move;
--   * a coordinator could exclude a randomized patient (which breaks intention to treat) or mark
--     a case a dropout before it was ever randomized.
-- Each rule now holds in the database, for every caller (REST, GraphQL, workflow, CLI, demo).
-- See docs/decisions/one-door-per-decision.md.

-- The interview report: signed only in the interview phase, one decisive report per case -------

-- A report becomes final only while the case's trial waits for the interview outcome (its task
-- "Record the interview outcome" is open), and only when no other final report of the case has
-- decided the trial already. A report whose result was "register again later" ends that trial
-- without deciding; the patient's next interview (a new trial) gets a report of its own.
create function app_hidden.tg_interview_report_one_door() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if new.state = 'final' and old.state = 'draft' then
    if new.trial_outcome is distinct from 'later' and exists (
         select 1 from app_public.interview_reports r
          where r.case_id = new.case_id and r.id <> new.id and r.state = 'final' and r.trial_outcome is distinct from 'later') then
      raise exception 'This case already has a signed intake report; a coordinator amends that report instead.'
        using errcode = '23505', hint = 'final_report_exists';
    end if;
    if not exists (select 1 from app_public.workflow_tasks t
                    where t.case_id = new.case_id and t.task_definition_key = 'interviewTask' and t.end_time is null) then
      raise exception 'The trial of this case is not waiting for an interview outcome, so the report cannot be signed now.'
        using errcode = '55000', hint = 'not_in_interview_phase';
    end if;
  end if;
  return new;
end;
$$;
create trigger _055_one_door before update of state on app_public.interview_reports
  for each row execute function app_hidden.tg_interview_report_one_door();

-- Randomization: only in the trial's randomization step ------------------------------------------

-- The request role no longer reaches the draw directly (the GraphQL mutation randomizeCase goes
-- away): the server draws inside the trial's step (src/server/trial/randomize.ts and the task
-- hook of randomizeTask), which completes the task in the same transaction.
revoke execute on function app_public.randomize_case(uuid) from sanad_user;

-- The draw itself also refuses a case whose trial is not waiting in its randomization step.
create function app_hidden.tg_assignment_in_step() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if not exists (select 1 from app_public.workflow_tasks t
                  where t.case_id = new.case_id and t.task_definition_key = 'randomizeTask' and t.end_time is null) then
    raise exception 'The trial of this case is not waiting for randomization; the arm is drawn in the trial''s randomization step.'
      using errcode = '55000', hint = 'not_in_randomization_step';
  end if;
  return new;
end;
$$;
create trigger _050_in_step before insert on app_public.treatment_assignments
  for each row execute function app_hidden.tg_assignment_in_step();

-- Exclusion and dropout: the stage checked --------------------------------------------------------

-- Redefines 0061's app_hidden.exclude_case: the same flags, reasons and effects, and two stage
-- rules before anything is written:
--   * a patient exclusion flag cannot be raised once the case is randomized: the patient stays
--     in the analysis (intention to treat); a coordinator marks a dropout instead;
--   * a dropout can be marked only for a randomized case (before randomization the patient is
--     excluded instead), and not twice;
--   * a dropout before the treatment phase ends every process of the case (see below).
-- Clearing a flag stays possible at any stage (correcting a mistake).
create or replace function app_hidden.exclude_case(case_id uuid, flag text, value boolean, reason text,
                                                   ask_for_post boolean default false) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  patient_flags constant text[] := array['excluded', 'excluded_for_bdi_gte45', 'excluded_for_lack_of_email',
    'excluded_for_lack_of_internet_access', 'excluded_during_interview', 'excluded_for_missing_interview',
    'excluded_for_minor_age', 'excluded_for_no_trauma_or_low_bdi', 'excluded_for_upcoming_treatment'];
  patient_id uuid;
  randomized boolean;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may change exclusion flags.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not (flag = any (patient_flags) or flag in ('exclude_from_analysis', 'is_dropout')) then
    raise exception 'Unknown exclusion flag "%".', flag using errcode = '22023', hint = 'unknown_flag';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = exclude_case.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  randomized := exists (select 1 from app_public.treatment_assignments t where t.case_id = exclude_case.case_id);
  if value and flag = any (patient_flags) and randomized then
    raise exception 'This patient is randomized and stays in the trial''s analysis; mark a dropout instead of an exclusion.'
      using errcode = '55000', hint = 'randomized_use_dropout';
  end if;
  if value and flag = 'is_dropout' and not randomized then
    raise exception 'Only a randomized patient can drop out; before randomization exclude the patient instead.'
      using errcode = '55000', hint = 'dropout_before_randomization';
  end if;
  if value and flag = 'is_dropout' and exists (select 1 from app_public.cases c where c.id = exclude_case.case_id and c.is_dropout) then
    raise exception 'This case is already marked as a dropout.' using errcode = '55000', hint = 'already_dropout';
  end if;

  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (exclude_case.case_id, flag, value, btrim(reason), app_public.current_user_id());

  if flag = any (patient_flags) then
    select m.user_id into patient_id from app_public.case_members m
     where m.case_id = exclude_case.case_id and m.acts_as_patient limit 1;
    if patient_id is null then
      raise exception 'The case has no patient to exclude.' using errcode = '55000', hint = 'no_patient';
    end if;
    execute format('update app_public.users set %I = $1 where id = $2', flag) using value, patient_id;
    -- `excluded` is true while any reason is; clearing `excluded` itself clears it alone.
    update app_public.users u set excluded = case when flag = 'excluded' then value else
        u.excluded_for_bdi_gte45 or u.excluded_for_lack_of_email or u.excluded_for_lack_of_internet_access
        or u.excluded_during_interview or u.excluded_for_missing_interview or u.excluded_for_minor_age
        or u.excluded_for_no_trauma_or_low_bdi or u.excluded_for_upcoming_treatment
        or (u.excluded and value) end
     where u.id = patient_id;
    if value then
      update app_public.cases c set stage = 'excluded', reason_for_exclusion = btrim(reason) where c.id = exclude_case.case_id;
      perform app_hidden.end_case_workflows(exclude_case.case_id, 'excluded');
    end if;
  elsif flag = 'exclude_from_analysis' then
    update app_public.cases c set exclude_from_analysis = value, reason_for_exclusion = case when value then btrim(reason) end
     where c.id = exclude_case.case_id;
  else
    update app_public.cases c set is_dropout = value, dropout_reason = case when value then btrim(reason) end,
           ask_for_post_if_dropped_out = value and coalesce(ask_for_post, false)
     where c.id = exclude_case.case_id;
    if value then
      -- The trial takes the message only in its treatment phase (post questionnaires may
      -- follow); before that (waiting for the questionnaires before treatment) every process of
      -- the case ends now, the arm's worksheet processes included. 0061 asked whether any
      -- process waited for `dropout`, so a worksheet process took the message and the trial
      -- went on at "before treatment".
      if exists (select 1 from app_public.workflow_instances i
                  where i.case_id = exclude_case.case_id and i.business_key = 'trial' and i.state = 'ACTIVE'
                    and 'dropout' = any (i.waiting_messages)) then
        perform app_hidden.notify_workflow(exclude_case.case_id, 'dropout',
          jsonb_build_object('askForPostIfDroppedOut', jsonb_build_object('value', coalesce(ask_for_post, false), 'type', 'Boolean'),
                             'dropoutReason', jsonb_build_object('value', btrim(reason), 'type', 'String')));
      elsif app_hidden.end_case_workflows(exclude_case.case_id, 'dropout') > 0 then
        update app_public.cases c set stage = 'finished' where c.id = exclude_case.case_id;
      end if;
    end if;
  end if;
end;
$$;
