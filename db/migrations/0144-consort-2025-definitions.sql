-- Why: the CONSORT flow did not follow the CONSORT 2025 definitions. A patient excluded before
-- completing the screening was counted as "assessed for eligibility" (screened), and a patient in
-- active treatment counted as "did not receive the allocated intervention" until a treatment task
-- had been completed. Screened now means the screening was completed; received means the
-- treatment began (a treatment task is or was open, or the case's stage is treatment or a follow-up).
-- The columns stay the same, so the diagram, its table and the export keep agreeing.
create or replace function app_public.trial_participants()
  returns table (
    case_id uuid, registered_at timestamptz, stage text, screened boolean, excluded boolean, exclusion_reasons text[],
    interviewed boolean, interview_outcome text, rejection_reason text, treatment text, randomized_at timestamptz,
    received_intervention boolean, pre_completed boolean, post_completed boolean, fu1_completed boolean, fu2_completed boolean,
    trial_active boolean, is_dropout boolean, dropout_reason text, exclude_from_analysis boolean, reason_for_exclusion text)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the trial''s participants.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
  with patients as (
    select distinct on (m.case_id) m.case_id, u.*
      from app_public.case_members m join app_public.users u on u.id = m.user_id
     where m.acts_as_patient
     order by m.case_id, m.created_at
  ), trials as (
    select distinct on (i.case_id) i.case_id, i.id, i.state, i.variables
      from app_public.workflow_instances i where i.business_key = 'trial'
     order by i.case_id, i.start_time desc
  ), completions as (
    select mc.case_id, array_agg(mc.time_of_measurement) as times
      from app_private.measurement_completions mc group by mc.case_id
  )
  select c.id, c.created_at, c.stage,
         -- Assessed for eligibility: the screening was completed (its result reached the process);
         -- a patient excluded before that is registered, not screened.
         'screening' = any (coalesce(co.times, '{}')) or (tr.variables ? 'excluded'),
         coalesce(p.excluded, false),
         array_remove(array[
           case when p.excluded_for_bdi_gte45 then 'excluded_for_bdi_gte45' end,
           case when p.excluded_for_lack_of_email then 'excluded_for_lack_of_email' end,
           case when p.excluded_for_lack_of_internet_access then 'excluded_for_lack_of_internet_access' end,
           case when p.excluded_during_interview then 'excluded_during_interview' end,
           case when p.excluded_for_missing_interview then 'excluded_for_missing_interview' end,
           case when p.excluded_for_minor_age then 'excluded_for_minor_age' end,
           case when p.excluded_for_no_trauma_or_low_bdi then 'excluded_for_no_trauma_or_low_bdi' end,
           case when p.excluded_for_upcoming_treatment then 'excluded_for_upcoming_treatment' end,
           case when p.excluded and not (p.excluded_for_bdi_gte45 or p.excluded_for_lack_of_email
             or p.excluded_for_lack_of_internet_access or p.excluded_during_interview or p.excluded_for_missing_interview
             or p.excluded_for_minor_age or p.excluded_for_no_trauma_or_low_bdi or p.excluded_for_upcoming_treatment)
             then 'other' end], null),
         tr.variables ? 'outcome',
         tr.variables -> 'outcome' ->> 'value',
         tr.variables -> 'rejectionReason' ->> 'value',
         ta.treatment, ta.assigned_at,
         -- Received the allocated intervention: its treatment began (a treatment task is or was
         -- open, or the case is in treatment or a follow-up stage), so one in active treatment counts.
         ta.id is not null and (
           exists (select 1 from app_public.workflow_history h
                    where h.case_id = c.id and h.activity_id in ('patientTreatmentTask', 'therapistTreatmentTask'))
           or exists (select 1 from app_public.workflow_tasks wt
                       where wt.case_id = c.id and wt.task_definition_key in ('patientTreatmentTask', 'therapistTreatmentTask'))
           or c.stage in ('treatment', 'post', 'fu1', 'fu2')),
         'pre' = any (coalesce(co.times, '{}')), 'post' = any (coalesce(co.times, '{}')),
         'fu1' = any (coalesce(co.times, '{}')), 'fu2' = any (coalesce(co.times, '{}')),
         coalesce(tr.state = 'ACTIVE', false),
         c.is_dropout, c.dropout_reason, c.exclude_from_analysis, c.reason_for_exclusion
    from app_public.cases c
    join patients p on p.case_id = c.id
    left join trials tr on tr.case_id = c.id
    left join completions co on co.case_id = c.id
    left join app_public.treatment_assignments ta on ta.case_id = c.id
   order by c.created_at, c.id;
end;
$$;
comment on function app_public.trial_participants() is
  'One row per patient case with every fact the CONSORT flow counts; coordinators only.';
grant execute on function app_public.trial_participants() to sanad_user;
