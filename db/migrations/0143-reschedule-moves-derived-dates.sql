-- Why: after an interview was moved, the interviewer's task "Record the interview outcome" kept
-- its old due date and the trial process its old startsAt (the process catches no
-- interviewRescheduled message), so two screens showed two times for one interview. One
-- scheduling truth: whenever a booked slot's time changes, every date derived from it moves in
-- the same transaction: the open interview task's due date and the process variable startsAt.
-- (Interview mails carry the time they are queued with, and invoice items take the offer's
-- start when they are made, so both follow by themselves.)
create function app_hidden.move_interview_dates(case_id uuid, starts_at timestamptz) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  update app_public.workflow_instances i
     set variables = jsonb_set(i.variables, '{startsAt}',
           jsonb_build_object('value', to_char(starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                              'type', coalesce(i.variables -> 'startsAt' ->> 'type', 'String')))
   where i.case_id = move_interview_dates.case_id and i.business_key = 'trial' and i.end_time is null
     and i.variables ? 'startsAt';
  update app_public.workflow_tasks t set due = starts_at
   where t.case_id = move_interview_dates.case_id and t.task_definition_key = 'interviewTask' and t.end_time is null;
end;
$$;

create function app_hidden.tg_interview_offer_moved() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if lower(new.time_slot) is distinct from lower(old.time_slot) then
    perform app_hidden.move_interview_dates(b.case_id, lower(new.time_slot))
       from app_public.interview_bookings b where b.offer_id = new.id and not b.canceled;
  end if;
  return null;
end;
$$;
create trigger _600_move_derived_dates after update of time_slot on app_public.interview_offers
  for each row execute function app_hidden.tg_interview_offer_moved();
