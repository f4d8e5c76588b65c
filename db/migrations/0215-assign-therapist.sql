-- Why: issue 26, "after randomization the case has no therapist and nothing prompts anyone to
-- assign one". A randomized case without a therapist now opens a coordinator task "assign a
-- therapist" (workflows/therapist-assignment.bpmn, started here in the transaction of the
-- draw), and assigning a therapist has one command, app_hidden.assign_therapist, which the
-- task's completion calls (src/server/workflow/task-hooks.ts). Whichever way a therapist joins
-- the case (the task, or the case's member list), the open task closes by the message
-- `therapistAssigned`. See docs/decisions/assign-therapist-after-randomization.md.

-- The one command: a coordinator makes a therapist account the therapist of a case.
create function app_hidden.assign_therapist(case_id uuid, therapist_id uuid) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may assign a therapist.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = assign_therapist.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  if therapist_id is null or not exists (select 1 from app_public.users u
                                          where u.id = assign_therapist.therapist_id and u.is_therapist_account) then
    raise exception 'Choose a person with a therapist account.' using errcode = '22023', hint = 'not_a_therapist';
  end if;
  if exists (select 1 from app_public.case_members m
              where m.case_id = assign_therapist.case_id and m.user_id = assign_therapist.therapist_id and m.acts_as_patient) then
    raise exception 'The patient of a case cannot be its therapist.' using errcode = '22023', hint = 'therapist_is_patient';
  end if;
  insert into app_public.case_members (case_id, user_id, acts_as_therapist)
  values (assign_therapist.case_id, assign_therapist.therapist_id, true)
  on conflict on constraint case_members_case_id_user_id_key do update set acts_as_therapist = true;
end;
$$;
comment on function app_hidden.assign_therapist(uuid, uuid) is
  'Coordinators: makes a therapist account the therapist of a case (adds it, or adds the role). Closes an open "assign a therapist" task.';
grant execute on function app_hidden.assign_therapist(uuid, uuid) to sanad_user;

-- A therapist joined the case, by any path: the open task "assign a therapist" is done.
create function app_hidden.tg_therapist_joined() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.acts_as_therapist and (tg_op = 'INSERT' or not old.acts_as_therapist)
     and exists (select 1 from app_public.workflow_tasks t
                  where t.case_id = new.case_id and t.task_definition_key = 'assignTherapistTask' and t.end_time is null) then
    perform app_hidden.notify_workflow(new.case_id, 'therapistAssigned',
      jsonb_build_object('therapist', jsonb_build_object('value', new.user_id::text, 'type', 'String')));
  end if;
  return null;
end;
$$;
create trigger _200_therapist_joined after insert or update of acts_as_therapist on app_public.case_members
  for each row execute function app_hidden.tg_therapist_joined();

-- A case drawn without a therapist: the coordinators get the task.
create function app_hidden.tg_randomized_needs_therapist() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if not exists (select 1 from app_public.case_members m where m.case_id = new.case_id and m.acts_as_therapist) then
    perform app_hidden.request_workflow_start(new.case_id, 'therapist-assignment', null,
      jsonb_build_object('treatment', new.treatment));
  end if;
  return null;
end;
$$;
create trigger _200_needs_therapist after insert on app_public.treatment_assignments
  for each row execute function app_hidden.tg_randomized_needs_therapist();
