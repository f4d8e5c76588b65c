-- Why: an interviewer prepares the interview report before the interview (patient data, what
-- the patient already answered), yet the first autosave was refused with INTERVIEW_NOT_STARTED
-- and everything typed before the start was lost. A draft may now be created at any time for a
-- booking that is not cancelled; SIGNING still needs the interview to have started, which the
-- server's finalize routine checks (src/server/reports/service.ts). Signing with whole sections
-- left empty needs a written reason, kept with the report in empty_sections_reason.
create or replace function app_hidden.tg_interview_report_booking() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  booking record;
begin
  select b.case_id, b.interviewer_id, b.canceled into booking
    from app_public.interview_bookings b
   where b.id = new.booking_id;
  if not found then
    raise exception 'There is no interview booking %', new.booking_id using errcode = 'P0001', hint = 'BOOKING_NOT_FOUND';
  end if;
  if booking.canceled then
    raise exception 'This interview booking was cancelled; a report needs an interview that took place' using errcode = 'P0001', hint = 'BOOKING_CANCELED';
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

-- Written by the finalize routine only (no request role has an update grant on it).
alter table app_public.interview_reports add column empty_sections_reason text
  constraint interview_reports_empty_sections_reason_check check (char_length(empty_sections_reason) between 1 and 2000);
comment on column app_public.interview_reports.empty_sections_reason is
  'Why the report was signed with whole sections left empty (given at signing).';
