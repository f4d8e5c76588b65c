-- Why: a participant may leave a trial at the level they choose (issue 31 item 3; GDPR Art. 17,
-- ICH E6(R3) documented withdrawal), and the trial's analysis and audit trail must stay sound
-- (docs/decisions/withdrawal-and-erasure.md). Three levels, each a coordinator's act with a
-- reason, each implying the ones before it:
--   stop_contact  no more mails (every mail queue drops the patient's rows) and no more tasks
--                 (the case's processes end);
--   stop_data     the trial ends for them: a randomized patient becomes a dropout through the
--                 one door (exclude_case), the collection tables refuse new data; data stays;
--   erasure       identifiers (account name, email, phone, alias, the identifying free text of
--                 the case) are overwritten, in the records and in the audit log's copies of
--                 them; analysis data (answers, scores, dates) stays, pseudonymous. A case under
--                 legal hold refuses erasure. The audit log stays verifiable: each redacted row's
--                 hash is recorded in app_private.audit_redactions, which the verifier reads.

create table app_public.case_withdrawals (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  level text not null constraint case_withdrawals_level_known check (level in ('stop_contact', 'stop_data', 'erasure')),
  reason text not null constraint case_withdrawals_reason_length check (length(btrim(reason)) between 1 and 2000),
  decided_by uuid references app_public.users (id) on delete set null,
  decided_at timestamptz not null default now(),
  constraint case_withdrawals_level_one_per_case unique (case_id, level)
);
comment on table app_public.case_withdrawals is 'A participant''s withdrawal of consent, by level, with the coordinator''s reason.';
create index case_withdrawals_decided_by_idx on app_public.case_withdrawals (decided_by);

create table app_public.case_legal_holds (
  case_id uuid primary key references app_public.cases (id) on delete cascade,
  reason text not null constraint case_legal_holds_reason_length check (length(btrim(reason)) between 1 and 2000),
  set_by uuid references app_public.users (id) on delete set null,
  set_at timestamptz not null default now()
);
comment on table app_public.case_legal_holds is 'A case whose data must be kept (a legal obligation): erasure is refused while it holds.';
create index case_legal_holds_set_by_idx on app_public.case_legal_holds (set_by);

create table app_public.case_erasures (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  erased_at timestamptz not null default now(),
  erased_by uuid references app_public.users (id) on delete set null,
  -- What was erased: {"record kind.field": rows}; never the erased values.
  report jsonb not null constraint case_erasures_report_object check (jsonb_typeof(report) = 'object'),
  cause text not null constraint case_erasures_cause_known check (cause in ('withdrawal', 'anonymization'))
);
comment on table app_public.case_erasures is 'Each erasure of a case''s identifiers: when, by whom, why, and how many fields.';
create index case_erasures_case_idx on app_public.case_erasures (case_id);
create index case_erasures_erased_by_idx on app_public.case_erasures (erased_by);

-- The hash of every audit row whose copies of identifiers were erased, as it was before (the
-- row_hash column is not changed): the verifier checks these rows against this record.
create table app_private.audit_redactions (
  audit_id bigint primary key,
  row_hash text not null,
  redacted_at timestamptz not null default now(),
  erasure_id uuid not null
);
alter table app_private.audit_redactions enable row level security;
create index audit_redactions_erasure_idx on app_private.audit_redactions (erasure_id);

create trigger _900_audit after insert or update or delete on app_public.case_withdrawals
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.case_legal_holds
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.case_erasures
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.case_withdrawals enable row level security;
alter table app_public.case_legal_holds enable row level security;
alter table app_public.case_erasures enable row level security;
-- The case's people (the patient included) see a withdrawal; holds and erasures are staff matters.
create policy select_case on app_public.case_withdrawals for select to sanad_user
  using ((select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids()));
create policy select_staff on app_public.case_legal_holds for select to sanad_user
  using ((select app_hidden.is_coordinator()) or ((select app_hidden.is_staff()) and case_id in (select app_hidden.my_case_ids())));
create policy select_staff on app_public.case_erasures for select to sanad_user
  using ((select app_hidden.is_coordinator()) or ((select app_hidden.is_staff()) and case_id in (select app_hidden.my_case_ids())));
grant select on app_public.case_withdrawals, app_public.case_legal_holds, app_public.case_erasures to sanad_user;

-- Which identifying fields the erasure overwrites, per record kind (a table with case_id).
-- Free text that may name or describe the person; answers, scores and dates stay.
create table app_private.identifying_fields (
  table_name text not null,
  column_name text not null,
  primary key (table_name, column_name)
);
alter table app_private.identifying_fields enable row level security;
insert into app_private.identifying_fields (table_name, column_name)
select f.t, f.c from (values
  ('cases', 'title'), ('cases', 'description'), ('cases', 'emergency_contact'),
  ('case_messages', 'subject'), ('case_messages', 'body'),
  ('letters', 'subject'), ('letters', 'body'),
  ('worksheet_feedback', 'body'),
  ('case_suicide_calls', 'detailed_description'), ('case_suicide_calls', 'follow_up_description'),
  ('cbt_activities', 'activities'), ('cbt_reframings', 'negative_thought'), ('cbt_reframings', 'healthy_thought'),
  ('cbt_thoughts', 'situation'), ('cbt_thoughts', 'automatic_thought'), ('cbt_thoughts', 'alternative_thought'),
  ('ipt_conflicts', 'conflict'), ('ipt_conflicts', 'need_or_aim'),
  ('ipt_relationships', 'person'), ('ipt_relationships', 'need_or_expectation'), ('ipt_relationships', 'barrier'),
  ('ipt_situations', 'situation'), ('ipt_situations', 'barrier'), ('ipt_situations', 'alternative_strategy'), ('ipt_situations', 'result'),
  ('feedback_interview_reports', 'general_changes'), ('feedback_interview_reports', 'changes_for_worse'),
  ('feedback_interview_reports', 'causes_of_changes'), ('feedback_interview_reports', 'hindering_parts'),
  ('feedback_interview_reports', 'helpful_difficult_parts'), ('feedback_interview_reports', 'neglected_parts'),
  ('feedback_interview_reports', 'motivating_parts')
) as f (t, c)
union all
select r.t, f.c from (values ('interview_reports'), ('interview_report_versions')) as r (t),
  (values ('patient_name'), ('alias'), ('residence'), ('phone'), ('video_account'), ('suicidality_notes'), ('trauma_description'),
          ('worst_event'), ('ptsd_notes'), ('mde_notes'), ('pdd_notes'), ('other_rejection_notes'), ('register_again_reason_text'),
          ('additional_comments')) as f (c);
-- Only the columns that exist (a later migration may drop one; the list never names a ghost).
delete from app_private.identifying_fields f
 where not exists (select 1 from information_schema.columns c
                    where c.table_schema = 'app_public' and c.table_name = f.table_name and c.column_name = f.column_name);

-- The account fields that identify the person: overwritten with values that keep the
-- constraints (unique, formats) and say nothing.
create function app_hidden.erased_account_fields() returns text[]
  language sql immutable
  set search_path = pg_catalog
as $$ select array['username', 'email', 'alias', 'phone', 'access_path_detail'] $$;

-- Withdrawal state -------------------------------------------------------------------------------

create function app_hidden.contact_stopped(user_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.case_withdrawals w join app_public.case_members m on m.case_id = w.case_id and m.acts_as_patient
                  where m.user_id = contact_stopped.user_id)
$$;

create function app_hidden.data_stopped(case_id uuid) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select exists (select 1 from app_public.case_withdrawals w where w.case_id = data_stopped.case_id and w.level in ('stop_data', 'erasure'))
$$;
grant execute on function app_hidden.data_stopped(uuid) to sanad_user;

-- Every mail queue drops a row for a patient who withdrew (any level): no more mails.
create function app_hidden.tg_mail_contact_stopped() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if app_hidden.contact_stopped(new.user_id) then
    return null;
  end if;
  return new;
end;
$$;
create trigger _050_contact_stopped before insert on app_private.workflow_mails
  for each row execute function app_hidden.tg_mail_contact_stopped();
create trigger _050_contact_stopped before insert on app_private.notification_queue
  for each row execute function app_hidden.tg_mail_contact_stopped();
create trigger _050_contact_stopped before insert on app_private.interview_mail_queue
  for each row execute function app_hidden.tg_mail_contact_stopped();
create trigger _050_contact_stopped before insert on app_private.report_mails
  for each row execute function app_hidden.tg_mail_contact_stopped();

-- 0245's gate, now also closed after a withdrawal from new data (this migration's own function
-- from 0245, extended).
create or replace function app_hidden.tg_collection_needs_consent() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if app_hidden.data_stopped(new.case_id) then
    raise exception 'This participant withdrew from the trial; no new data is collected.'
      using errcode = 'P0001', hint = 'withdrawn_no_new_data';
  end if;
  if app_hidden.consent_pending(new.case_id) then
    -- P0001: every API (REST, GraphQL) answers it as 400 with this code.
    raise exception 'Please read and agree to the updated consent before you continue.'
      using errcode = 'P0001', hint = 'consent_required';
  end if;
  return new;
end;
$$;

-- 0245's affected participants, without those who withdrew from new data.
create or replace function app_hidden.consent_affected_cases(version integer) returns setof uuid
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select distinct cc.case_id
    from app_public.case_consents cc
    join app_public.cases c on c.id = cc.case_id
   where c.stage not in ('finished', 'excluded', 'anonymization')
     and not app_hidden.data_stopped(cc.case_id)
     and not exists (select 1 from app_public.case_consents later
                      where later.case_id = cc.case_id and later.version >= consent_affected_cases.version)
$$;

-- Erasure ----------------------------------------------------------------------------------------

-- What the erasure of a case overwrites, field by field (rows still holding a value). With
-- perform = false it only counts: the dry-run report. With perform = true it overwrites, with
-- the tables' own triggers paused (sent messages and signed reports are otherwise final, and
-- the audit trigger would copy the identifiers once more), then redacts the audit log's copies.
-- Callers check who may and whether a legal hold stands (withdraw_case, the retention job).
create function app_hidden.erase_case(case_id uuid, perform boolean, cause text default 'withdrawal')
  returns table (record_kind text, field text, records bigint)
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  f record;
  n bigint;
  patient uuid;
  report jsonb := '{}';
  erasure uuid := gen_random_uuid();
  touched text[] := '{}';
  t text;
  k text;
  account_fields text[] := app_hidden.erased_account_fields();
begin
  select m.user_id into patient from app_public.case_members m
   where m.case_id = erase_case.case_id and m.acts_as_patient order by m.created_at limit 1;
  if patient is not null then
    foreach k in array account_fields loop
      execute format('select count(*) from app_public.users u where u.id = $1 and u.%I is not null and u.%I::text not like $2', k, k)
        into n using patient, 'erased-%';
      record_kind := 'users'; field := k; records := n;
      report := report || jsonb_build_object('users.' || k, n);
      return next;
    end loop;
  end if;
  for f in select i.table_name, i.column_name from app_private.identifying_fields i order by 1, 2 loop
    execute format('select count(*) from app_public.%I r where r.%I = $1 and r.%I is not null and r.%I <> %L',
                   f.table_name, case when f.table_name = 'cases' then 'id' else 'case_id' end, f.column_name, f.column_name, '[erased]')
      into n using erase_case.case_id;
    record_kind := f.table_name; field := f.column_name; records := n;
    report := report || jsonb_build_object(f.table_name || '.' || f.column_name, n);
    return next;
  end loop;
  if not perform then
    return;
  end if;

  -- Overwrite, with the tables' own triggers paused for this transaction's statements. The
  -- account keeps its triggers (the case search text and the interview read cache follow its
  -- name); the audit row that update writes is redacted below with the others.
  select array_agg(distinct i.table_name) into touched from app_private.identifying_fields i;
  foreach t in array touched loop
    execute format('alter table app_public.%I disable trigger user', t);
  end loop;
  if patient is not null then
    update app_public.users u
       set username = 'erased-' || substr(replace(u.id::text, '-', ''), 1, 20),
           email = 'erased-' || replace(u.id::text, '-', '') || '@erased.invalid',
           alias = null, phone = null, access_path_detail = null
     where u.id = patient;
    delete from app_private.user_secrets s where s.user_id = patient;
    delete from app_private.login_tokens l where l.user_id = patient;
    delete from app_private.action_tokens a where a.user_id = patient;
  end if;
  for f in select i.table_name, i.column_name from app_private.identifying_fields i order by 1, 2 loop
    execute format('update app_public.%I r set %I = %L where r.%I = $1 and r.%I is not null and r.%I <> %L',
                   f.table_name, f.column_name, '[erased]', case when f.table_name = 'cases' then 'id' else 'case_id' end,
                   f.column_name, f.column_name, '[erased]')
      using erase_case.case_id;
  end loop;
  foreach t in array touched loop
    execute format('alter table app_public.%I enable trigger user', t);
  end loop;
  update app_public.cases c set search_text = app_hidden.case_search_text(c.id) where c.id = erase_case.case_id;

  -- The audit log's copies: the case's chain, and the account's rows (chain table:users).
  alter table app_public.audit_log disable trigger _000_append_only;
  with redacted as (
    select a.id, a.row_hash,
           app_hidden.erased_copy(a.table_name, a.old_data) as old_data,
           app_hidden.erased_copy(a.table_name, a.new_data) as new_data
      from app_public.audit_log a
     where (a.case_id = erase_case.case_id or (a.table_name = 'users' and a.record_id = patient))
       and not exists (select 1 from app_private.audit_redactions x where x.audit_id = a.id)
  ), changed as (
    update app_public.audit_log a set old_data = r.old_data, new_data = r.new_data
      from redacted r
     where a.id = r.id and (a.old_data is distinct from r.old_data or a.new_data is distinct from r.new_data)
    returning a.id, r.row_hash
  )
  insert into app_private.audit_redactions (audit_id, row_hash, erasure_id)
  select c.id, c.row_hash, erasure from changed c;
  alter table app_public.audit_log enable trigger _000_append_only;

  insert into app_public.case_erasures (id, case_id, erased_by, report, cause)
  values (erasure, erase_case.case_id, app_public.current_user_id(), report, erase_case.cause);
end;
$$;

-- An audit row's copy of a record with its identifying fields overwritten.
create function app_hidden.erased_copy(table_name text, data jsonb) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when data is null then null else
    data || coalesce((
      select jsonb_object_agg(k, to_jsonb('[erased]'::text))
        from (select i.column_name as k from app_private.identifying_fields i where i.table_name = erased_copy.table_name
              union all
              select unnest(app_hidden.erased_account_fields()) where erased_copy.table_name = 'users'
              union all
              -- search_text repeats the account's name and address
              select 'search_text' where erased_copy.table_name = 'cases') f
       where data ? k and data -> k <> 'null'::jsonb), '{}'::jsonb)
  end
$$;

-- The door ---------------------------------------------------------------------------------------

-- A coordinator records a withdrawal at a level, with a reason. Refused with nothing changed:
-- not a coordinator, unknown level, no reason, no such case, already at this level, erasure
-- under legal hold.
create function app_hidden.withdraw_case(case_id uuid, level text, reason text) returns app_public.case_withdrawals
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  made app_public.case_withdrawals;
  patient uuid;
  randomized boolean;
  already_dropout boolean;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may record a withdrawal.' using errcode = '42501', hint = 'forbidden';
  end if;
  if level is null or level not in ('stop_contact', 'stop_data', 'erasure') then
    raise exception 'Choose a level: stop contact, stop new data or erasure.' using errcode = '22023', hint = 'withdrawal_level_unknown';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = withdraw_case.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  select m.user_id into patient from app_public.case_members m
   where m.case_id = withdraw_case.case_id and m.acts_as_patient order by m.created_at limit 1;
  if patient is null then
    raise exception 'The case has no patient.' using errcode = '55000', hint = 'no_patient';
  end if;
  if exists (select 1 from app_public.case_withdrawals w where w.case_id = withdraw_case.case_id and w.level = withdraw_case.level) then
    raise exception 'This withdrawal is recorded already.' using errcode = '55000', hint = 'already_withdrawn';
  end if;
  if level = 'erasure' and exists (select 1 from app_public.case_legal_holds h where h.case_id = withdraw_case.case_id) then
    raise exception 'This case is under legal hold; its data may not be erased while the hold stands.' using errcode = '55000', hint = 'legal_hold';
  end if;

  insert into app_public.case_withdrawals (case_id, level, reason, decided_by)
  values (withdraw_case.case_id, withdraw_case.level, btrim(withdraw_case.reason), app_public.current_user_id())
  returning * into made;

  -- Every level: no more mails (queued ones go now) and no more tasks.
  delete from app_private.workflow_mails q where q.user_id = patient;
  delete from app_private.notification_queue q where q.user_id = patient;
  delete from app_private.interview_mail_queue q where q.user_id = patient;
  delete from app_private.report_mails q where q.user_id = patient;

  if level in ('stop_data', 'erasure') and not exists (select 1 from app_public.case_withdrawals w
      where w.case_id = withdraw_case.case_id and w.level in ('stop_data', 'erasure') and w.id <> made.id) then
    -- The trial ends for them: a randomized patient drops out through the one door (CONSORT
    -- counts them, intention to treat keeps their data); then every process ends.
    randomized := exists (select 1 from app_public.treatment_assignments t where t.case_id = withdraw_case.case_id);
    already_dropout := exists (select 1 from app_public.cases c where c.id = withdraw_case.case_id and c.is_dropout);
    if randomized and not already_dropout then
      perform app_hidden.exclude_case(withdraw_case.case_id, 'is_dropout', true, 'Withdrew consent: ' || btrim(withdraw_case.reason));
    end if;
    perform app_hidden.end_case_workflows(withdraw_case.case_id, 'withdrawn');
    update app_public.cases c set stage = 'finished'
     where c.id = withdraw_case.case_id and c.stage not in ('finished', 'excluded', 'anonymization');
    update app_public.consent_requests r set answered_at = now() where r.case_id = withdraw_case.case_id and r.answered_at is null;
  else
    perform app_hidden.end_case_workflows(withdraw_case.case_id, 'withdrawn');
  end if;

  if level = 'erasure' then
    perform 1 from app_hidden.erase_case(withdraw_case.case_id, true, 'withdrawal');
  end if;
  return made;
end;
$$;
grant execute on function app_hidden.withdraw_case(uuid, text, text) to sanad_user;

-- The dry run of an erasure, for coordinators (what would be overwritten, field by field).
create function app_hidden.erasure_preview(case_id uuid) returns table (record_kind text, field text, records bigint)
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may see what an erasure would change.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = erasure_preview.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  return query select * from app_hidden.erase_case(erasure_preview.case_id, false);
end;
$$;
grant execute on function app_hidden.erasure_preview(uuid) to sanad_user;

-- Sets or lifts a legal hold (coordinators, with a reason).
create function app_hidden.set_legal_hold(case_id uuid, hold boolean, reason text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may set a legal hold.' using errcode = '42501', hint = 'forbidden';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = set_legal_hold.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  if hold then
    insert into app_public.case_legal_holds (case_id, reason, set_by)
    values (set_legal_hold.case_id, btrim(reason), app_public.current_user_id())
    on conflict on constraint case_legal_holds_pkey do update set reason = excluded.reason, set_by = excluded.set_by, set_at = now();
  else
    delete from app_public.case_legal_holds h where h.case_id = set_legal_hold.case_id;
  end if;
end;
$$;
grant execute on function app_hidden.set_legal_hold(uuid, boolean, text) to sanad_user;
