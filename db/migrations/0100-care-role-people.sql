-- The person of a membership, for the care-role lists of PagedCases (therapists, counselors,
-- interviewers, each with their user). Read through the `userByUserId` relation, PostGraphile
-- sent one batch statement per role list, and each batch's generic plan hashed all users under
-- the users policy (`id in (select my_peer_ids())`): 1.5–5 ms each, three per page. A function
-- of the membership row returning one user is joined laterally into the page's statement
-- (src/server/graphql/lateral-functions.ts) and reads one user by its key.
--
-- The rule is the users policy of 0003, unchanged: yourself, everyone for a coordinator, and
-- whoever shares a case with you. The membership's own case is tried first (two key lookups:
-- you and the person both members of it); the general test of a shared case follows, so a row
-- built by hand, whose person is no member of its case, gets exactly what the policy allows.
-- Security definer reads past the policy, so the function checks the rule itself.

create function app_public.case_members_person(m app_public.case_members) returns app_public.users
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  me uuid := app_public.current_user_id();
  visible boolean := m.user_id = me;
begin
  -- One test a statement: PL/pgSQL keeps a plan per statement, choosing between a plan for the
  -- values of each call and one for all calls by their cost; a test that folds to a constant in
  -- some calls (the person is the reader) makes the first kind look cheaper, and every call then
  -- planned the whole test anew (measured: ~120 µs a call instead of ~15).
  if not coalesce(visible, false) then
    visible := exists (select 1 from app_public.users k where k.id = me and k.is_coordinator_account);
  end if;
  if not visible then
    visible := exists (select 1 from app_public.case_members mine where mine.case_id = m.case_id and mine.user_id = me)
               and exists (select 1 from app_public.case_members other where other.case_id = m.case_id and other.user_id = m.user_id);
  end if;
  if not visible then
    visible := exists (select 1 from app_public.case_members mine
                         join app_public.case_members other on other.case_id = mine.case_id
                        where mine.user_id = me and other.user_id = m.user_id);
  end if;
  if not visible then
    return null;
  end if;
  return (select u from app_public.users u where u.id = m.user_id);
end;
$$;
comment on function app_public.case_members_person(app_public.case_members) is
  'The member''s user account, where the reader may see it (as the users policy: themselves, a coordinator, or someone sharing a case).';

revoke execute on function app_public.case_members_person(app_public.case_members) from public;
grant execute on function app_public.case_members_person(app_public.case_members) to sanad_user;
