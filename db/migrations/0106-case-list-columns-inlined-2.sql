-- Why: after 0104 and 0105 the per-row calls left in the case lists were case_members_person
-- (the person of each care-role membership, ~290 calls on a coordinator's PagedCases page),
-- cases_new_messages and cases_latest_message (one each a case of every list), and on a case's
-- page case_messages_is_unread and case_messages_is_favorite (one each a message): PL/pgSQL
-- security definer functions, 4–15 µs of PostgreSQL CPU a call, nearly all of it the call.
-- Their twins here are the same rules as SQL set-returning functions without settings, which
-- PostgreSQL inlines into the statement that reads them (as 0104's), running as the reader.
-- The GraphQL API reads the fields through them (src/server/graphql/inline-columns.ts); the
-- app_public functions stay, with the same answers, for SQL callers. The tests compare each
-- twin with its function for every reader, on real rows and rows built by hand
-- (test/integration/case-list-pages.int.test.ts).

-- The reader's own kept figures (0032). app_private stays closed to the request roles (no usage
-- on the schema): this view, owned by the owner of case_inbox, shows a request only the rows of
-- its own user id, the figures cases_new_messages and cases_latest_message already answer that
-- person for any case (their count of new messages and the id of their newest visible message,
-- per case they are a member of). security_barrier: the view's filter runs before any function
-- a query adds, so no expression of the reader's sees another person's row.
create view app_hidden.my_case_inbox with (security_barrier) as
  select b.case_id, b.new_messages, b.latest_message_id
    from app_private.case_inbox b
   where b.user_id = app_public.current_user_id();
comment on view app_hidden.my_case_inbox is 'The signed-in person''s rows of app_private.case_inbox (kept new-message counts and latest message).';
revoke all on app_hidden.my_case_inbox from public;
grant select on app_hidden.my_case_inbox to sanad_user;

-- 0032 cases_new_messages: the reader's kept count for the case, 0 without one.
create function app_hidden.cases_new_messages_inline(c app_public.cases) returns setof integer
  language sql stable
as $$
  select coalesce((select b.new_messages from app_hidden.my_case_inbox b where b.case_id = c.id), 0)
$$;

-- 0032 cases_latest_message: a member's kept newest message; someone with no kept row (a
-- coordinator who is not a member) their own newest sent message. The message is read under
-- case_messages' policy, which admits both: the kept one is the member's own or sent to a role
-- they act in on the case (the rule refresh_case_inbox keeps it by), the other is their own.
create function app_hidden.cases_latest_message_inline(c app_public.cases) returns setof app_public.case_messages
  language sql stable
as $$
  select m.* from app_hidden.my_case_inbox b join app_public.case_messages m on m.id = b.latest_message_id
   where b.case_id = c.id
  union all
  select s.* from (
    select m.* from app_public.case_messages m
     where m.sender_id = app_public.current_user_id() and m.case_id = c.id and m.sent_at is not null
       and not exists (select 1 from app_hidden.my_case_inbox b where b.case_id = c.id)
     order by m.sent_at desc, m.id desc
     limit 1) as s
$$;

-- 0100 case_members_person: the member's user as the users policy shows it (yourself, everyone
-- for a coordinator, whoever shares a case with you), which is the rule 0100 checks by hand.
-- Read as the reader, the policy itself decides, its case sets built once per statement.
create function app_hidden.case_members_person_inline(m app_public.case_members) returns setof app_public.users
  language sql stable
as $$
  select u.* from app_public.users u where u.id = m.user_id
$$;

-- 0008 case_messages_is_unread: sent by someone else after the reader's last-read time in that
-- case. The reader's own membership, which case_members' policy always lets them read.
create function app_hidden.case_messages_is_unread_inline(m app_public.case_messages) returns setof boolean
  language sql stable
as $$
  select m.sent_at is not null
     and m.sender_id is distinct from app_public.current_user_id()
     and exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id()
                    and m.sent_at > i.new_messages_after)
$$;

-- 0008 case_messages_is_favorite: the message the reader pinned in their membership of its case.
create function app_hidden.case_messages_is_favorite_inline(m app_public.case_messages) returns setof boolean
  language sql stable
as $$
  select exists (select 1 from app_public.case_members i
                  where i.case_id = m.case_id and i.user_id = app_public.current_user_id() and i.favorite_message = m.id)
$$;

comment on function app_hidden.cases_new_messages_inline(app_public.cases) is 'cases_new_messages, inlined into the statement that reads it (one row).';
comment on function app_hidden.cases_latest_message_inline(app_public.cases) is 'cases_latest_message, inlined into the statement that reads it (at most one row).';
comment on function app_hidden.case_members_person_inline(app_public.case_members) is 'case_members_person, inlined into the statement that reads it (at most one row).';
comment on function app_hidden.case_messages_is_unread_inline(app_public.case_messages) is 'case_messages_is_unread, inlined into the statement that reads it (one row).';
comment on function app_hidden.case_messages_is_favorite_inline(app_public.case_messages) is 'case_messages_is_favorite, inlined into the statement that reads it (one row).';

revoke execute on function app_hidden.cases_new_messages_inline(app_public.cases),
  app_hidden.cases_latest_message_inline(app_public.cases),
  app_hidden.case_members_person_inline(app_public.case_members),
  app_hidden.case_messages_is_unread_inline(app_public.case_messages),
  app_hidden.case_messages_is_favorite_inline(app_public.case_messages) from public;
grant execute on function app_hidden.cases_new_messages_inline(app_public.cases),
  app_hidden.cases_latest_message_inline(app_public.cases),
  app_hidden.case_members_person_inline(app_public.case_members),
  app_hidden.case_messages_is_unread_inline(app_public.case_messages),
  app_hidden.case_messages_is_favorite_inline(app_public.case_messages) to sanad_user;
