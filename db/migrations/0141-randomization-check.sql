-- Why: the case screen offered "randomize" for cases the draw then refused, and the stratum took
-- the gender given at registration even where the signed interview report recorded another,
-- with nobody told. This computed column tells a coordinator, before the draw, whether
-- app_public.randomize_case would accept the case (and if not, why, by the same hint codes) and
-- whether registration and the signed report disagree on gender. It reads what randomize_case
-- reads and decides nothing itself: the draw keeps its own checks.
create function app_public.cases_randomization_check(c app_public.cases) returns jsonb
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  registered text;
  reported text;
  refusal text;
begin
  if not app_hidden.is_coordinator() then
    return null;
  end if;
  select u.gender::text into registered
    from app_public.case_members m join app_public.users u on u.id = m.user_id
   where m.case_id = c.id and m.acts_as_patient
   limit 1;
  select r.sex into reported
    from app_public.interview_reports r
   where r.case_id = c.id and r.state = 'final'
   order by r.finalized_at desc
   limit 1;
  refusal := case
    when exists (select 1 from app_public.treatment_assignments t where t.case_id = c.id) then 'already_randomized'
    when not exists (select 1 from app_private.allocation_config) then 'allocation_missing'
    when app_hidden.accepted_problem(c.id) is null then 'not_accepted'
  end;
  return jsonb_build_object(
    'refusal', refusal,
    'registeredGender', registered,
    'reportedGender', reported,
    'genderMismatch', registered is not null and reported is not null and registered <> reported);
end;
$$;
comment on function app_public.cases_randomization_check(app_public.cases) is
  'For coordinators: whether the draw would accept this case (refusal: null, already_randomized, allocation_missing or not_accepted) and whether registration and the signed interview report disagree on gender (the stratum uses the registration). Null for everyone else.';
grant execute on function app_public.cases_randomization_check(app_public.cases) to sanad_user;
