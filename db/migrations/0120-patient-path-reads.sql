-- Why: issue 25, the patient's home that follows the stage. Two facts the patient needs and could
-- not read: (1) which letters from the therapist they have not opened yet ("unread marked"):
-- letters are unchangeable once sent (0071's guard), so a reading is a row of its own; (2) whether
-- a risk answer of theirs is still open, so that the crisis panel stays reachable on every
-- patient page until the care team has responded (the staff count, cases_open_safety_signals,
-- is null for patients on purpose: it is a staff work count, this is a yes/no for the patient).

-- Letter readings ---------------------------------------------------------------------------------

create table app_public.letter_reads (
  letter_id uuid not null references app_public.letters (id) on delete cascade,
  reader_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  read_at timestamptz not null default now(),
  primary key (letter_id, reader_id)
);
comment on table app_public.letter_reads is 'When a member first opened a sent letter of their case (the patient''s "new letter" mark).';
create index letter_reads_case_idx on app_public.letter_reads (case_id);
create index letter_reads_reader_idx on app_public.letter_reads (reader_id);

create trigger _900_audit after insert or update or delete on app_public.letter_reads
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.letter_reads enable row level security;
-- Only one's own readings; they are written through mark_letters_read alone (no insert grant).
create policy select_own on app_public.letter_reads for select to sanad_user
  using (reader_id = (select app_public.current_user_id()));
grant select on app_public.letter_reads to sanad_user;

-- A sent letter the reader has not opened yet; never for its own writer or a draft.
create function app_public.letters_is_unread(l app_public.letters) returns boolean
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select l.published_at is not null
     and l.sender_id is distinct from app_public.current_user_id()
     and app_hidden.is_member(l.case_id)
     and not exists (select 1 from app_public.letter_reads r
                      where r.letter_id = l.id and r.reader_id = app_public.current_user_id())
$$;
comment on function app_public.letters_is_unread(app_public.letters) is
  'True when the letter was sent to a case of mine and I have not opened it yet.';
grant execute on function app_public.letters_is_unread(app_public.letters) to sanad_user;

-- Marks every sent letter of a case as read by the caller (they opened the letters page).
create function app_public.mark_letters_read(case_id uuid) returns integer
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  me constant uuid := app_public.current_user_id();
  marked integer;
begin
  if me is null or not app_hidden.is_member(mark_letters_read.case_id) then
    raise exception 'Not involved in this case' using errcode = 'P0001', hint = 'NOT_INVOLVED';
  end if;
  insert into app_public.letter_reads (letter_id, reader_id, case_id)
  select l.id, me, l.case_id from app_public.letters l
   where l.case_id = mark_letters_read.case_id and l.published_at is not null
     and l.sender_id is distinct from me
  on conflict do nothing;
  get diagnostics marked = row_count;
  return marked;
end;
$$;
comment on function app_public.mark_letters_read(uuid) is
  'Marks the sent letters of a case as read by me (when I open them); returns how many were new.';
grant execute on function app_public.mark_letters_read(uuid) to sanad_user;

-- The patient's open risk -------------------------------------------------------------------------

-- True while a risk answer of this case waits for the care team, for the case's patient (their
-- crisis panel stays in reach), its staff and coordinators; null for anyone else.
create function app_public.cases_risk_open(c app_public.cases) returns boolean
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not (app_hidden.is_member(c.id) or app_hidden.is_coordinator()) then
    return null;
  end if;
  return exists (select 1 from app_public.safety_signals s where s.case_id = c.id and s.resolved_at is null);
end;
$$;
comment on function app_public.cases_risk_open(app_public.cases) is
  'Whether a risk answer of the case is still open (the patient''s crisis panel stays in reach meanwhile).';
grant execute on function app_public.cases_risk_open(app_public.cases) to sanad_user;

-- Why the path ended, in kinds a patient can be told -------------------------------------------------

-- The kind of the reason the case's path stopped, for the words the patient reads (and the
-- refusals of the stage gates, 0122): 'screening' (a screening rule read the answers),
-- 'interview' (decided at the interview), 'missedInterview', 'team' (the study team ended the
-- participation, e.g. consent withdrawn: never worded as "your answers show…"), 'dropout'
-- (the treatment was ended early), or null while the path is open. Server side, no grant.
create function app_hidden.case_stop_kind(case_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case
    when u.excluded_for_bdi_gte45 or u.excluded_for_lack_of_email or u.excluded_for_lack_of_internet_access
         or u.excluded_for_minor_age or u.excluded_for_no_trauma_or_low_bdi or u.excluded_for_upcoming_treatment then 'screening'
    when u.excluded_during_interview then 'interview'
    when u.excluded_for_missing_interview then 'missedInterview'
    when u.excluded or c.stage = 'excluded' then 'team'
    when c.is_dropout then 'dropout'
  end
  from app_public.cases c
  left join app_public.case_members m on m.case_id = c.id and m.acts_as_patient
  left join app_public.users u on u.id = m.user_id
  where c.id = case_stop_kind.case_id
  order by m.created_at
  limit 1
$$;

-- The same for the case's own members (the patient's home) and coordinators; null for others.
create function app_public.cases_stop_kind(c app_public.cases) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select case when app_hidden.is_member(c.id) or app_hidden.is_coordinator() then app_hidden.case_stop_kind(c.id) end
$$;
comment on function app_public.cases_stop_kind(app_public.cases) is
  'Why the path of the case stopped, as a kind: screening, interview, missedInterview, team, dropout; null while it is open.';
grant execute on function app_public.cases_stop_kind(app_public.cases) to sanad_user;
