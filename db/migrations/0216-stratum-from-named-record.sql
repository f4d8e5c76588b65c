-- Why: issue 26, "the stratum used the registration gender although the interview recorded
-- another, with no mismatch flagged". The trial's allocation now names the record the gender
-- factor comes from (settings.genderSource: registration, screening or report; absent means
-- registration, as before), and the draw reads that record. The check a coordinator reads
-- before the draw lists all three records, says which one the draw uses, and flags any
-- disagreement between them.
-- Redefines app_hidden.case_factor_levels (0060) and app_public.cases_randomization_check (0141).

-- The gender each record gives for a case (null where it gives none).
create function app_hidden.case_gender_records(case_id uuid) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select jsonb_build_object(
    'registration', (select u.gender::text from app_public.case_members m join app_public.users u on u.id = m.user_id
                      where m.case_id = case_gender_records.case_id and m.acts_as_patient limit 1),
    'screening', (select d.gender from app_public.demographics d
                   where d.case_id = case_gender_records.case_id and d.time_of_measurement = 'screening' limit 1),
    'report', (select r.sex from app_public.interview_reports r
                where r.case_id = case_gender_records.case_id and r.state = 'final'
                order by r.finalized_at desc limit 1))
$$;

-- The record the trial names for the gender factor.
create function app_hidden.gender_source() returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce((select c.settings ->> 'genderSource' from app_private.allocation_config c), 'registration')
$$;

create or replace function app_hidden.case_factor_levels(case_id uuid) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select jsonb_build_object(
    'gender', coalesce(app_hidden.case_gender_records(case_factor_levels.case_id) ->> app_hidden.gender_source(), 'unknown'),
    'problem', coalesce(app_hidden.accepted_problem(case_factor_levels.case_id), 'unknown'))
$$;

create or replace function app_public.cases_randomization_check(c app_public.cases) returns jsonb
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  records jsonb;
  given text[];
  refusal text;
begin
  if not app_hidden.is_coordinator() then
    return null;
  end if;
  records := app_hidden.case_gender_records(c.id);
  select array_agg(distinct value) into given from jsonb_each_text(records) where value is not null;
  refusal := case
    when exists (select 1 from app_public.treatment_assignments t where t.case_id = c.id) then 'already_randomized'
    when not exists (select 1 from app_private.allocation_config) then 'allocation_missing'
    when app_hidden.accepted_problem(c.id) is null then 'not_accepted'
  end;
  return jsonb_build_object(
    'refusal', refusal,
    'genderSource', app_hidden.gender_source(),
    'genders', records,
    'registeredGender', records ->> 'registration',
    'reportedGender', records ->> 'report',
    'genderMismatch', coalesce(cardinality(given), 0) > 1);
end;
$$;
comment on function app_public.cases_randomization_check(app_public.cases) is
  'For coordinators: whether the draw would accept this case (refusal: null, already_randomized, allocation_missing or not_accepted), the gender each record gives (registration, screening, report), which one the stratum uses (genderSource) and whether they disagree. Null for everyone else.';
