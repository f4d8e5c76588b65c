-- Why: after 0104, cases_my_involvement is one of the calls left per case of PagedCases and the
-- other case lists (~5 µs of PostgreSQL CPU a call, 200 a page). Its twin, inlined as 0104's
-- are: the reader's own membership of the case, read as the reader. case_members' policy lets
-- everyone read their own memberships (their case is one of app_hidden.my_case_ids(), and a
-- coordinator reads all), so the row is the one the security definer function of 0008 returns,
-- for any case row, also one built by hand. The GraphQL API reads myInvolvement through it
-- (src/server/graphql/inline-columns.ts).
create function app_hidden.cases_my_involvement_inline(c app_public.cases) returns setof app_public.case_members
  language sql stable
as $$
  select i.* from app_public.case_members i where i.case_id = c.id and i.user_id = app_public.current_user_id()
$$;
comment on function app_hidden.cases_my_involvement_inline(app_public.cases) is 'cases_my_involvement, inlined into the statement that reads it (at most one row).';

revoke execute on function app_hidden.cases_my_involvement_inline(app_public.cases) from public;
grant execute on function app_hidden.cases_my_involvement_inline(app_public.cases) to sanad_user;
