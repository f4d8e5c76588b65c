-- Why: the exclusion and dropout columns of a case were still writable by a direct update
-- (GraphQL updateCaseById, REST PATCH /api/cases), which skipped what app_hidden.exclude_case
-- (0061) guarantees: a reason, a row in app_public.exclusion_changes, and the end of the case's
-- open tasks. They are now written only through that function (POST /api/trial/cases/:id/exclusion)
-- or by the server's own routines. The exclusion after a suicide-risk call
-- (app_hidden.exclude_patient_for_safety, 0050) records its change in exclusion_changes too,
-- so the audit of exclusions is complete. See docs/DECISIONS.md "2026-11 Staff case list on PagedCases".

revoke update (is_dropout, dropout_reason, exclude_from_analysis, reason_for_exclusion) on app_public.cases from sanad_user;

-- Redefines 0050's function: the same effect (the patient excluded, the case a dropout, the
-- dropout message to the process), plus one exclusion_changes row per flag it sets.
create or replace function app_hidden.exclude_patient_for_safety(case_id uuid, reason text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  ask_for_post boolean;
  -- The call's constraint demands a reason; the fallback keeps the audit row valid regardless.
  given text := left(coalesce(nullif(btrim(exclude_patient_for_safety.reason), ''), 'suicide-risk call'), 2000);
begin
  update app_public.users u set excluded = true
    from app_public.case_members m
   where m.case_id = exclude_patient_for_safety.case_id and m.acts_as_patient and u.id = m.user_id;
  update app_public.cases c
     set is_dropout = true,
         dropout_reason = coalesce(c.dropout_reason, left(exclude_patient_for_safety.reason, 2000)),
         reason_for_exclusion = left(exclude_patient_for_safety.reason, 2000)
   where c.id = exclude_patient_for_safety.case_id
  returning c.ask_for_post_if_dropped_out into ask_for_post;
  insert into app_public.exclusion_changes (case_id, flag, value, reason, changed_by)
  values (exclude_patient_for_safety.case_id, 'excluded', true, given, app_public.current_user_id()),
         (exclude_patient_for_safety.case_id, 'is_dropout', true, given, app_public.current_user_id());
  perform app_hidden.notify_workflow(exclude_patient_for_safety.case_id, 'dropout',
    jsonb_build_object('askForPostIfDroppedOut', jsonb_build_object('value', coalesce(ask_for_post, false), 'type', 'Boolean'),
                       'excluded', jsonb_build_object('value', true, 'type', 'Boolean')));
end;
$$;
comment on function app_hidden.exclude_patient_for_safety(uuid, text) is
  'Excludes the case''s patient with a reason and ends treatment as a dropout does (askForPostIfDroppedOut of the case); both flags are recorded in exclusion_changes.';
