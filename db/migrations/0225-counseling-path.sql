-- Why: issue 27 item 5, "counseling is a dead end". The interview outcome "counseling" ended the
-- trial at stage `counseling` and nothing followed. Now a signed intake report whose result is a
-- counseling referral (the one door of 0150: signing completes the trial's interview step) starts
-- the counseling process (workflows/counseling.bpmn); a coordinator assigns a counselor through
-- one command; the counselor holds the sessions, sends a closing letter and closes the counseling.
-- See docs/decisions/counseling-path.md and docs/WORKFLOW.md ("The counseling process").

-- The start: only a signed report with the counseling result ----------------------------------------

-- Signing is the only way a report becomes final (0150 lets it happen only while the trial waits
-- for the interview outcome), so this is reached only through the one door. A case never runs
-- two counseling processes at once (a second referral while one runs starts nothing).
create function app_hidden.tg_report_starts_counseling() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.state = 'final' and old.state = 'draft' and new.trial_outcome = 'counseling'
     and not exists (select 1 from app_public.workflow_instances i
                      where i.case_id = new.case_id and i.definition_key = 'counseling' and i.state = 'ACTIVE')
     and not exists (select 1 from app_private.workflow_start_requests r
                      where r.case_id = new.case_id and r.definition_key = 'counseling') then
    perform app_hidden.request_workflow_start(new.case_id, 'counseling', 'counseling',
      jsonb_build_object('interviewReportId', jsonb_build_object('value', new.id::text, 'type', 'String')));
  end if;
  return null;
end;
$$;
create trigger _860_starts_counseling after update of state on app_public.interview_reports
  for each row execute function app_hidden.tg_report_starts_counseling();

-- Assigning the counselor: one command ----------------------------------------------------------

-- Whether the case is on its counseling path now: its counseling process runs.
create function app_hidden.in_counseling(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.workflow_instances i
                  where i.case_id = in_counseling.case_id and i.definition_key = 'counseling' and i.state = 'ACTIVE')
$$;

-- The one door to a case's counselor: coordinators only; the person must hold a counselor
-- account; the case must be on its counseling path. The counselor becomes a member acting as
-- counselor (a former counselor of the case stops acting as one, and leaves the case when that
-- was their only role), and the process hears `counselorAssigned`, which completes the
-- coordinator's task "Assign a counselor". Every refusal comes before any write.
create function app_hidden.assign_counselor(case_id uuid, counselor_id uuid) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may assign a counselor.' using errcode = '42501', hint = 'not_coordinator';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = assign_counselor.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  if not exists (select 1 from app_public.users u
                   left join app_private.user_secrets s on s.user_id = u.id
                  where u.id = assign_counselor.counselor_id and u.is_counselor_account and s.disabled_at is null) then
    raise exception 'Choose a person with an active counselor account.' using errcode = '22023', hint = 'not_a_counselor';
  end if;
  if not app_hidden.in_counseling(assign_counselor.case_id) then
    raise exception 'This case is not on its counseling path, so it gets no counselor.' using errcode = '55000', hint = 'not_in_counseling';
  end if;
  if exists (select 1 from app_public.case_members m
              where m.case_id = assign_counselor.case_id and m.user_id = assign_counselor.counselor_id and m.acts_as_patient) then
    raise exception 'The patient cannot be their own counselor.' using errcode = '22023', hint = 'not_a_counselor';
  end if;

  -- The former counselor: the role ends; a membership that held nothing else ends with it.
  delete from app_public.case_members m
   where m.case_id = assign_counselor.case_id and m.user_id <> assign_counselor.counselor_id and m.acts_as_counselor
     and not (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter or m.acts_as_patient);
  update app_public.case_members m set acts_as_counselor = false
   where m.case_id = assign_counselor.case_id and m.user_id <> assign_counselor.counselor_id and m.acts_as_counselor;

  insert into app_public.case_members (case_id, user_id, acts_as_counselor)
  values (assign_counselor.case_id, assign_counselor.counselor_id, true)
  on conflict on constraint case_members_case_id_user_id_key do update set acts_as_counselor = true;

  perform app_hidden.notify_workflow(assign_counselor.case_id, 'counselorAssigned',
    jsonb_build_object('counselorId', jsonb_build_object('value', assign_counselor.counselor_id::text, 'type', 'String')));
end;
$$;
revoke execute on function app_hidden.assign_counselor(uuid, uuid) from public;
grant execute on function app_hidden.assign_counselor(uuid, uuid) to sanad_user;
grant execute on function app_hidden.in_counseling(uuid) to sanad_user;

-- The second door closed: a request may not give or take the counselor role by writing
-- case_members directly (the membership screen, GraphQL). The command above runs as the owner;
-- the CLI, the demo and the account tools act as the owner too.
create function app_hidden.tg_counselor_through_command() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if current_user::text = 'sanad_user' and (
       (tg_op = 'INSERT' and new.acts_as_counselor)
    or (tg_op = 'UPDATE' and new.acts_as_counselor is distinct from old.acts_as_counselor)
    or (tg_op = 'DELETE' and old.acts_as_counselor)) then
    raise exception 'A counselor is assigned on the case''s counseling panel.' using errcode = '42501', hint = 'counselor_through_command';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end;
$$;
create trigger _040_counselor_through_command before insert or update or delete on app_public.case_members
  for each row execute function app_hidden.tg_counselor_through_command();

-- Who may be chosen: the active counselor accounts, for coordinators (the counseling panel).
create function app_hidden.counselor_accounts() returns table (id uuid, username text, alias text)
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select u.id, u.username::text, u.alias
    from app_public.users u
    left join app_private.user_secrets s on s.user_id = u.id
   where u.is_counselor_account and s.disabled_at is null and app_hidden.is_coordinator()
   order by coalesce(u.alias, u.username::text)
$$;
grant execute on function app_hidden.counselor_accounts() to sanad_user;

-- The closing letter: a counselor's letter sent in a counseling case tells the process ------------

create function app_hidden.tg_counseling_letter_sent() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.published_at is not null and (tg_op = 'INSERT' or old.published_at is null)
     and exists (select 1 from app_public.case_members m
                  where m.case_id = new.case_id and m.user_id = new.sender_id and m.acts_as_counselor)
     and app_hidden.in_counseling(new.case_id) then
    perform app_hidden.notify_workflow(new.case_id, 'counselingLetterSent',
      jsonb_build_object('letterId', jsonb_build_object('value', new.id::text, 'type', 'String')));
  end if;
  return null;
end;
$$;
create trigger _855_counseling_letter after insert or update of published_at on app_public.letters
  for each row execute function app_hidden.tg_counseling_letter_sent();

-- Counselors write letters (0071 lets them) from the letter templates, which only staff could
-- read: a counselor account reads the LETTER templates too.
create function app_hidden.is_counselor() returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select coalesce((select u.is_counselor_account from app_public.users u where u.id = app_public.current_user_id()), false)
$$;
grant execute on function app_hidden.is_counselor() to sanad_user;
create policy select_letters_counselor on app_public.content_templates for select to sanad_user
  using (type = 'LETTER' and (select app_hidden.is_counselor()));
