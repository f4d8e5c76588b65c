-- Why: issue 27 item 1, exclusion and dropout only with the stage checked. A suicide-risk call
-- that excludes the patient (case_suicide_calls.exclude_patient, 0050/0062) marked the case a
-- dropout at any stage: a patient not yet randomized became a "dropout" (which the trial's own
-- command refuses: only a randomized patient drops out), and since the trial waits for the
-- `dropout` message only in its treatment phase, the trial went on at screening or interview
-- for an excluded patient. Now the safety exclusion follows the same stage rule as the
-- coordinators' app_hidden.exclude_case (whose text is unchanged):
--   * not randomized: an exclusion (the patient's `excluded`, stage 'excluded', every process of
--     the case ends), no dropout;
--   * randomized: as before, the patient excluded and the case a dropout (intention to treat
--     keeps them in the analysis); the trial hears `dropout` when it waits for it, otherwise
--     (before the treatment phase) every process ends and the case is finished, as exclude_case
--     does. A case already marked a dropout is not marked twice.
-- See docs/decisions/one-door-per-decision.md ("Writers outside the doors").

create or replace function app_hidden.exclude_patient_for_safety(case_id uuid, reason text) returns void
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  ask_for_post boolean;
  already_dropout boolean;
  -- The call's constraint demands a reason; the fallback keeps the audit row valid regardless.
  given text := left(coalesce(nullif(btrim(exclude_patient_for_safety.reason), ''), 'suicide-risk call'), 2000);
  randomized constant boolean := exists (select 1 from app_public.treatment_assignments t
                                          where t.case_id = exclude_patient_for_safety.case_id);
begin
  update app_public.users u set excluded = true
    from app_public.case_members m
   where m.case_id = exclude_patient_for_safety.case_id and m.acts_as_patient and u.id = m.user_id;
  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (exclude_patient_for_safety.case_id, 'excluded', true, given, app_public.current_user_id());

  if not randomized then
    update app_public.cases c set stage = 'excluded', reason_for_exclusion = given where c.id = exclude_patient_for_safety.case_id;
    perform app_hidden.end_case_workflows(exclude_patient_for_safety.case_id, 'excluded');
    return;
  end if;

  select c.is_dropout into already_dropout from app_public.cases c where c.id = exclude_patient_for_safety.case_id;
  update app_public.cases c
     set is_dropout = true,
         dropout_reason = coalesce(c.dropout_reason, given),
         reason_for_exclusion = given
   where c.id = exclude_patient_for_safety.case_id
  returning c.ask_for_post_if_dropped_out into ask_for_post;
  if already_dropout then
    return;
  end if;
  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (exclude_patient_for_safety.case_id, 'is_dropout', true, given, app_public.current_user_id());
  if exists (select 1 from app_public.workflow_instances i
              where i.case_id = exclude_patient_for_safety.case_id and i.business_key = 'trial' and i.state = 'ACTIVE'
                and 'dropout' = any (i.waiting_messages)) then
    perform app_hidden.notify_workflow(exclude_patient_for_safety.case_id, 'dropout',
      jsonb_build_object('askForPostIfDroppedOut', jsonb_build_object('value', coalesce(ask_for_post, false), 'type', 'Boolean'),
                         'excluded', jsonb_build_object('value', true, 'type', 'Boolean')));
  elsif app_hidden.end_case_workflows(exclude_patient_for_safety.case_id, 'dropout') > 0 then
    update app_public.cases c set stage = 'finished' where c.id = exclude_patient_for_safety.case_id;
  end if;
end;
$$;
comment on function app_hidden.exclude_patient_for_safety(uuid, text) is
  'A suicide-risk call excludes the case''s patient: before randomization an exclusion that ends the case''s processes; after it, also a dropout (the trial ends the treatment). Recorded in exclusion_changes.';
