-- Why: every exclusion or dropout is now a row of app_public.exclusion_changes, whoever decided
-- it. 0061/0062 made app_hidden.exclude_case (coordinators) and the suicide-risk exclusion
-- record their changes; the server's own rules still set the flags without a row: the screening
-- rules (app_hidden.raise_screening_exclusions, 0009), a finalized interview report with the
-- outcome rejected and the missed-interview limit (src/server/reports/service.ts), the trial
-- reaching its "excluded" stage at screening (the setStage handler) and a dropout sent as the
-- workflow message `dropout` by staff (POST /message), which ended the treatment without marking
-- the case a dropout at all. Each now goes through one of two named functions below, in the
-- transaction of the decision. The trial's behaviour (stages, tasks, messages) is unchanged.
-- See docs/DECISIONS.md "2026-11 One door for exclusions; safety follow-up dates".

comment on table app_public.exclusion_changes is
  'Every exclusion or dropout flag set or cleared, with the reason: by a person (changed_by) or by the server''s rules (changed_by null). The flags themselves are the current state; these rows are their history.';

-- A readable reason for each screening rule (src/domain/instruments/exclusions.ts decides them).
create function app_hidden.screening_exclusion_reason(flag text) returns text
  language sql immutable
  set search_path = pg_catalog
as $$
  select case flag
    when 'excluded_for_lack_of_email' then 'Screening rule: the patient has no email address.'
    when 'excluded_for_lack_of_internet_access' then 'Screening rule: the patient has no internet access.'
    when 'excluded_for_minor_age' then 'Screening rule: the patient is younger than the minimum age.'
    when 'excluded_for_upcoming_treatment' then 'Screening rule: another psychotherapy is planned.'
    when 'excluded_for_bdi_gte45' then 'Screening rule: the BDI-II total is at or above the exclusion threshold.'
    when 'excluded_for_no_trauma_or_low_bdi' then 'Screening rule: no trauma reported or a low BDI-II total.'
    else 'Screening rule: ' || flag || '.'
  end
$$;

-- Raises one patient exclusion flag (and `excluded` with it) for a decision of the server, and
-- records it: one exclusion_changes row when the patient was not already excluded for this
-- reason, none otherwise (a repeated decision changes nothing). `decided_by` is the person whose
-- act decided (the interviewer who finalized), or null for a rule. With `case_reason`, the case's
-- reason_for_exclusion becomes the reason too. Unlike exclude_case it neither ends processes nor
-- sets the stage: the callers are steps of the trial that move on by themselves. Server only (no
-- grant): the request roles reach it only through the functions and routes that decide.
create function app_hidden.raise_patient_exclusion(case_id uuid, flag text, reason text, decided_by uuid,
                                                   case_reason boolean default false) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  patient_flags constant text[] := array['excluded', 'excluded_for_bdi_gte45', 'excluded_for_lack_of_email',
    'excluded_for_lack_of_internet_access', 'excluded_during_interview', 'excluded_for_missing_interview',
    'excluded_for_minor_age', 'excluded_for_no_trauma_or_low_bdi', 'excluded_for_upcoming_treatment'];
  given constant text := left(btrim(coalesce(reason, '')), 2000);
  patient_id uuid;
  unchanged boolean;
begin
  if not flag = any (patient_flags) then
    raise exception 'Unknown exclusion flag "%".', flag using errcode = '22023', hint = 'unknown_flag';
  end if;
  if length(given) = 0 then
    raise exception 'An exclusion needs a reason.' using errcode = '22023', hint = 'reason_required';
  end if;
  select u.id, (to_jsonb(u) ->> flag)::boolean and u.excluded into patient_id, unchanged
    from app_public.case_members m join app_public.users u on u.id = m.user_id
   where m.case_id = raise_patient_exclusion.case_id and m.acts_as_patient
   order by m.created_at
   limit 1
     for update of u;
  if case_reason then
    update app_public.cases c set reason_for_exclusion = given where c.id = raise_patient_exclusion.case_id;
  end if;
  if patient_id is null or unchanged then
    return false;
  end if;
  if flag = 'excluded' then
    update app_public.users u set excluded = true where u.id = patient_id;
  else
    execute format('update app_public.users set %I = true, excluded = true where id = $1', flag) using patient_id;
  end if;
  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (raise_patient_exclusion.case_id, flag, true, given, decided_by);
  return true;
end;
$$;
comment on function app_hidden.raise_patient_exclusion(uuid, text, text, uuid, boolean) is
  'Raises a patient exclusion flag decided by the server (a rule, or the person in decided_by) and records it in exclusion_changes once.';

-- Redefines 0009's function (generated there from src/server/questionnaires/migration.ts, which
-- keeps the old text so that the committed 0009 stays what ran): the same flags, each newly
-- raised one recorded with its rule as the reason and no person (the rules decided, not the
-- patient who answered).
create or replace function app_hidden.raise_screening_exclusions(case_id uuid, exclusions text[]) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  flag text;
begin
  if not exclusions <@ array[
    'excluded_for_lack_of_email', 'excluded_for_lack_of_internet_access', 'excluded_for_minor_age',
    'excluded_for_upcoming_treatment', 'excluded_for_bdi_gte45', 'excluded_for_no_trauma_or_low_bdi'
  ] then
    raise exception 'Not a screening exclusion: %', exclusions using errcode = '22023';
  end if;
  if not app_hidden.is_member(raise_screening_exclusions.case_id) then
    raise exception 'Not involved in this case' using errcode = '42501', hint = 'NOT_INVOLVED';
  end if;
  foreach flag in array coalesce(exclusions, '{}') loop
    perform app_hidden.raise_patient_exclusion(raise_screening_exclusions.case_id, flag,
      app_hidden.screening_exclusion_reason(flag), null);
  end loop;
end;
$$;

-- The trial reached its "excluded" stage (workflows/trial.bpmn, screening): the screening rules
-- raised their flags before (recorded above), so this records nothing then. When the screening
-- step was completed by hand with excluded = true and no rule applied, the patient's `excluded`
-- flag follows the process and the change is recorded, so stage, flag and history agree.
create function app_hidden.confirm_excluded_stage(case_id uuid) returns boolean
  language sql volatile security definer
  set search_path = pg_catalog
as $$
  select app_hidden.raise_patient_exclusion(confirm_excluded_stage.case_id, 'excluded',
    'The trial process ended the screening as excluded without a screening rule applying (the screening step was completed by hand).', null)
$$;

-- A dropout a person sent as the workflow message `dropout` (POST /message: the case's
-- therapists, supervisors, coordinators, 0020/0076): the case becomes a dropout as through
-- exclude_case, with the reason sent along (`dropoutReason`) or a note that none was given, and
-- one exclusion_changes row by the sender. A case already marked a dropout changes nothing.
create function app_hidden.record_dropout_message(case_id uuid, ask_for_post boolean, reason text, sent_by uuid) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  given constant text := left(coalesce(nullif(btrim(reason), ''),
    'Dropout sent as the workflow message "dropout" without a reason.'), 2000);
begin
  update app_public.cases c
     set is_dropout = true, dropout_reason = given, ask_for_post_if_dropped_out = coalesce(ask_for_post, false)
   where c.id = record_dropout_message.case_id and not c.is_dropout;
  if not found then
    return false;
  end if;
  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (record_dropout_message.case_id, 'is_dropout', true, given, sent_by);
  return true;
end;
$$;
comment on function app_hidden.record_dropout_message(uuid, boolean, text, uuid) is
  'Marks a case a dropout after a person sent the dropout message, with one exclusion_changes row.';

-- The people who send `dropout` may say why, as a coordinator does through exclude_case.
update app_private.workflow_calls
   set variables = coalesce(variables, '{}'::jsonb) || '{"dropoutReason": "String"}'::jsonb
 where action = 'message' and name = 'dropout';
