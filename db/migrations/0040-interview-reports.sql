-- Why: the interview report is the trial's intake decision (spec §2 "Interview report screen",
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
  patient_reachable boolean,
  patient_name text
    constraint interview_reports_patient_name_check check (char_length(patient_name) <= 200),
  sex text
    constraint interview_reports_sex_check check (sex in ('FEMALE', 'MALE', 'DIVERSE')),
  age integer
    constraint interview_reports_age_check check (age between 0 and 120),
  residence text
    constraint interview_reports_residence_check check (char_length(residence) <= 200),
  phone text
    constraint interview_reports_phone_check check (char_length(phone) <= 40),
  video_account text
    constraint interview_reports_video_account_check check (char_length(video_account) <= 200),
  contact_via text
    constraint interview_reports_contact_via_check check (contact_via in ('phone', 'video', 'other')),
  alias text
    constraint interview_reports_alias_check check (char_length(alias) <= 100),
  medication boolean,
  medication_name text
    constraint interview_reports_medication_name_check check (char_length(medication_name) <= 500),
  medication_stable_since date,
  medication_change_planned_on date,
  earlier_treatment text
    constraint interview_reports_earlier_treatment_check check (earlier_treatment in ('none', 'depression', 'ptsd', 'counseling')),
  earlier_treatment_ended_on date,
  suicidality_c1 boolean,
  suicidality_c2 boolean,
  suicidality_c3 boolean,
  suicidality_c4 boolean,
  suicidality_c5 boolean,
  suicidality_c6 boolean,
  suicidality_serious_attempt_3y boolean,
  suicidality_score integer
    constraint interview_reports_suicidality_score_check check (suicidality_score between 0 and 33),
  suicidality_risk text
    constraint interview_reports_suicidality_risk_check check (suicidality_risk in ('none', 'low', 'moderate', 'high')),
  no_suicide_contract boolean,
  suicidality_notes text
    constraint interview_reports_suicidality_notes_check check (char_length(suicidality_notes) <= 4000),
  trauma_description text
    constraint interview_reports_trauma_description_check check (char_length(trauma_description) <= 4000),
  trauma_list text[]
    constraint interview_reports_trauma_list_check check (trauma_list <@ array['disaster', 'accident', 'physical_assault', 'sexual_assault', 'war', 'captivity', 'flight', 'illness', 'sudden_death', 'other']::text[] and array_position(trauma_list, null) is null),
  worst_event text
    constraint interview_reports_worst_event_check check (char_length(worst_event) <= 1000),
  worst_event_on date,
  trauma_criterion_a boolean,
  ptsd_g14 boolean,
  ptsd_g15 boolean,
  ptsd_g16 boolean,
  ptsd_g17 boolean,
  ptsd_g18 boolean,
  ptsd_b_fulfilled boolean,
  ptsd_g19 boolean,
  ptsd_g20 boolean,
  ptsd_c_fulfilled boolean,
  ptsd_g21 boolean,
  ptsd_g22 boolean,
  ptsd_g23 boolean,
  ptsd_g24 boolean,
  ptsd_g25 boolean,
  ptsd_g26 boolean,
  ptsd_g27 boolean,
  ptsd_d_fulfilled boolean,
  ptsd_g28 boolean,
  ptsd_g29 boolean,
  ptsd_g30 boolean,
  ptsd_g31 boolean,
  ptsd_g32 boolean,
  ptsd_g33 boolean,
  ptsd_e_fulfilled boolean,
  ptsd_g34 boolean,
  ptsd_g35 boolean,
  ptsd_f_fulfilled boolean,
  ptsd_g36 boolean,
  ptsd_g37 boolean,
  ptsd_g38 boolean,
  ptsd_g_fulfilled boolean,
  ptsd_g39 boolean,
  ptsd_g40 boolean,
  ptsd_h_fulfilled boolean,
  ptsd_total integer
    constraint interview_reports_ptsd_total_check check (ptsd_total between 0 and 27),
  ptsd_notes text
    constraint interview_reports_ptsd_notes_check check (char_length(ptsd_notes) <= 4000),
  mde_a1 boolean,
  mde_a2 boolean,
  mde_a3 boolean,
  mde_a4 boolean,
  mde_a5 boolean,
  mde_a6 boolean,
  mde_a7 boolean,
  mde_a8 boolean,
  mde_a9 boolean,
  mde_a10 boolean,
  mde_a11 boolean,
  mde_a12 boolean,
  mde_criterion_a boolean,
  mde_criterion_b boolean,
  mde_criterion_c boolean,
  mde_notes text
    constraint interview_reports_mde_notes_check check (char_length(mde_notes) <= 4000),
  mde_episode_start text
    constraint interview_reports_mde_episode_start_check check (mde_episode_start in ('weeks', 'months', 'years', 'older')),
  mde_episode_start_count integer
    constraint interview_reports_mde_episode_start_count_check check (mde_episode_start_count between 0 and 100),
  mde_last_episode text
    constraint interview_reports_mde_last_episode_check check (mde_last_episode in ('months', 'years')),
  mde_last_episode_count integer
    constraint interview_reports_mde_last_episode_count_check check (mde_last_episode_count between 0 and 100),
  mde_episode_total integer
    constraint interview_reports_mde_episode_total_check check (mde_episode_total between 0 and 100),
  past_mde_a1 boolean,
  past_mde_a2 boolean,
  past_mde_a3 boolean,
  past_mde_a4 boolean,
  past_mde_a5 boolean,
  past_mde_a6 boolean,
  past_mde_a7 boolean,
  past_mde_a8 boolean,
  past_mde_a9 boolean,
  past_mde boolean,
  mania_current boolean,
  mania_past boolean,
  hypomania_current boolean,
  hypomania_past boolean,
  bipolar_specified boolean,
  pdd_a78 boolean,
  pdd_a79 boolean,
  pdd_a80 boolean,
  pdd_a81 boolean,
  pdd_a82 boolean,
  pdd_a83 boolean,
  pdd_a84 boolean,
  pdd_a85 boolean,
  pdd_a86 boolean,
  pdd_a87 boolean,
  pdd_a88 boolean,
  pdd_a89 boolean,
  pdd_a90 boolean,
  pdd_b1 boolean,
  pdd_b2 boolean,
  pdd_b3 boolean,
  pdd_b4 boolean,
  pdd_b5 boolean,
  pdd_b6 boolean,
  pdd_criterion_a boolean,
  pdd_criterion_b boolean,
  pdd_criterion_c boolean,
  pdd_criterion_e boolean,
  pdd_criterion_f boolean,
  pdd_criterion_g boolean,
  pdd_criterion_h boolean,
  pdd_notes text
    constraint interview_reports_pdd_notes_check check (char_length(pdd_notes) <= 4000),
  psychosis_b1 boolean,
  psychosis_b2 boolean,
  psychosis_b3 boolean,
  psychosis_b4 boolean,
  psychosis_b5 boolean,
  psychosis_b6 boolean,
  psychosis_b7 boolean,
  psychosis_b8 boolean,
  psychosis_b9 boolean,
  psychosis_b10 boolean,
  psychosis_b11 boolean,
  psychosis_b12 boolean,
  psychosis_b13 boolean,
  psychosis_b14 boolean,
  psychosis_b15 boolean,
  psychosis_b16 boolean,
  psychosis_b17 boolean,
  psychosis_b18 boolean,
  psychosis_b19 boolean,
  concurrent_psychotherapy boolean,
  planned_psychotherapy_on date,
  retraumatization_danger boolean,
  refuses_treatment boolean,
  other_rejection_notes text
    constraint interview_reports_other_rejection_notes_check check (char_length(other_rejection_notes) <= 2000),
  hra1 boolean,
  hra2 boolean,
  hra3 boolean,
  hra4 boolean,
  hra5 boolean,
  hra6 boolean,
  audit1 integer
    constraint interview_reports_audit1_check check (audit1 between 0 and 4),
  audit2 integer
    constraint interview_reports_audit2_check check (audit2 between 0 and 4),
  audit3 integer
    constraint interview_reports_audit3_check check (audit3 between 0 and 4),
  audit4 integer
    constraint interview_reports_audit4_check check (audit4 between 0 and 4),
  audit5 integer
    constraint interview_reports_audit5_check check (audit5 between 0 and 4),
  audit6 integer
    constraint interview_reports_audit6_check check (audit6 between 0 and 4),
  audit7 integer
    constraint interview_reports_audit7_check check (audit7 between 0 and 4),
  audit8 integer
    constraint interview_reports_audit8_check check (audit8 between 0 and 4),
  audit9 text
    constraint interview_reports_audit9_check check (audit9 in ('0', '2', '4')),
  audit10 text
    constraint interview_reports_audit10_check check (audit10 in ('0', '2', '4')),
  audit_total integer
    constraint interview_reports_audit_total_check check (audit_total between 0 and 40),
  dast1 boolean,
  dast2 boolean,
  dast3 boolean,
  dast4 boolean,
  dast5 boolean,
  dast6 boolean,
  dast7 boolean,
  dast8 boolean,
  dast9 boolean,
  dast10 boolean,
  dast_total integer
    constraint interview_reports_dast_total_check check (dast_total between 0 and 10),
  primary_problem text
    constraint interview_reports_primary_problem_check check (primary_problem in ('ptsd', 'ptsd_mde_current', 'ptsd_mde_past', 'ptsd_pdd', 'ptsd_mde_pdd', 'mde_current', 'pdd', 'mde_pdd', 'other')),
  status text
    constraint interview_reports_status_check check (status in ('accepted', 'rejected')),
  accepted_reason text
    constraint interview_reports_accepted_reason_check check (accepted_reason in ('ptsd', 'depression_mde', 'depression_pdd', 'depression_both')),
  rejected_reasons text[]
    constraint interview_reports_rejected_reasons_check check (rejected_reasons <@ array['no_trauma', 'trauma_recent', 'no_depression_or_ptsd', 'retraumatization', 'psychosis', 'suicidality', 'minor', 'medication_before', 'medication_after', 'bipolar_current_mania', 'bipolar_past_mania', 'bipolar_current_hypomania', 'bipolar_past_hypomania', 'bipolar_specified', 'alcohol', 'drugs', 'earlier_treatment', 'refuses']::text[] and array_position(rejected_reasons, null) is null),
  counseling_accepted boolean,
  counseling_reasons text
    constraint interview_reports_counseling_reasons_check check (char_length(counseling_reasons) <= 2000),
  counseling_availability text
    constraint interview_reports_counseling_availability_check check (char_length(counseling_availability) <= 500),
  counseling_specialities text
    constraint interview_reports_counseling_specialities_check check (char_length(counseling_specialities) <= 500),
  register_again boolean,
  register_again_reasons text[]
    constraint interview_reports_register_again_reasons_check check (register_again_reasons <@ array['minor', 'trauma_recent', 'retraumatization', 'no_depression_or_ptsd', 'concurrent_psychotherapy', 'planned_psychotherapy', 'medication_before', 'medication_after', 'earlier_treatment', 'other']::text[] and array_position(register_again_reasons, null) is null),
  register_again_reason_text text
    constraint interview_reports_register_again_reason_text_check check (char_length(register_again_reason_text) <= 1000),
  register_again_other_state text
    constraint interview_reports_register_again_other_state_check check (char_length(register_again_other_state) <= 500),
  register_again_on date,
  heard_of_product text
    constraint interview_reports_heard_of_product_check check (char_length(heard_of_product) <= 500),
  additional_comments text
    constraint interview_reports_additional_comments_check check (char_length(additional_comments) <= 4000),
  trial_outcome text constraint interview_reports_trial_outcome_check check (trial_outcome in ('ptsd', 'depression', 'counseling', 'rejected', 'later')),
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
  E'@behavior -insert -update -delete
The report of an intake interview (one per booking): every section of the interview as named columns, and the result that decides the trial path. Drafts are saved as the interviewer types; a finalized report is signed and locked.';
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
  patient_reachable boolean,
  patient_name text,
  sex text,
  age integer,
  residence text,
  phone text,
  video_account text,
  contact_via text,
  alias text,
  medication boolean,
  medication_name text,
  medication_stable_since date,
  medication_change_planned_on date,
  earlier_treatment text,
  earlier_treatment_ended_on date,
  suicidality_c1 boolean,
  suicidality_c2 boolean,
  suicidality_c3 boolean,
  suicidality_c4 boolean,
  suicidality_c5 boolean,
  suicidality_c6 boolean,
  suicidality_serious_attempt_3y boolean,
  suicidality_score integer,
  suicidality_risk text,
  no_suicide_contract boolean,
  suicidality_notes text,
  trauma_description text,
  trauma_list text[],
  worst_event text,
  worst_event_on date,
  trauma_criterion_a boolean,
  ptsd_g14 boolean,
  ptsd_g15 boolean,
  ptsd_g16 boolean,
  ptsd_g17 boolean,
  ptsd_g18 boolean,
  ptsd_b_fulfilled boolean,
  ptsd_g19 boolean,
  ptsd_g20 boolean,
  ptsd_c_fulfilled boolean,
  ptsd_g21 boolean,
  ptsd_g22 boolean,
  ptsd_g23 boolean,
  ptsd_g24 boolean,
  ptsd_g25 boolean,
  ptsd_g26 boolean,
  ptsd_g27 boolean,
  ptsd_d_fulfilled boolean,
  ptsd_g28 boolean,
  ptsd_g29 boolean,
  ptsd_g30 boolean,
  ptsd_g31 boolean,
  ptsd_g32 boolean,
  ptsd_g33 boolean,
  ptsd_e_fulfilled boolean,
  ptsd_g34 boolean,
  ptsd_g35 boolean,
  ptsd_f_fulfilled boolean,
  ptsd_g36 boolean,
  ptsd_g37 boolean,
  ptsd_g38 boolean,
  ptsd_g_fulfilled boolean,
  ptsd_g39 boolean,
  ptsd_g40 boolean,
  ptsd_h_fulfilled boolean,
  ptsd_total integer,
  ptsd_notes text,
  mde_a1 boolean,
  mde_a2 boolean,
  mde_a3 boolean,
  mde_a4 boolean,
  mde_a5 boolean,
  mde_a6 boolean,
  mde_a7 boolean,
  mde_a8 boolean,
  mde_a9 boolean,
  mde_a10 boolean,
  mde_a11 boolean,
  mde_a12 boolean,
  mde_criterion_a boolean,
  mde_criterion_b boolean,
  mde_criterion_c boolean,
  mde_notes text,
  mde_episode_start text,
  mde_episode_start_count integer,
  mde_last_episode text,
  mde_last_episode_count integer,
  mde_episode_total integer,
  past_mde_a1 boolean,
  past_mde_a2 boolean,
  past_mde_a3 boolean,
  past_mde_a4 boolean,
  past_mde_a5 boolean,
  past_mde_a6 boolean,
  past_mde_a7 boolean,
  past_mde_a8 boolean,
  past_mde_a9 boolean,
  past_mde boolean,
  mania_current boolean,
  mania_past boolean,
  hypomania_current boolean,
  hypomania_past boolean,
  bipolar_specified boolean,
  pdd_a78 boolean,
  pdd_a79 boolean,
  pdd_a80 boolean,
  pdd_a81 boolean,
  pdd_a82 boolean,
  pdd_a83 boolean,
  pdd_a84 boolean,
  pdd_a85 boolean,
  pdd_a86 boolean,
  pdd_a87 boolean,
  pdd_a88 boolean,
  pdd_a89 boolean,
  pdd_a90 boolean,
  pdd_b1 boolean,
  pdd_b2 boolean,
  pdd_b3 boolean,
  pdd_b4 boolean,
  pdd_b5 boolean,
  pdd_b6 boolean,
  pdd_criterion_a boolean,
  pdd_criterion_b boolean,
  pdd_criterion_c boolean,
  pdd_criterion_e boolean,
  pdd_criterion_f boolean,
  pdd_criterion_g boolean,
  pdd_criterion_h boolean,
  pdd_notes text,
  psychosis_b1 boolean,
  psychosis_b2 boolean,
  psychosis_b3 boolean,
  psychosis_b4 boolean,
  psychosis_b5 boolean,
  psychosis_b6 boolean,
  psychosis_b7 boolean,
  psychosis_b8 boolean,
  psychosis_b9 boolean,
  psychosis_b10 boolean,
  psychosis_b11 boolean,
  psychosis_b12 boolean,
  psychosis_b13 boolean,
  psychosis_b14 boolean,
  psychosis_b15 boolean,
  psychosis_b16 boolean,
  psychosis_b17 boolean,
  psychosis_b18 boolean,
  psychosis_b19 boolean,
  concurrent_psychotherapy boolean,
  planned_psychotherapy_on date,
  retraumatization_danger boolean,
  refuses_treatment boolean,
  other_rejection_notes text,
  hra1 boolean,
  hra2 boolean,
  hra3 boolean,
  hra4 boolean,
  hra5 boolean,
  hra6 boolean,
  audit1 integer,
  audit2 integer,
  audit3 integer,
  audit4 integer,
  audit5 integer,
  audit6 integer,
  audit7 integer,
  audit8 integer,
  audit9 text,
  audit10 text,
  audit_total integer,
  dast1 boolean,
  dast2 boolean,
  dast3 boolean,
  dast4 boolean,
  dast5 boolean,
  dast6 boolean,
  dast7 boolean,
  dast8 boolean,
  dast9 boolean,
  dast10 boolean,
  dast_total integer,
  primary_problem text,
  status text,
  accepted_reason text,
  rejected_reasons text[],
  counseling_accepted boolean,
  counseling_reasons text,
  counseling_availability text,
  counseling_specialities text,
  register_again boolean,
  register_again_reasons text[],
  register_again_reason_text text,
  register_again_other_state text,
  register_again_on date,
  heard_of_product text,
  additional_comments text,
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
comment on table app_public.interview_report_versions is E'@behavior -insert -update -delete
Every earlier version of an amended interview report, kept for audit.';
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
      state, version, patient_reachable, patient_name, sex, age, residence, phone, video_account,
      contact_via, alias, medication, medication_name, medication_stable_since,
      medication_change_planned_on, earlier_treatment, earlier_treatment_ended_on, suicidality_c1,
      suicidality_c2, suicidality_c3, suicidality_c4, suicidality_c5, suicidality_c6,
      suicidality_serious_attempt_3y, suicidality_score, suicidality_risk, no_suicide_contract,
      suicidality_notes, trauma_description, trauma_list, worst_event, worst_event_on,
      trauma_criterion_a, ptsd_g14, ptsd_g15, ptsd_g16, ptsd_g17, ptsd_g18, ptsd_b_fulfilled, ptsd_g19,
      ptsd_g20, ptsd_c_fulfilled, ptsd_g21, ptsd_g22, ptsd_g23, ptsd_g24, ptsd_g25, ptsd_g26, ptsd_g27,
      ptsd_d_fulfilled, ptsd_g28, ptsd_g29, ptsd_g30, ptsd_g31, ptsd_g32, ptsd_g33, ptsd_e_fulfilled,
      ptsd_g34, ptsd_g35, ptsd_f_fulfilled, ptsd_g36, ptsd_g37, ptsd_g38, ptsd_g_fulfilled, ptsd_g39,
      ptsd_g40, ptsd_h_fulfilled, ptsd_total, ptsd_notes, mde_a1, mde_a2, mde_a3, mde_a4, mde_a5,
      mde_a6, mde_a7, mde_a8, mde_a9, mde_a10, mde_a11, mde_a12, mde_criterion_a, mde_criterion_b,
      mde_criterion_c, mde_notes, mde_episode_start, mde_episode_start_count, mde_last_episode,
      mde_last_episode_count, mde_episode_total, past_mde_a1, past_mde_a2, past_mde_a3, past_mde_a4,
      past_mde_a5, past_mde_a6, past_mde_a7, past_mde_a8, past_mde_a9, past_mde, mania_current,
      mania_past, hypomania_current, hypomania_past, bipolar_specified, pdd_a78, pdd_a79, pdd_a80,
      pdd_a81, pdd_a82, pdd_a83, pdd_a84, pdd_a85, pdd_a86, pdd_a87, pdd_a88, pdd_a89, pdd_a90, pdd_b1,
      pdd_b2, pdd_b3, pdd_b4, pdd_b5, pdd_b6, pdd_criterion_a, pdd_criterion_b, pdd_criterion_c,
      pdd_criterion_e, pdd_criterion_f, pdd_criterion_g, pdd_criterion_h, pdd_notes, psychosis_b1,
      psychosis_b2, psychosis_b3, psychosis_b4, psychosis_b5, psychosis_b6, psychosis_b7, psychosis_b8,
      psychosis_b9, psychosis_b10, psychosis_b11, psychosis_b12, psychosis_b13, psychosis_b14,
      psychosis_b15, psychosis_b16, psychosis_b17, psychosis_b18, psychosis_b19,
      concurrent_psychotherapy, planned_psychotherapy_on, retraumatization_danger, refuses_treatment,
      other_rejection_notes, hra1, hra2, hra3, hra4, hra5, hra6, audit1, audit2, audit3, audit4,
      audit5, audit6, audit7, audit8, audit9, audit10, audit_total, dast1, dast2, dast3, dast4, dast5,
      dast6, dast7, dast8, dast9, dast10, dast_total, primary_problem, status, accepted_reason,
      rejected_reasons, counseling_accepted, counseling_reasons, counseling_availability,
      counseling_specialities, register_again, register_again_reasons, register_again_reason_text,
      register_again_other_state, register_again_on, heard_of_product, additional_comments,
      trial_outcome, finalized_at, finalized_by, override_reason, override_by, amended_at, amended_by,
      amendment_reason, updated_at)
    values (old.id, old.booking_id, old.case_id, old.interviewer_id,
      old.state, old.version, old.patient_reachable, old.patient_name, old.sex, old.age, old.residence,
      old.phone, old.video_account, old.contact_via, old.alias, old.medication, old.medication_name,
      old.medication_stable_since, old.medication_change_planned_on, old.earlier_treatment,
      old.earlier_treatment_ended_on, old.suicidality_c1, old.suicidality_c2, old.suicidality_c3,
      old.suicidality_c4, old.suicidality_c5, old.suicidality_c6, old.suicidality_serious_attempt_3y,
      old.suicidality_score, old.suicidality_risk, old.no_suicide_contract, old.suicidality_notes,
      old.trauma_description, old.trauma_list, old.worst_event, old.worst_event_on,
      old.trauma_criterion_a, old.ptsd_g14, old.ptsd_g15, old.ptsd_g16, old.ptsd_g17, old.ptsd_g18,
      old.ptsd_b_fulfilled, old.ptsd_g19, old.ptsd_g20, old.ptsd_c_fulfilled, old.ptsd_g21,
      old.ptsd_g22, old.ptsd_g23, old.ptsd_g24, old.ptsd_g25, old.ptsd_g26, old.ptsd_g27,
      old.ptsd_d_fulfilled, old.ptsd_g28, old.ptsd_g29, old.ptsd_g30, old.ptsd_g31, old.ptsd_g32,
      old.ptsd_g33, old.ptsd_e_fulfilled, old.ptsd_g34, old.ptsd_g35, old.ptsd_f_fulfilled,
      old.ptsd_g36, old.ptsd_g37, old.ptsd_g38, old.ptsd_g_fulfilled, old.ptsd_g39, old.ptsd_g40,
      old.ptsd_h_fulfilled, old.ptsd_total, old.ptsd_notes, old.mde_a1, old.mde_a2, old.mde_a3,
      old.mde_a4, old.mde_a5, old.mde_a6, old.mde_a7, old.mde_a8, old.mde_a9, old.mde_a10, old.mde_a11,
      old.mde_a12, old.mde_criterion_a, old.mde_criterion_b, old.mde_criterion_c, old.mde_notes,
      old.mde_episode_start, old.mde_episode_start_count, old.mde_last_episode,
      old.mde_last_episode_count, old.mde_episode_total, old.past_mde_a1, old.past_mde_a2,
      old.past_mde_a3, old.past_mde_a4, old.past_mde_a5, old.past_mde_a6, old.past_mde_a7,
      old.past_mde_a8, old.past_mde_a9, old.past_mde, old.mania_current, old.mania_past,
      old.hypomania_current, old.hypomania_past, old.bipolar_specified, old.pdd_a78, old.pdd_a79,
      old.pdd_a80, old.pdd_a81, old.pdd_a82, old.pdd_a83, old.pdd_a84, old.pdd_a85, old.pdd_a86,
      old.pdd_a87, old.pdd_a88, old.pdd_a89, old.pdd_a90, old.pdd_b1, old.pdd_b2, old.pdd_b3,
      old.pdd_b4, old.pdd_b5, old.pdd_b6, old.pdd_criterion_a, old.pdd_criterion_b,
      old.pdd_criterion_c, old.pdd_criterion_e, old.pdd_criterion_f, old.pdd_criterion_g,
      old.pdd_criterion_h, old.pdd_notes, old.psychosis_b1, old.psychosis_b2, old.psychosis_b3,
      old.psychosis_b4, old.psychosis_b5, old.psychosis_b6, old.psychosis_b7, old.psychosis_b8,
      old.psychosis_b9, old.psychosis_b10, old.psychosis_b11, old.psychosis_b12, old.psychosis_b13,
      old.psychosis_b14, old.psychosis_b15, old.psychosis_b16, old.psychosis_b17, old.psychosis_b18,
      old.psychosis_b19, old.concurrent_psychotherapy, old.planned_psychotherapy_on,
      old.retraumatization_danger, old.refuses_treatment, old.other_rejection_notes, old.hra1,
      old.hra2, old.hra3, old.hra4, old.hra5, old.hra6, old.audit1, old.audit2, old.audit3, old.audit4,
      old.audit5, old.audit6, old.audit7, old.audit8, old.audit9, old.audit10, old.audit_total,
      old.dast1, old.dast2, old.dast3, old.dast4, old.dast5, old.dast6, old.dast7, old.dast8,
      old.dast9, old.dast10, old.dast_total, old.primary_problem, old.status, old.accepted_reason,
      old.rejected_reasons, old.counseling_accepted, old.counseling_reasons,
      old.counseling_availability, old.counseling_specialities, old.register_again,
      old.register_again_reasons, old.register_again_reason_text, old.register_again_other_state,
      old.register_again_on, old.heard_of_product, old.additional_comments, old.trial_outcome,
      old.finalized_at, old.finalized_by, old.override_reason, old.override_by, old.amended_at,
      old.amended_by, old.amendment_reason, old.updated_at);
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
  patient_reachable, patient_name, sex, age, residence, phone, video_account, contact_via, alias,
  medication, medication_name, medication_stable_since, medication_change_planned_on,
  earlier_treatment, earlier_treatment_ended_on, suicidality_c1, suicidality_c2, suicidality_c3,
  suicidality_c4, suicidality_c5, suicidality_c6, suicidality_serious_attempt_3y,
  no_suicide_contract, suicidality_notes, trauma_description, trauma_list, worst_event,
  worst_event_on, trauma_criterion_a, ptsd_g14, ptsd_g15, ptsd_g16, ptsd_g17, ptsd_g18, ptsd_g19,
  ptsd_g20, ptsd_g21, ptsd_g22, ptsd_g23, ptsd_g24, ptsd_g25, ptsd_g26, ptsd_g27, ptsd_g28,
  ptsd_g29, ptsd_g30, ptsd_g31, ptsd_g32, ptsd_g33, ptsd_g34, ptsd_g35, ptsd_g36, ptsd_g37,
  ptsd_g38, ptsd_g39, ptsd_g40, ptsd_notes, mde_a1, mde_a2, mde_a3, mde_a4, mde_a5, mde_a6, mde_a7,
  mde_a8, mde_a9, mde_a10, mde_a11, mde_a12, mde_notes, mde_episode_start, mde_episode_start_count,
  mde_last_episode, mde_last_episode_count, mde_episode_total, past_mde_a1, past_mde_a2,
  past_mde_a3, past_mde_a4, past_mde_a5, past_mde_a6, past_mde_a7, past_mde_a8, past_mde_a9,
  mania_current, mania_past, hypomania_current, hypomania_past, bipolar_specified, pdd_a78,
  pdd_a79, pdd_a80, pdd_a81, pdd_a82, pdd_a83, pdd_a84, pdd_a85, pdd_a86, pdd_a87, pdd_a88,
  pdd_a89, pdd_a90, pdd_b1, pdd_b2, pdd_b3, pdd_b4, pdd_b5, pdd_b6, pdd_criterion_a,
  pdd_criterion_b, pdd_criterion_c, pdd_criterion_e, pdd_criterion_f, pdd_criterion_g,
  pdd_criterion_h, pdd_notes, psychosis_b1, psychosis_b2, psychosis_b3, psychosis_b4, psychosis_b5,
  psychosis_b6, psychosis_b7, psychosis_b8, psychosis_b9, psychosis_b10, psychosis_b11,
  psychosis_b12, psychosis_b13, psychosis_b14, psychosis_b15, psychosis_b16, psychosis_b17,
  psychosis_b18, psychosis_b19, concurrent_psychotherapy, planned_psychotherapy_on,
  retraumatization_danger, refuses_treatment, other_rejection_notes, hra1, hra2, hra3, hra4, hra5,
  hra6, audit1, audit2, audit3, audit4, audit5, audit6, audit7, audit8, audit9, audit10, dast1,
  dast2, dast3, dast4, dast5, dast6, dast7, dast8, dast9, dast10, primary_problem, status,
  accepted_reason, rejected_reasons, counseling_accepted, counseling_reasons,
  counseling_availability, counseling_specialities, register_again, register_again_reasons,
  register_again_reason_text, register_again_other_state, register_again_on, heard_of_product,
  additional_comments)
  on app_public.interview_reports to sanad_user;
grant update (
  patient_reachable, patient_name, sex, age, residence, phone, video_account, contact_via, alias,
  medication, medication_name, medication_stable_since, medication_change_planned_on,
  earlier_treatment, earlier_treatment_ended_on, suicidality_c1, suicidality_c2, suicidality_c3,
  suicidality_c4, suicidality_c5, suicidality_c6, suicidality_serious_attempt_3y,
  no_suicide_contract, suicidality_notes, trauma_description, trauma_list, worst_event,
  worst_event_on, trauma_criterion_a, ptsd_g14, ptsd_g15, ptsd_g16, ptsd_g17, ptsd_g18, ptsd_g19,
  ptsd_g20, ptsd_g21, ptsd_g22, ptsd_g23, ptsd_g24, ptsd_g25, ptsd_g26, ptsd_g27, ptsd_g28,
  ptsd_g29, ptsd_g30, ptsd_g31, ptsd_g32, ptsd_g33, ptsd_g34, ptsd_g35, ptsd_g36, ptsd_g37,
  ptsd_g38, ptsd_g39, ptsd_g40, ptsd_notes, mde_a1, mde_a2, mde_a3, mde_a4, mde_a5, mde_a6, mde_a7,
  mde_a8, mde_a9, mde_a10, mde_a11, mde_a12, mde_notes, mde_episode_start, mde_episode_start_count,
  mde_last_episode, mde_last_episode_count, mde_episode_total, past_mde_a1, past_mde_a2,
  past_mde_a3, past_mde_a4, past_mde_a5, past_mde_a6, past_mde_a7, past_mde_a8, past_mde_a9,
  mania_current, mania_past, hypomania_current, hypomania_past, bipolar_specified, pdd_a78,
  pdd_a79, pdd_a80, pdd_a81, pdd_a82, pdd_a83, pdd_a84, pdd_a85, pdd_a86, pdd_a87, pdd_a88,
  pdd_a89, pdd_a90, pdd_b1, pdd_b2, pdd_b3, pdd_b4, pdd_b5, pdd_b6, pdd_criterion_a,
  pdd_criterion_b, pdd_criterion_c, pdd_criterion_e, pdd_criterion_f, pdd_criterion_g,
  pdd_criterion_h, pdd_notes, psychosis_b1, psychosis_b2, psychosis_b3, psychosis_b4, psychosis_b5,
  psychosis_b6, psychosis_b7, psychosis_b8, psychosis_b9, psychosis_b10, psychosis_b11,
  psychosis_b12, psychosis_b13, psychosis_b14, psychosis_b15, psychosis_b16, psychosis_b17,
  psychosis_b18, psychosis_b19, concurrent_psychotherapy, planned_psychotherapy_on,
  retraumatization_danger, refuses_treatment, other_rejection_notes, hra1, hra2, hra3, hra4, hra5,
  hra6, audit1, audit2, audit3, audit4, audit5, audit6, audit7, audit8, audit9, audit10, dast1,
  dast2, dast3, dast4, dast5, dast6, dast7, dast8, dast9, dast10, primary_problem, status,
  accepted_reason, rejected_reasons, counseling_accepted, counseling_reasons,
  counseling_availability, counseling_specialities, register_again, register_again_reasons,
  register_again_reason_text, register_again_other_state, register_again_on, heard_of_product,
  additional_comments)
  on app_public.interview_reports to sanad_user;
grant delete on app_public.interview_reports to sanad_user;

-- Follow-up feedback reports ---------------------------------------------------------------------
-- Tied to a later (follow-up) interview booking of a case whose intake report is finalized.

create table app_public.feedback_interview_reports (
  id uuid primary key default gen_random_uuid(),
  booking_id uuid not null references app_public.interview_bookings (id) on delete cascade,
  case_id uuid not null references app_public.cases (id) on delete cascade,
  interviewer_id uuid references app_public.users (id) on delete set null,
  general_changes text
    constraint feedback_interview_reports_general_changes_check check (char_length(general_changes) <= 4000),
  changes_for_worse text
    constraint feedback_interview_reports_changes_for_worse_check check (char_length(changes_for_worse) <= 4000),
  causes_of_changes text
    constraint feedback_interview_reports_causes_of_changes_check check (char_length(causes_of_changes) <= 4000),
  hindering_parts text
    constraint feedback_interview_reports_hindering_parts_check check (char_length(hindering_parts) <= 4000),
  helpful_difficult_parts text
    constraint feedback_interview_reports_helpful_difficult_parts_check check (char_length(helpful_difficult_parts) <= 4000),
  neglected_parts text
    constraint feedback_interview_reports_neglected_parts_check check (char_length(neglected_parts) <= 4000),
  motivating_parts text
    constraint feedback_interview_reports_motivating_parts_check check (char_length(motivating_parts) <= 4000),
  recommend_tendency integer
    constraint feedback_interview_reports_recommend_tendency_check check (recommend_tendency between 0 and 10),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint feedback_interview_reports_one_per_booking unique (booking_id)
);
comment on table app_public.feedback_interview_reports is E'@behavior -insert -update -delete
The follow-up feedback interview of a patient after treatment (spec §3 FeedbackInterviewReport).';
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
grant insert (booking_id, general_changes, changes_for_worse, causes_of_changes, hindering_parts, helpful_difficult_parts, neglected_parts, motivating_parts, recommend_tendency) on app_public.feedback_interview_reports to sanad_user;
grant update (general_changes, changes_for_worse, causes_of_changes, hindering_parts, helpful_difficult_parts, neglected_parts, motivating_parts, recommend_tendency) on app_public.feedback_interview_reports to sanad_user;

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
comment on table app_public.missed_interviews is E'@behavior -insert -update -delete
Booked interviews the patient did not attend, recorded by the interviewer.';
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
