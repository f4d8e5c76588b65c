-- Why: a coordinator oversees every case of the trial (spec §6: a coordinator may move the
-- last-read mark of a case they are not involved in), yet the message policy let them read only
-- what was addressed to a role they hold in the case, so the conversation of a case with
-- messages said "no messages yet". A coordinator now reads every SENT message of every case;
-- drafts stay private to their writer, and writing still needs an involvement (insert_own).
drop policy select_visible on app_public.case_messages;
create policy select_visible on app_public.case_messages for select to sanad_user using (
  sender_id = (select app_public.current_user_id())
  or (sent_at is not null and (
       (select app_hidden.is_coordinator())
    or (to_interviewers and case_id in (select app_hidden.my_case_ids_as('interviewer')))
    or (to_patients and case_id in (select app_hidden.my_case_ids_as('patient')))
    or (to_supervisors and case_id in (select app_hidden.my_case_ids_as('supervisor')))
    or (to_therapists and case_id in (select app_hidden.my_case_ids_as('therapist')))
    or (to_supporters and case_id in (select app_hidden.my_case_ids_as('supporter')))
    or (to_counselors and case_id in (select app_hidden.my_case_ids_as('counselor')))
  ))
);
