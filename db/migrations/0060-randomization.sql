-- Why: issue 15, concealed randomization. A coordinator configures the trial's allocation once
-- (arms and ratio; permuted blocks of randomly varying size per stratum, Pocock-Simon
-- minimization with a random element, or an uploaded allocation table). The sequence and its
-- secret seed live in app_private, which no request role can read, so nobody learns a future
-- allocation. A draw takes the next ticket of its stratum under a row lock on the stratum's
-- counter: concurrent draws never take the same ticket and never skip one (a rolled-back draw
-- leaves the counter as it was). The result is a row of app_public.treatment_assignments (spec
-- §3 "Treatment assignment"), final and audited with its stratum. See docs/DECISIONS.md
-- "2026-11 Trial management".

-- The allocation ------------------------------------------------------------------------------

create table app_private.allocation_config (
  singleton boolean primary key default true constraint allocation_config_single check (singleton),
  method text not null constraint allocation_method_known check (method in ('blocks', 'minimization', 'table')),
  -- [{"code": "a", "ratio": 1}, …] in the order the coordinator gave them
  arms jsonb not null,
  -- stratification (blocks, table) or minimization factors: a subset of gender, problem
  factors text[] not null default '{}',
  -- method settings without secrets: block multiples, minimization probability, tickets per stratum
  settings jsonb not null default '{}'::jsonb,
  -- the secret seed every ticket was generated from (reproducible by whoever holds it)
  seed text not null,
  configured_by uuid references app_public.users (id) on delete set null,
  configured_at timestamptz not null default now()
);
alter table app_private.allocation_config enable row level security;

create table app_private.allocation_tickets (
  -- "gender=FEMALE;problem=ptsd", or "*" for one sequence for everyone (and for minimization)
  stratum text not null,
  position integer not null constraint allocation_ticket_position check (position >= 1),
  -- the arm of a block or table ticket; minimization tickets carry random numbers instead
  arm text,
  random1 double precision,
  random2 double precision,
  case_id uuid references app_public.cases (id) on delete set null,
  drawn_at timestamptz,
  primary key (stratum, position)
);
alter table app_private.allocation_tickets enable row level security;

-- The next position per stratum: the row lock of a draw.
create table app_private.allocation_counters (
  stratum text primary key,
  next_position integer not null default 1
);
alter table app_private.allocation_counters enable row level security;

-- Treatment assignments (spec §3) -------------------------------------------------------------

create table app_public.treatment_assignments (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references app_public.cases (id) on delete cascade,
  treatment text not null check (length(treatment) between 1 and 64),
  -- the stratum the draw used (the factor levels of the case); "*" when unstratified
  stratum text not null check (length(stratum) <= 500),
  -- the factor levels of the case at the draw ({"gender": …, "problem": …}); minimization counts them
  factor_levels jsonb not null default '{}'::jsonb,
  -- blocks, minimization or table
  method text not null,
  assigned_at timestamptz not null default now(),
  assigned_by uuid references app_public.users (id) on delete set null
);
-- An assignment is final: one per case, whoever draws.
create unique index treatment_assignments_one_per_case on app_public.treatment_assignments (case_id);
comment on table app_public.treatment_assignments is
  'The randomized treatment of a case (spec §3 "Treatment assignment"). Drawn by a coordinator from the concealed allocation; final.';
comment on column app_public.treatment_assignments.treatment is 'The arm code of the allocation.';
comment on column app_public.treatment_assignments.stratum is 'The factor levels of the case at the draw, e.g. gender=FEMALE;problem=ptsd ("*" when unstratified).';

alter table app_public.treatment_assignments enable row level security;
create policy select_member on app_public.treatment_assignments for select to sanad_user using (
  (select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())
);
-- No insert, update or delete grant: only app_public.randomize_case writes here.
grant select on app_public.treatment_assignments to sanad_user;

create trigger _900_audit after insert or update or delete on app_public.treatment_assignments
  for each row execute function app_hidden.tg_audit('case_id');

-- Stratification factors ----------------------------------------------------------------------

-- The problem the interview found (the trial's `outcome` variable: ptsd or depression), or null
-- when the case was not accepted into treatment.
create function app_hidden.accepted_problem(case_id uuid) returns text
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select i.variables -> 'outcome' ->> 'value'
    from app_public.workflow_instances i
   where i.case_id = accepted_problem.case_id and i.business_key = 'trial'
     and i.variables -> 'outcome' ->> 'value' in ('ptsd', 'depression')
   order by i.start_time desc
   limit 1
$$;

-- The factor levels of a case: gender of the patient (FEMALE, MALE, DIVERSE, unknown) and the
-- accepted problem (ptsd, depression, unknown).
create function app_hidden.case_factor_levels(case_id uuid) returns jsonb
  language sql stable security definer
  set search_path = pg_catalog
as $$
  select jsonb_build_object(
    'gender', coalesce((select u.gender::text from app_public.case_members m join app_public.users u on u.id = m.user_id
                          where m.case_id = case_factor_levels.case_id and m.acts_as_patient limit 1), 'unknown'),
    'problem', coalesce(app_hidden.accepted_problem(case_factor_levels.case_id), 'unknown'))
$$;

-- "gender=FEMALE;problem=ptsd" for the given factors in the given order; "*" for none.
create function app_hidden.stratum_key(levels jsonb, factors text[]) returns text
  language sql immutable
  set search_path = pg_catalog
as $$
  select coalesce(nullif(string_agg(f || '=' || coalesce(levels ->> f, 'unknown'), ';' order by o), ''), '*')
    from unnest(factors) with ordinality as x(f, o)
$$;

-- Configuration -------------------------------------------------------------------------------

-- Stores a new allocation with its tickets (generated by the server from a fresh secret seed,
-- src/domain/randomization.ts). Coordinators only; refused once a case has been randomized, so
-- nobody can re-roll a sequence after seeing where it goes.
create function app_hidden.configure_allocation(
  method text, arms jsonb, factors text[], settings jsonb, seed text, tickets jsonb
) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may configure the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  -- Waits for draws in flight (they hold row locks on the counters) and keeps new ones out
  -- until this commits, so the check below cannot miss a draw that is about to commit.
  lock table app_private.allocation_counters in exclusive mode;
  if exists (select 1 from app_public.treatment_assignments) then
    raise exception 'Cases have already been randomized; the allocation can no longer change.'
      using errcode = '55000', hint = 'allocation_in_use';
  end if;
  delete from app_private.allocation_tickets;
  delete from app_private.allocation_counters;
  delete from app_private.allocation_config;
  insert into app_private.allocation_config (method, arms, factors, settings, seed, configured_by)
  values (configure_allocation.method, configure_allocation.arms, configure_allocation.factors,
          configure_allocation.settings, configure_allocation.seed, app_public.current_user_id());
  insert into app_private.allocation_tickets (stratum, position, arm, random1, random2)
  select t.stratum, t.position, t.arm, t.random1, t.random2
    from jsonb_to_recordset(tickets) as t(stratum text, position integer, arm text, random1 double precision, random2 double precision);
  insert into app_private.allocation_counters (stratum)
  select distinct t.stratum from app_private.allocation_tickets t;
end;
$$;
grant execute on function app_hidden.configure_allocation(text, jsonb, text[], jsonb, text, jsonb) to sanad_user;

-- What a coordinator may know about the allocation: never the seed or a ticket.
create function app_public.allocation_summary() returns jsonb
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  return (
    select jsonb_build_object(
      'method', c.method, 'arms', c.arms, 'factors', to_jsonb(c.factors),
      'settings', c.settings - 'ticketsPerStratum', 'configuredAt', c.configured_at,
      'strata', (select count(*) from app_private.allocation_counters),
      'draws', (select count(*) from app_public.treatment_assignments))
      from app_private.allocation_config c);
end;
$$;
comment on function app_public.allocation_summary() is
  'The configured allocation (method, arms and ratio, factors) without its concealed sequence; coordinators only. Null before configuration.';
grant execute on function app_public.allocation_summary() to sanad_user;

-- Balance: drawn assignments per stratum and arm (the past only, never the sequence).
create function app_public.allocation_balance()
  returns table (stratum text, treatment text, assignments bigint)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the balance report.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
    select a.stratum, a.treatment, count(*) from app_public.treatment_assignments a
     group by a.stratum, a.treatment order by a.stratum, a.treatment;
end;
$$;
comment on function app_public.allocation_balance() is 'Randomized cases per stratum and arm; coordinators only.';
grant execute on function app_public.allocation_balance() to sanad_user;

-- The draw ------------------------------------------------------------------------------------

-- Pocock-Simon: the arm whose choice leaves the smallest total imbalance over the factors
-- (counts of earlier cases with the same level, divided by the arm's ratio); with probability
-- `probability` (random1) the best arm, else an arm by ratio (random2). Ties go by random2.
create function app_hidden.minimization_arm(levels jsonb, factors text[], arms jsonb, probability double precision,
                                            random1 double precision, random2 double precision) returns text
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  total_ratio numeric := (select sum((a ->> 'ratio')::numeric) from jsonb_array_elements(arms) a);
  chosen text;
begin
  if random1 >= probability then
    -- the random element: an arm by ratio
    select x.code into chosen from (
      select a ->> 'code' as code, sum((a ->> 'ratio')::numeric) over (order by o) as upto
        from jsonb_array_elements(arms) with ordinality as e(a, o)) x
     where random2 * total_ratio < x.upto order by x.upto limit 1;
    return chosen;
  end if;
  select s.code into chosen from (
    select a ->> 'code' as code, o,
           (select count(*) from app_public.treatment_assignments t, unnest(factors) f
             where t.treatment = a ->> 'code' and t.factor_levels ->> f = levels ->> f)::numeric / (a ->> 'ratio')::numeric as score
      from jsonb_array_elements(arms) with ordinality as e(a, o)) s
   order by s.score,
            -- ties: rotate the start by random2 so no arm is favoured
            (s.o - 1 + floor(random2 * jsonb_array_length(arms))::int) % jsonb_array_length(arms)
   limit 1;
  return chosen;
end;
$$;

-- Randomizes an accepted case: takes the next ticket of its stratum and stores the assignment.
-- Refused for anyone but a coordinator, before configuration, for a case not accepted into
-- treatment, for a case already randomized, and when the stratum's tickets are used up.
create function app_public.randomize_case(case_id uuid) returns app_public.treatment_assignments
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  config app_private.allocation_config;
  levels jsonb;
  key text;
  ticket app_private.allocation_tickets;
  drawn integer;
  arm text;
  result app_public.treatment_assignments;
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may randomize a case.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_public.cases c where c.id = randomize_case.case_id) then
    raise exception 'There is no such case.' using errcode = 'P0002', hint = 'case_not_found';
  end if;
  select * into config from app_private.allocation_config;
  if not found then
    raise exception 'The allocation is not configured yet. A coordinator configures it on the trial page first.'
      using errcode = '55000', hint = 'allocation_missing';
  end if;
  if app_hidden.accepted_problem(randomize_case.case_id) is null then
    raise exception 'The case is not accepted into treatment: the interview outcome must be PTSD or depression before randomization.'
      using errcode = '55000', hint = 'not_accepted';
  end if;
  levels := app_hidden.case_factor_levels(randomize_case.case_id);
  key := case when config.method = 'minimization' then '*' else app_hidden.stratum_key(levels, config.factors) end;
  -- The lock: draws of one stratum wait here for each other; a rolled-back draw frees its
  -- position again, so no ticket is taken twice and none is skipped.
  update app_private.allocation_counters c set next_position = c.next_position + 1
   where c.stratum = key returning c.next_position - 1 into drawn;
  if drawn is null then
    raise exception 'The allocation has no tickets for the stratum %.', key using errcode = '55000', hint = 'stratum_missing';
  end if;
  -- Checked after the lock, so that two draws for the same case cannot both pass.
  if exists (select 1 from app_public.treatment_assignments t where t.case_id = randomize_case.case_id) then
    raise exception 'The case is already randomized; an assignment is final.' using errcode = '23505', hint = 'already_randomized';
  end if;
  select * into ticket from app_private.allocation_tickets t where t.stratum = key and t.position = drawn;
  if not found then
    raise exception 'The allocation of stratum % is used up. Add an allocation table or ask the trial''s statistician.', key
      using errcode = '55000', hint = 'allocation_exhausted';
  end if;
  arm := case when config.method = 'minimization'
              then app_hidden.minimization_arm(levels, config.factors, config.arms,
                                               coalesce((config.settings ->> 'probability')::double precision, 0.8),
                                               ticket.random1, ticket.random2)
              else ticket.arm end;
  update app_private.allocation_tickets t set case_id = randomize_case.case_id, drawn_at = now()
   where t.stratum = key and t.position = drawn;
  insert into app_public.treatment_assignments (case_id, treatment, stratum, factor_levels, method, assigned_by)
  values (randomize_case.case_id, arm, app_hidden.stratum_key(levels, config.factors), levels, config.method, app_public.current_user_id())
  returning * into result;
  return result;
end;
$$;
comment on function app_public.randomize_case(uuid) is
  'Draws the treatment of an accepted case from the concealed allocation; coordinators only; an assignment is final.';
grant execute on function app_public.randomize_case(uuid) to sanad_user;

-- The case, complete (spec §3 Case: me, myDates, members; PagedCases: therapists, counselors,
-- interviewers) ---------------------------------------------------------------------------------

create function app_public.cases_me(c app_public.cases) returns app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.user_id = app_public.current_user_id()
$$;
comment on function app_public.cases_me(app_public.cases) is 'The signed-in person''s membership in the case (empty for a coordinator who is not a member).';

create function app_public.cases_members(c app_public.cases) returns setof app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_members m where m.case_id = c.id order by m.created_at, m.user_id
$$;
comment on function app_public.cases_members(app_public.cases) is 'Every member of the case, the patient included.';

create function app_public.cases_therapists(c app_public.cases) returns setof app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_therapist order by m.created_at, m.user_id
$$;
comment on function app_public.cases_therapists(app_public.cases) is 'The members acting as therapists of the case.';

create function app_public.cases_counselors(c app_public.cases) returns setof app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_counselor order by m.created_at, m.user_id
$$;
comment on function app_public.cases_counselors(app_public.cases) is 'The members acting as counselors of the case.';

create function app_public.cases_interviewers(c app_public.cases) returns setof app_public.case_members
  language sql stable
  set search_path = pg_catalog
as $$
  select m.* from app_public.case_members m where m.case_id = c.id and m.acts_as_interviewer order by m.created_at, m.user_id
$$;
comment on function app_public.cases_interviewers(app_public.cases) is 'The members acting as interviewers of the case.';

create function app_public.cases_my_dates(c app_public.cases) returns setof app_public.my_dates
  language sql stable
  set search_path = pg_catalog
as $$
  select d.* from app_public.my_dates d where d.case_id = c.id order by d."timestamp"
$$;
comment on function app_public.cases_my_dates(app_public.cases) is 'The upcoming dates (timers) of the case''s processes: name and timestamp.';

grant execute on function app_public.cases_me(app_public.cases), app_public.cases_members(app_public.cases),
  app_public.cases_therapists(app_public.cases), app_public.cases_counselors(app_public.cases),
  app_public.cases_interviewers(app_public.cases), app_public.cases_my_dates(app_public.cases) to sanad_user;
