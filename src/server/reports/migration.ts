/**
 * Writes db/migrations/0040-interview-reports.sql from the report definition
 * (src/domain/interview-report): the tables of the interview report, its versions and the
 * follow-up feedback report, with a check per field, row-level security, column grants and the
 * lock of a finalized report. `scripts/generate-report-sql.ts` writes the file;
 * migration.test.ts fails when the committed file and this output differ. Once 0040 is
 * released it never changes: a later field goes into a new migration (see the header of
 * scripts/generate-questionnaire-sql.ts for the same rule).
 */
import { FEEDBACK_FIELDS, REPORT_FIELDS, TRIAL_OUTCOMES, type FieldType } from '../../domain/interview-report';

export const REPORT_MIGRATION_FILE = 'db/migrations/0040-interview-reports.sql';

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The column type and check of one field (the check is named so the API can explain it). */
export function columnSql(table: string, id: string, type: FieldType): string {
  const check = (condition: string) => `\n    constraint ${table}_${id}_check check (${condition})`;
  switch (type.kind) {
    case 'bool':
      return `${id} boolean`;
    case 'int':
      return `${id} integer${check(`${id} between ${type.min} and ${type.max}`)}`;
    case 'text':
      return `${id} text${check(`char_length(${id}) <= ${type.maxLength}`)}`;
    case 'date':
      return `${id} date`;
    case 'enum':
      return `${id} text${check(`${id} in (${type.options.map((o) => quote(o.code)).join(', ')})`)}`;
    case 'enums':
      return `${id} text[]${check(`${id} <@ array[${type.options.map((o) => quote(o.code)).join(', ')}]::text[] and array_position(${id}, null) is null`)}`;
  }
}

const OUTCOME_CHECK = `trial_outcome in (${TRIAL_OUTCOMES.map(quote).join(', ')})`;

function fieldColumns(table: string, fields: readonly { id: string; type: FieldType }[]): string {
  return fields.map((f) => `  ${columnSql(table, f.id, f.type)},`).join('\n');
}

export function reportMigration(): string {
  const input = REPORT_FIELDS.filter((f) => !f.derived).map((f) => f.id);
  const all = REPORT_FIELDS.map((f) => f.id);
  const feedback = FEEDBACK_FIELDS.map((f) => f.id);
  const versionColumns = ['state', 'version', ...all, 'trial_outcome', 'finalized_at', 'finalized_by', 'override_reason', 'override_by', 'amended_at', 'amended_by', 'amendment_reason', 'updated_at'];
  const wrap = (list: readonly string[], indent = '  ') => {
    const lines: string[] = [];
    let line = '';
    for (const item of list) {
      if (line.length + item.length > 96) {
        lines.push(line.trimEnd());
        line = '';
      }
      line += `${item}, `;
    }
    lines.push(line.replace(/, $/, ''));
    return lines.map((l) => indent + l).join('\n');
  };

  return `-- Why: the interview report is the trial's intake decision (spec §2 "Interview report screen",
-- §3 "Interview report" and "Follow-up feedback report", §4 "Interview outcome"). Every field is a
-- typed, named column so researchers can export it; the list comes from ONE definition
-- (src/domain/interview-report/definition.ts) through src/server/reports/migration.ts, which
-- also writes this file (npx tsx scripts/generate-report-sql.ts; a test fails when it is stale).
-- Rules that must hold for every caller live here:
--   * one report per booking (unique), written only for a booking that is not cancelled and has
--     begun, by the booking's interviewer or a coordinator (trigger + policy);
--   * the derived columns (MINI score and risk, PTSD groups, criteria, AUDIT and DAST totals)
--     are not granted: the server computes them from the items on every save;
--   * a finalized report is locked for every request role, coordinators included; only the
--     server's amendment routine (owner role, for this one report) may change it, and the
--     trigger keeps the earlier version in interview_report_versions;
--   * the case's staff read; the patient, a supporter or interviewer outside the case read nothing.

-- The case's staff: app_hidden.my_staff_case_ids() (0011), members acting in a staff role.

-- Interview reports ------------------------------------------------------------------------------

create table app_public.interview_reports (
  id uuid primary key default gen_random_uuid(),
  booking_id uuid not null references app_public.interview_bookings (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  interviewer_id uuid references app_public.users (id) on delete set null,
  state text not null default 'draft' constraint interview_reports_state_check check (state in ('draft', 'final')),
  version integer not null default 1,
${fieldColumns('interview_reports', REPORT_FIELDS)}
  trial_outcome text constraint interview_reports_trial_outcome_check check (${OUTCOME_CHECK}),
  finalized_at timestamptz,
  finalized_by uuid references app_public.users (id) on delete set null,
  override_reason text constraint interview_reports_override_reason_check check (char_length(override_reason) between 1 and 2000),
  override_by uuid references app_public.users (id) on delete set null,
  amended_at timestamptz,
  amended_by uuid references app_public.users (id) on delete set null,
  amendment_reason text constraint interview_reports_amendment_reason_check check (char_length(amendment_reason) between 1 and 2000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint interview_reports_one_per_booking unique (booking_id),
  constraint interview_reports_final_signed check (state = 'draft' or (finalized_at is not null and trial_outcome is not null))
);
comment on table app_public.interview_reports is
  E'@behavior -insert -update -delete\nThe report of an intake interview (one per booking): every section of the interview as named columns, and the result that decides the trial path. Drafts are saved as the interviewer types; a finalized report is signed and locked.';
comment on column app_public.interview_reports.suicidality_risk is
  'MINI 5.0.0 module C suicide risk computed by the server from C1–C6: none, low (1–5 points), moderate (6–9), high (10+).';
comment on column app_public.interview_reports.trial_outcome is 'The trial path the finalized result chose: ptsd, depression, counseling, rejected or later.';
create index interview_reports_case_idx on app_public.interview_reports (case_id);
create index interview_reports_interviewer_idx on app_public.interview_reports (interviewer_id);
create index interview_reports_finalized_by_idx on app_public.interview_reports (finalized_by);
create index interview_reports_override_by_idx on app_public.interview_reports (override_by);
create index interview_reports_amended_by_idx on app_public.interview_reports (amended_by);

-- Earlier versions of amended reports, as they were before each amendment.
create table app_public.interview_report_versions (
  id uuid primary key default gen_random_uuid(),
  report_id uuid not null references app_public.interview_reports (id) on delete cascade,
  booking_id uuid not null,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  interviewer_id uuid references app_public.users (id) on delete set null,
  state text not null,
  version integer not null,
${REPORT_FIELDS.map((f) => `  ${columnSql('interview_report_versions', f.id, f.type).replace(/\n\s+constraint [^\n]+/, '')},`).join('\n')}
  trial_outcome text,
  finalized_at timestamptz,
  finalized_by uuid references app_public.users (id) on delete set null,
  override_reason text,
  override_by uuid references app_public.users (id) on delete set null,
  amended_at timestamptz,
  amended_by uuid references app_public.users (id) on delete set null,
  amendment_reason text,
  updated_at timestamptz not null,
  superseded_at timestamptz not null default now(),
  constraint interview_report_versions_one unique (report_id, version)
);
comment on table app_public.interview_report_versions is E'@behavior -insert -update -delete\nEvery earlier version of an amended interview report, kept for audit.';
create index interview_report_versions_case_idx on app_public.interview_report_versions (case_id);
create index interview_report_versions_interviewer_idx on app_public.interview_report_versions (interviewer_id);
create index interview_report_versions_finalized_by_idx on app_public.interview_report_versions (finalized_by);
create index interview_report_versions_override_by_idx on app_public.interview_report_versions (override_by);
create index interview_report_versions_amended_by_idx on app_public.interview_report_versions (amended_by);

-- A report belongs to a held booking: the case and interviewer come from the booking, never
-- from the request. Definer, to read the slot's start (the caller may not see the offer).
create function app_hidden.tg_interview_report_booking() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  booking record;
begin
  select b.case_id, b.interviewer_id, b.canceled, o.starts_at into booking
    from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id
   where b.id = new.booking_id;
  if not found then
    raise exception 'There is no interview booking %', new.booking_id using errcode = 'P0001', hint = 'BOOKING_NOT_FOUND';
  end if;
  if booking.canceled then
    raise exception 'This interview booking was cancelled; a report needs an interview that took place' using errcode = 'P0001', hint = 'BOOKING_CANCELED';
  end if;
  if booking.starts_at > now() then
    raise exception 'The interview has not started yet; write the report once it has begun' using errcode = 'P0001', hint = 'INTERVIEW_NOT_STARTED';
  end if;
  if tg_op = 'INSERT' then
    new.case_id := booking.case_id;
    new.interviewer_id := booking.interviewer_id;
  elsif new.booking_id is distinct from old.booking_id then
    raise exception 'A report stays with its booking' using errcode = 'P0001', hint = 'BOOKING_FIXED';
  end if;
  return new;
end;
$$;
create trigger _050_booking before insert on app_public.interview_reports
  for each row execute function app_hidden.tg_interview_report_booking();

-- The lock: a finalized report changes only through the server's amendment routine, which runs
-- as the owner and names this report in sanad.amend_report; each amendment keeps the version
-- before it. Not a definer: current_user must be the caller's role.
create function app_hidden.tg_interview_report_lock() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  if old.state = 'final' then
    if current_user in ('sanad_user', 'sanad_anonymous')
       or coalesce(pg_catalog.current_setting('sanad.amend_report', true), '') <> old.id::text then
      raise exception 'This interview report is finalized and locked; a coordinator can amend it with a reason' using errcode = 'P0001', hint = 'REPORT_LOCKED';
    end if;
    if tg_op = 'DELETE' then
      raise exception 'A finalized interview report cannot be deleted' using errcode = 'P0001', hint = 'REPORT_LOCKED';
    end if;
    insert into app_public.interview_report_versions (report_id, booking_id, case_id, interviewer_id,
${wrap(versionColumns, '      ')})
    values (old.id, old.booking_id, old.case_id, old.interviewer_id,
${wrap(versionColumns.map((c) => `old.${c}`), '      ')});
    new.version := old.version + 1;
  end if;
  if tg_op = 'DELETE' then return old; end if;
  return new;
end;
$$;
create trigger _060_lock before update or delete on app_public.interview_reports
  for each row execute function app_hidden.tg_interview_report_lock();
create trigger _100_set_updated_at before update on app_public.interview_reports
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _900_audit after insert or update or delete on app_public.interview_reports
  for each row execute function app_hidden.tg_audit('case_id');
create trigger _900_audit after insert or update or delete on app_public.interview_report_versions
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.interview_reports enable row level security;
alter table app_public.interview_report_versions enable row level security;

-- Read: the booking's interviewer, coordinators, the case's staff.
create policy select_visible on app_public.interview_reports for select to sanad_user using (
  interviewer_id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_staff_case_ids())
);
-- Write: the booking's interviewer and coordinators, drafts only.
create policy insert_own on app_public.interview_reports for insert to sanad_user with check (
  interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator())
);
create policy update_draft on app_public.interview_reports for update to sanad_user
  using (state = 'draft' and (interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator())))
  with check (state = 'draft' and (interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator())));
create policy delete_draft on app_public.interview_reports for delete to sanad_user
  using (state = 'draft' and (interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator())));
create policy select_visible on app_public.interview_report_versions for select to sanad_user using (
  interviewer_id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_staff_case_ids())
);

grant select on app_public.interview_reports, app_public.interview_report_versions to sanad_user;
grant insert (booking_id,
${wrap(input)})
  on app_public.interview_reports to sanad_user;
grant update (
${wrap(input)})
  on app_public.interview_reports to sanad_user;
grant delete on app_public.interview_reports to sanad_user;

-- Follow-up feedback reports ---------------------------------------------------------------------
-- Tied to a later (follow-up) interview booking of a case whose intake report is finalized.

create table app_public.feedback_interview_reports (
  id uuid primary key default gen_random_uuid(),
  booking_id uuid not null references app_public.interview_bookings (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  interviewer_id uuid references app_public.users (id) on delete set null,
${fieldColumns('feedback_interview_reports', FEEDBACK_FIELDS)}
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint feedback_interview_reports_one_per_booking unique (booking_id)
);
comment on table app_public.feedback_interview_reports is E'@behavior -insert -update -delete\nThe follow-up feedback interview of a patient after treatment (spec §3 FeedbackInterviewReport).';
create index feedback_interview_reports_case_idx on app_public.feedback_interview_reports (case_id);
create index feedback_interview_reports_interviewer_idx on app_public.feedback_interview_reports (interviewer_id);

create function app_hidden.tg_feedback_report_booking() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  perform app_hidden.tg_interview_report_booking_check(new.booking_id);
  select b.case_id, b.interviewer_id into new.case_id, new.interviewer_id from app_public.interview_bookings b where b.id = new.booking_id;
  if exists (select 1 from app_public.interview_reports r where r.booking_id = new.booking_id) then
    raise exception 'This booking holds the intake report; the feedback report belongs to a follow-up interview' using errcode = 'P0001', hint = 'NOT_FOLLOW_UP';
  end if;
  if not exists (select 1 from app_public.interview_reports r where r.case_id = new.case_id and r.state = 'final') then
    raise exception 'The case has no finalized intake report yet; a feedback report follows the treatment' using errcode = 'P0001', hint = 'NOT_FOLLOW_UP';
  end if;
  return new;
end;
$$;

-- The booking checks shared by both reports.
create function app_hidden.tg_interview_report_booking_check(booking_id uuid) returns void
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  booking record;
begin
  select b.canceled, o.starts_at into booking
    from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id
   where b.id = tg_interview_report_booking_check.booking_id;
  if not found then
    raise exception 'There is no interview booking %', booking_id using errcode = 'P0001', hint = 'BOOKING_NOT_FOUND';
  end if;
  if booking.canceled then
    raise exception 'This interview booking was cancelled; a report needs an interview that took place' using errcode = 'P0001', hint = 'BOOKING_CANCELED';
  end if;
  if booking.starts_at > now() then
    raise exception 'The interview has not started yet; write the report once it has begun' using errcode = 'P0001', hint = 'INTERVIEW_NOT_STARTED';
  end if;
end;
$$;
create trigger _050_booking before insert on app_public.feedback_interview_reports
  for each row execute function app_hidden.tg_feedback_report_booking();
create trigger _100_set_updated_at before update on app_public.feedback_interview_reports
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _900_audit after insert or update or delete on app_public.feedback_interview_reports
  for each row execute function app_hidden.tg_audit('case_id');

alter table app_public.feedback_interview_reports enable row level security;
create policy select_visible on app_public.feedback_interview_reports for select to sanad_user using (
  interviewer_id = (select app_public.current_user_id())
  or (select app_hidden.is_coordinator())
  or case_id in (select app_hidden.my_staff_case_ids())
);
create policy insert_own on app_public.feedback_interview_reports for insert to sanad_user with check (
  interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator())
);
create policy update_own on app_public.feedback_interview_reports for update to sanad_user
  using (interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator()))
  with check (interviewer_id = (select app_public.current_user_id()) or (select app_hidden.is_coordinator()));
grant select on app_public.feedback_interview_reports to sanad_user;
grant insert (booking_id, ${feedback.join(', ')}) on app_public.feedback_interview_reports to sanad_user;
grant update (${feedback.join(', ')}) on app_public.feedback_interview_reports to sanad_user;

-- Mails and missed interviews ---------------------------------------------------------------------

-- Content-free mails to the patient after a finalized report, and the invitation to register
-- again, due on the date the reason expires (run_after). Sent by src/server/reports/mail-worker.ts.
create table app_private.report_mails (
  id bigint generated always as identity primary key,
  user_id uuid not null references app_public.users (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  report_id uuid references app_public.interview_reports (id) on delete cascade,
  kind text not null check (kind in ('interview_outcome', 'reregistration_invitation')),
  created_at timestamptz not null default now(),
  run_after timestamptz not null default now(),
  attempts integer not null default 0
);
create index report_mails_run_idx on app_private.report_mails (run_after);
create index report_mails_user_idx on app_private.report_mails (user_id);
create index report_mails_case_idx on app_private.report_mails (case_id);
create index report_mails_report_idx on app_private.report_mails (report_id);
alter table app_private.report_mails enable row level security;

-- Booked interviews that did not take place; after a configured number the patient is excluded
-- "for missing interview" (spec §4 Exclusion of a patient).
create table app_public.missed_interviews (
  booking_id uuid primary key references app_public.interview_bookings (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  recorded_by uuid references app_public.users (id) on delete set null,
  recorded_at timestamptz not null default now()
);
comment on table app_public.missed_interviews is E'@behavior -insert -update -delete\nBooked interviews the patient did not attend, recorded by the interviewer.';
create index missed_interviews_case_idx on app_public.missed_interviews (case_id);
create index missed_interviews_recorded_by_idx on app_public.missed_interviews (recorded_by);
create trigger _900_audit after insert or update or delete on app_public.missed_interviews
  for each row execute function app_hidden.tg_audit('case_id');
alter table app_public.missed_interviews enable row level security;
create policy select_visible on app_public.missed_interviews for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_staff_case_ids())
  or booking_id in (select b.id from app_public.interview_bookings b where b.interviewer_id = (select app_public.current_user_id()))
);
-- No write grant: the server records a missed interview after checking the caller.
grant select on app_public.missed_interviews to sanad_user;
`;
}
