-- Why: the treatment's worksheets (spec §3 "Exercises", §7 /api/ipt_conflicts … /api/cbt_thoughts)
-- and the therapist's written feedback on them (spec §3 "Feedback and text entries").
-- A patient writes a worksheet as a draft that only they see, then sends it; sending sets
-- published_at (stamped by the server) and from then on the entry is part of the clinical
-- record: no role, coordinators and the connection owner included, may change or delete it
-- (spec §4). The care team of the case reads sent entries only; nobody else reads anything.
-- Feedback follows the same rule the other way round: the therapist's draft is theirs, the
-- sent feedback is read by the patient and the care team and never changes. Sending either
-- queues a content-free mail (app_private.notification_queue) and tells the case's workflow.

-- Shared rules ---------------------------------------------------------------------------------

-- Refuses every change to a sent entry and to who/which case an entry belongs to, and stamps
-- published_at with the server's clock when an entry is sent (a client's time is not trusted).
create function app_hidden.tg_sent_entry_guard() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
declare
  owner_column text := tg_argv[0];
begin
  if tg_op in ('UPDATE', 'DELETE') and old.published_at is not null then
    raise exception 'This entry was sent and is part of the case record: it cannot be changed or deleted'
      using errcode = 'P0001', hint = 'SENT_ENTRY_IMMUTABLE';
  end if;
  if tg_op = 'DELETE' then
    return old;
  end if;
  if tg_op = 'UPDATE' and (new.case_id is distinct from old.case_id
      or to_jsonb(new) -> owner_column is distinct from to_jsonb(old) -> owner_column) then
    raise exception 'An entry stays in its case and with its writer' using errcode = 'P0001', hint = 'ENTRY_OWNER_FIXED';
  end if;
  if new.published_at is not null then
    new.published_at := greatest(now(), new.created_at);
  end if;
  return new;
end;
$$;

-- The patients of a case as the ones feedback is mailed to, its therapists and counselors as
-- the ones a sent worksheet is mailed to: a content-free "something new" mail, by kind.
create function app_hidden.tg_worksheet_sent_notify() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.published_at is not null and (tg_op = 'INSERT' or old.published_at is null) then
    insert into app_private.notification_queue (user_id, case_id, kind)
    select m.user_id, m.case_id, 'new_worksheet' from app_public.case_members m
     where m.case_id = new.case_id and m.user_id is distinct from new.submitter_id
       and (m.acts_as_therapist or m.acts_as_counselor);
    perform app_hidden.notify_workflow(new.case_id, 'worksheet_sent',
      jsonb_build_object('worksheet', tg_table_name, 'worksheetId', new.id));
  end if;
  return null;
end;
$$;

-- The worksheets ---------------------------------------------------------------------------------

create table app_public.ipt_conflicts (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  conflict text constraint conflict_length check (length(conflict) <= 10000),
  need_or_aim text constraint need_or_aim_length check (length(need_or_aim) <= 10000),
  importance integer constraint importance_range check (importance between 0 and 10),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(conflict, ''))) > 0)
);
comment on table app_public.ipt_conflicts is 'IPT worksheet: an interpersonal conflict, the need or aim in it and how important it is (0–10). A draft while published_at is empty; unchangeable once sent.';

create table app_public.ipt_relationships (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  person text constraint person_length check (length(person) <= 300),
  need_or_expectation text constraint need_or_expectation_length check (length(need_or_expectation) <= 10000),
  barrier text constraint barrier_length check (length(barrier) <= 10000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(need_or_expectation, ''))) > 0)
);
comment on table app_public.ipt_relationships is 'IPT worksheet: a relationship, the need or expectation in it and what stands in the way. A draft while published_at is empty; unchangeable once sent.';

create table app_public.ipt_situations (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  situation text constraint situation_length check (length(situation) <= 10000),
  barrier text constraint barrier_length check (length(barrier) <= 10000),
  alternative_strategy text constraint alternative_strategy_length check (length(alternative_strategy) <= 10000),
  result text constraint result_length check (length(result) <= 10000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(situation, ''))) > 0)
);
comment on table app_public.ipt_situations is 'IPT worksheet: a situation, the barrier met, an alternative strategy and its result. A draft while published_at is empty; unchangeable once sent.';

create table app_public.cbt_activities (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  activities text constraint activities_length check (length(activities) <= 10000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(activities, ''))) > 0)
);
comment on table app_public.cbt_activities is 'CBT worksheet: pleasant or meaningful activities planned or done. A draft while published_at is empty; unchangeable once sent.';

create table app_public.cbt_reframings (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  negative_thought text constraint negative_thought_length check (length(negative_thought) <= 10000),
  healthy_thought text constraint healthy_thought_length check (length(healthy_thought) <= 10000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(negative_thought, ''))) > 0)
);
comment on table app_public.cbt_reframings is 'CBT worksheet: a negative thought reframed as a healthy one. A draft while published_at is empty; unchangeable once sent.';

create table app_public.cbt_thoughts (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  situation text constraint situation_length check (length(situation) <= 10000),
  automatic_thought text constraint automatic_thought_length check (length(automatic_thought) <= 10000),
  -- the thinking traps the patient recognises, from a fixed list the forms translate
  cognitive_biases text[] not null default '{}' constraint cognitive_biases_known check (
    cognitive_biases <@ array['all_or_nothing', 'overgeneralization', 'mental_filter', 'discounting_positive',
      'mind_reading', 'fortune_telling', 'catastrophizing', 'emotional_reasoning', 'should_statements',
      'labeling', 'personalization']::text[]
    and cardinality(cognitive_biases) <= 11),
  alternative_thought text constraint alternative_thought_length check (length(alternative_thought) <= 10000),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(coalesce(automatic_thought, ''))) > 0)
);
comment on table app_public.cbt_thoughts is 'CBT thought record: a situation, the automatic thought, the thinking traps in it and an alternative thought. A draft while published_at is empty; unchangeable once sent.';

-- The same rules on each worksheet: the patient of the case writes their own drafts; the care
-- team reads what was sent; the text is kept out of the audit log (drafts are the patient's).
do $$
declare
  t text;
  own text;
  content_columns text;
  redacted text;
begin
  foreach t in array array['ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts'] loop
    select string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position),
           string_agg(quote_literal('!' || c.column_name), ', ' order by c.ordinal_position)
      into content_columns, redacted
      from information_schema.columns c
     where c.table_schema = 'app_public' and c.table_name = t
       and c.column_name not in ('id', 'case_id', 'submitter_id', 'published_at', 'created_at', 'updated_at');
    execute format('comment on column app_public.%I.published_at is %L', t,
      'When the patient sent the entry (set by the server); empty for a draft. A sent entry never changes.');
    execute format('create index %I on app_public.%I (case_id, published_at)', t || '_case_idx', t);
    execute format('create index %I on app_public.%I (submitter_id)', t || '_submitter_idx', t);
    execute format('create trigger _050_guard before insert or update or delete on app_public.%I
      for each row execute function app_hidden.tg_sent_entry_guard(%L)', t, 'submitter_id');
    execute format('create trigger _100_set_updated_at before update on app_public.%I
      for each row execute function app_hidden.tg_set_updated_at()', t);
    execute format('create trigger _850_notify after insert or update on app_public.%I
      for each row execute function app_hidden.tg_worksheet_sent_notify()', t);
    execute format('create trigger _900_audit after insert or update or delete on app_public.%I
      for each row execute function app_hidden.tg_audit(%L, %s)', t, 'case_id', redacted);
    execute format('alter table app_public.%I enable row level security', t);
    own := 'submitter_id = (select app_public.current_user_id())
            and case_id in (select app_hidden.my_case_ids_as(''patient''))';
    execute format('create policy select_own_or_sent on app_public.%I for select to sanad_user using (
      (%s) or (published_at is not null and case_id in (select app_hidden.my_care_team_case_ids())))', t, own);
    execute format('create policy insert_own on app_public.%I for insert to sanad_user with check (%s)', t, own);
    execute format('create policy update_own on app_public.%I for update to sanad_user using (%s) with check (%s)', t, own, own);
    execute format('create policy delete_own on app_public.%I for delete to sanad_user using (%s)', t, own);
    execute format('grant select on app_public.%I to sanad_user', t);
    execute format('grant insert (id, case_id, %s, published_at) on app_public.%I to sanad_user', content_columns, t);
    execute format('grant update (case_id, %s, published_at) on app_public.%I to sanad_user', content_columns, t);
    execute format('grant delete on app_public.%I to sanad_user', t);
  end loop;
end;
$$;

-- Feedback ---------------------------------------------------------------------------------------

create table app_public.worksheet_feedback (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  -- which worksheet collection and entry this answers; checked by the guard below
  worksheet text not null constraint worksheet_known check (worksheet in
    ('ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts')),
  worksheet_id uuid not null,
  author_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  body text not null default '' constraint body_length check (length(body) <= 20000),
  format text not null default 'plain' constraint format_known check (format in ('plain', 'markdown')),
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sent_is_filled check (published_at is null or length(btrim(body)) > 0)
);
comment on table app_public.worksheet_feedback is 'A therapist''s written feedback on a sent worksheet entry. A draft while published_at is empty; unchangeable once sent.';
comment on column app_public.worksheet_feedback.published_at is 'When the feedback was sent (set by the server); empty for a draft.';
create index worksheet_feedback_entry_idx on app_public.worksheet_feedback (worksheet_id);
create index worksheet_feedback_case_idx on app_public.worksheet_feedback (case_id, published_at);

-- Feedback answers a sent entry of the same case: a draft cannot be answered, nor can an entry
-- of another case be pulled in by its id. Runs as definer because the entry must be found
-- whatever the writer may read.
create function app_hidden.sent_worksheet_case(worksheet text, worksheet_id uuid) returns uuid
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  found uuid;
begin
  if worksheet not in ('ipt_conflicts', 'ipt_relationships', 'ipt_situations', 'cbt_activities', 'cbt_reframings', 'cbt_thoughts') then
    return null;
  end if;
  execute format('select case_id from app_public.%I where id = $1 and published_at is not null', worksheet)
    into found using worksheet_id;
  return found;
end;
$$;

create function app_hidden.tg_worksheet_feedback_entry() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if tg_op = 'INSERT' or new.worksheet_id is distinct from old.worksheet_id or new.worksheet is distinct from old.worksheet then
    if app_hidden.sent_worksheet_case(new.worksheet, new.worksheet_id) is distinct from new.case_id then
      raise exception 'Feedback answers a sent worksheet entry of the same case' using errcode = 'P0001', hint = 'FEEDBACK_NEEDS_SENT_ENTRY';
    end if;
  end if;
  return new;
end;
$$;

create function app_hidden.tg_worksheet_feedback_notify() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if new.published_at is not null and (tg_op = 'INSERT' or old.published_at is null) then
    insert into app_private.notification_queue (user_id, case_id, kind)
    select m.user_id, m.case_id, 'worksheet_feedback' from app_public.case_members m
     where m.case_id = new.case_id and m.acts_as_patient and m.user_id is distinct from new.author_id;
  end if;
  return null;
end;
$$;

create trigger _040_entry before insert or update on app_public.worksheet_feedback
  for each row execute function app_hidden.tg_worksheet_feedback_entry();
create trigger _050_guard before insert or update or delete on app_public.worksheet_feedback
  for each row execute function app_hidden.tg_sent_entry_guard('author_id');
create trigger _100_set_updated_at before update on app_public.worksheet_feedback
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _850_notify after insert or update on app_public.worksheet_feedback
  for each row execute function app_hidden.tg_worksheet_feedback_notify();
create trigger _900_audit after insert or update or delete on app_public.worksheet_feedback
  for each row execute function app_hidden.tg_audit('case_id', '!body');

alter table app_public.worksheet_feedback enable row level security;

-- The therapists and counselors of the case write feedback; everyone of the case reads it once
-- sent; a draft only its author.
create policy select_own_or_sent on app_public.worksheet_feedback for select to sanad_user using (
  author_id = (select app_public.current_user_id())
  or (published_at is not null and case_id in (select app_hidden.my_case_ids()))
);
create policy insert_own on app_public.worksheet_feedback for insert to sanad_user with check (
  author_id = (select app_public.current_user_id())
  and (case_id in (select app_hidden.my_case_ids_as('therapist')) or case_id in (select app_hidden.my_case_ids_as('counselor')))
);
create policy update_own on app_public.worksheet_feedback for update to sanad_user
  using (author_id = (select app_public.current_user_id()))
  with check (
    author_id = (select app_public.current_user_id())
    and (case_id in (select app_hidden.my_case_ids_as('therapist')) or case_id in (select app_hidden.my_case_ids_as('counselor')))
  );
create policy delete_own on app_public.worksheet_feedback for delete to sanad_user
  using (author_id = (select app_public.current_user_id()));

grant select on app_public.worksheet_feedback to sanad_user;
grant insert (id, case_id, worksheet, worksheet_id, body, format, published_at) on app_public.worksheet_feedback to sanad_user;
grant update (case_id, worksheet, worksheet_id, body, format, published_at) on app_public.worksheet_feedback to sanad_user;
grant delete on app_public.worksheet_feedback to sanad_user;

grant execute on function app_hidden.sent_worksheet_case(text, uuid) to sanad_user;
