-- Why: issue 27 item 1, one door per decision. The case's stage is the trial's record of where a
-- patient is (screening, interview, treatment, follow-ups); the trial process moves it, and the
-- stage gates (0122, 0270) open booking and worksheets by it. Coordinators could still write the
-- stage of any case through the case form (GraphQL updateCase, REST PATCH /api/cases): a second
-- door that could move a trial patient to "treatment" without randomization, or to "interview"
-- before the screening was complete (booking opens there). Now, once the trial runs for a case,
-- its stage is written only by the trial (the workflow steps and the security-definer doors run
-- as the owner); a request that tries is refused with a code. A case without a trial (the
-- coordinators' manual path, stage 'registration' and what they set) keeps the editable stage.
-- See docs/decisions/one-door-per-decision.md ("The stage").

create function app_hidden.case_has_trial(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.workflow_instances i
                  where i.case_id = case_has_trial.case_id and i.definition_key = 'trial')
$$;
comment on function app_hidden.case_has_trial(uuid) is
  'True once the trial process was started for the case: from then on the trial alone moves its stage.';
grant execute on function app_hidden.case_has_trial(uuid) to sanad_user;

create function app_hidden.tg_stage_by_the_trial() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  -- Requests run as sanad_user; the trial's steps, the doors (security definer), the CLI and the
  -- workers run as the owner.
  if current_user::text = 'sanad_user' and new.stage is distinct from old.stage
     and app_hidden.case_has_trial(new.id) then
    raise exception 'The trial moves this case''s stage. Use its steps instead: the interview report, randomization, exclusion or dropout.'
      using errcode = '55000', hint = 'stage_by_the_trial';
  end if;
  return new;
end;
$$;
create trigger _040_stage_by_the_trial before update of stage on app_public.cases
  for each row execute function app_hidden.tg_stage_by_the_trial();
