-- Why: GET /api/my_messages (spec §7) lists the signed-in person's messages across their
-- cases with their unread state; the web app polls it for the unread badge. A security-invoker
-- view, so the message policies decide what it shows.

create view app_public.my_messages with (security_invoker = true) as
select m.id, m.case_id, m.sender_id, m.from_system, m.subject, m.body,
       m.to_interviewers, m.to_patients, m.to_supervisors, m.to_therapists, m.to_supporters, m.to_counselors,
       m.created_at, m.updated_at, m.sent_at,
       (m.sent_at is not null and m.sender_id is distinct from i.user_id and m.sent_at > i.new_messages_after) as is_unread
  from app_public.case_messages m
  join app_public.case_members i on i.case_id = m.case_id and i.user_id = app_public.current_user_id();
comment on view app_public.my_messages is 'The signed-in person''s messages in their cases, with unread state.';

grant select on app_public.my_messages to sanad_user;
