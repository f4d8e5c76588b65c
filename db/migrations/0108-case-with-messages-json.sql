-- Why: the staff case screen's CaseWithMessages cost the API's Node process 2.4 ms of CPU a
-- request against 0.6 ms for node-postgres reading the same rows: grafast plans and walks the
-- case, its members with their accounts and both message lists with their senders, then
-- stringifies the payload. As for the case lists (0107), the server answers exactly this
-- document (src/domain/case-operations.ts) from this function instead
-- (src/server/graphql/compiled-lists.ts): one statement builds the root field's JSON text.
--
-- The answer must be the one PostGraphile gives, so every value is read from the source
-- PostGraphile reads (seen in the statement it sends for this document), all as the reader
-- (security invoker: RLS and the functions' own reader tests decide):
--   * the case: app_public.cases by id, under RLS; none visible gives null, as caseById does;
--   * shortId: app_public.cases_short_id; newMessages, isUnread, isFavorite, patient and
--     myInvolvement: the inlinable twins PostGraphile reads (src/server/graphql/inline-columns.ts);
--   * members: app_public.case_members of the case ordered by created_at, then id (orderBy
--     CREATED_AT_ASC with the primary key PostGraphile adds), each with its account from
--     app_public.users (null when the reader may not see it);
--   * unsentMessagesList / sentMessagesList: app_public.cases_unsent_messages /
--     cases_sent_messages in their own order (newest first, then id), each with its sender from
--     app_public.users (null for a system message or a sender the reader may not see);
--   * the formats as in 0107: timestamps by PostGraphile's to_char pattern, numbers, booleans and
--     enums as JSON, a nested object null when its row is missing (its id is null), a list []
--     when empty, keys in the document's order under its aliases, no spaces.
-- test/integration/compiled-case.int.test.ts compares both answers for every kind of reader.
--
-- PL/pgSQL for its per-connection plans (0107); in app_hidden, so it is not a GraphQL field.

-- The root field caseById of CaseWithMessages, as JSON text ('null' when the reader may not see the case).
create function app_hidden.case_with_messages_json(id uuid) returns text
  language plpgsql stable
as $$
begin
  return coalesce((
    select to_json(node)::text
      from app_public.cases c
      left join lateral app_hidden.cases_patient_inline(c) pt on true
      left join lateral app_hidden.cases_my_involvement_inline(c) mi on true
      cross join lateral (select pt.id as "id", pt.username as "username", pt.alias as "alias", pt.phone as "phone", pt.gender as "gender",
                                 pt.excluded as "excluded", pt.excluded_for_bdi_gte45 as "excludedForBdiGte45",
                                 pt.excluded_for_lack_of_email as "excludedForLackOfEmail",
                                 pt.excluded_for_lack_of_internet_access as "excludedForLackOfInternetAccess",
                                 pt.excluded_during_interview as "excludedDuringInterview",
                                 pt.excluded_for_missing_interview as "excludedForMissingInterview",
                                 pt.excluded_for_minor_age as "excludedForMinorAge",
                                 pt.excluded_for_no_trauma_or_low_bdi as "excludedForNoTraumaOrLowBdi",
                                 pt.excluded_for_upcoming_treatment as "excludedForUpcomingTreatment",
                                 pt.is_counseling_only as "isCounselingOnly",
                                 pt.registered_for_counseling as "registeredForCounseling") pto
      cross join lateral (select mi.id as "id", mi.favorite_message as "favoriteMessage",
                                 mi.acts_as_therapist as "actsAsTherapist", mi.acts_as_supervisor as "actsAsSupervisor",
                                 mi.acts_as_interviewer as "actsAsInterviewer", mi.acts_as_supporter as "actsAsSupporter",
                                 mi.acts_as_counselor as "actsAsCounselor", mi.acts_as_patient as "actsAsPatient") mio
      cross join lateral (
        select c.id as "id",
               app_public.cases_short_id(c) as "shortId",
               to_char(c.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
               to_char(c.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "updatedAt",
               (select v from app_hidden.cases_new_messages_inline(c) v) as "newMessages",
               c.title as "title", c.description as "description", c.diagnosis as "diagnosis",
               c.emergency_contact as "emergencyContact", c.stage as "stage", c.is_dropout as "isDropout",
               c.dropout_reason as "dropoutReason", c.ask_for_post_if_dropped_out as "askForPostIfDroppedOut",
               c.exclude_from_analysis as "excludeFromAnalysis", c.reason_for_exclusion as "reasonForExclusion",
               case when pt.id is not null then to_json(pto) end as "patient",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id", m.user_id as "userId",
                                        to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
                                        m.acts_as_therapist as "actsAsTherapist", m.acts_as_supervisor as "actsAsSupervisor",
                                        m.acts_as_interviewer as "actsAsInterviewer", m.acts_as_supporter as "actsAsSupporter",
                                        m.acts_as_counselor as "actsAsCounselor", m.acts_as_patient as "actsAsPatient",
                                        case when u.id is not null then to_json(uo) end as "user"
                                   from app_public.case_members m
                                   left join app_public.users u on u.id = m.user_id
                                   cross join lateral (select u.id as "id", u.username as "username", u.alias as "alias", u.gender as "gender",
                                                              u.phone as "phone", u.email as "email",
                                                              to_char(u.last_login, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "lastLogin",
                                                              u.nr_of_logins as "nrOfLogins") uo
                                  where m.case_id = c.id
                                  order by m.created_at, m.id) o), '[]'::json) as "members",
               case when mi.id is not null then to_json(mio) end as "myInvolvement",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id", m.case_id as "caseId", m.subject as "subject", m.body as "body",
                                        to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
                                        to_char(m.sent_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "sentAt",
                                        m.sender_id as "senderId", m.from_system as "fromSystem",
                                        (select v from app_hidden.case_messages_is_unread_inline(m) v) as "isUnread",
                                        (select v from app_hidden.case_messages_is_favorite_inline(m) v) as "isFavorite",
                                        m.to_therapists as "toTherapists", m.to_supervisors as "toSupervisors", m.to_supporters as "toSupporters",
                                        m.to_counselors as "toCounselors", m.to_interviewers as "toInterviewers", m.to_patients as "toPatients",
                                        case when s.id is not null then to_json(so) end as "sender"
                                   from app_public.cases_unsent_messages(c) m
                                   left join app_public.users s on s.id = m.sender_id
                                   cross join lateral (select s.id as "id", s.username as "username", s.alias as "alias") so
                                  order by m.created_at desc, m.id) o), '[]'::json) as "unsentMessagesList",
               coalesce((select array_to_json(array_agg(to_json(o)))
                           from (select m.id as "id", m.case_id as "caseId", m.subject as "subject", m.body as "body",
                                        to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "createdAt",
                                        to_char(m.sent_at, 'YYYY-MM-DD"T"HH24:MI:SS.USTZH:TZM') as "sentAt",
                                        m.sender_id as "senderId", m.from_system as "fromSystem",
                                        (select v from app_hidden.case_messages_is_unread_inline(m) v) as "isUnread",
                                        (select v from app_hidden.case_messages_is_favorite_inline(m) v) as "isFavorite",
                                        m.to_therapists as "toTherapists", m.to_supervisors as "toSupervisors", m.to_supporters as "toSupporters",
                                        m.to_counselors as "toCounselors", m.to_interviewers as "toInterviewers", m.to_patients as "toPatients",
                                        case when s.id is not null then to_json(so) end as "sender"
                                   from app_public.cases_sent_messages(c) m
                                   left join app_public.users s on s.id = m.sender_id
                                   cross join lateral (select s.id as "id", s.username as "username", s.alias as "alias") so
                                  order by m.sent_at desc, m.id) o), '[]'::json) as "sentMessagesList"
      ) node
     where c.id = case_with_messages_json.id
  ), 'null');
end
$$;

comment on function app_hidden.case_with_messages_json(uuid) is 'caseById of the web''s CaseWithMessages as PostGraphile answers it, as JSON text, as the reader (src/domain/case-operations.ts).';

revoke execute on function app_hidden.case_with_messages_json(uuid) from public;
grant execute on function app_hidden.case_with_messages_json(uuid) to sanad_user;
