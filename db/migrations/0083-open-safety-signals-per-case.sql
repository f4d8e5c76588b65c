-- Why: cases_open_safety_signals (0050), a column of every staff case list (CaseListFields,
-- PagedCases), cost ~190 µs per case for a therapist (EXPLAIN ANALYZE at 10,000 cases: 7.7 ms of
-- a 40-case list): as a SQL function that PostgreSQL cannot inline (security definer), it built
-- the reader's staff case set again for every case (`c.id in (select my_staff_case_ids())`).
-- Same rule, answer and signature, in PL/pgSQL (plans kept for the session), with the reader
-- checked against the one case by its membership key: staff of the case (any role but patient)
-- and coordinators get the count of open signals, anyone else null.
create or replace function app_public.cases_open_safety_signals(c app_public.cases) returns integer
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not (app_hidden.is_coordinator() or app_hidden.is_case_staff(c.id)) then
    return null;
  end if;
  return (select count(*)::integer from app_public.safety_signals s where s.case_id = c.id and s.resolved_at is null);
end;
$$;
