-- Why: issue 30 item 5, verifiable concealed allocation. Until now the concealment of the
-- allocation rested on trust in whoever runs the server: the seed and the sequence sit in
-- app_private and nothing stops an operator from changing a ticket before it is drawn. Now:
--   * at configuration the server computes a commitment (SHA-256 over the public parameters,
--     the secret seed and the hash of the whole ticket sequence; src/domain/allocation-verify.ts)
--     and stores it with the parameters' published text;
--   * go-live fixes both: a coordinator fixes the allocation explicitly (to publish the
--     commitment in the trial registry before the first patient), and the first draw fixes it in
--     any case; a fixed allocation can never be configured again;
--   * every assignment records the ticket position it took, so that after unblinding
--     `npm run sanad -- verify-allocation` can re-derive each assignment from the revealed seed;
--   * unblinding (revealing the seed; showing a case's arm to a blinded assessor, 0241) is a
--     row of an append-only log with its reason, who and when (UTC).
-- See docs/decisions/verifiable-allocation.md.

alter table app_private.allocation_config
  add column commitment text,
  add column parameters_text text,
  add column fixed_at timestamptz,
  add column fixed_by uuid references app_public.users (id) on delete set null,
  add column revealed_at timestamptz,
  add column revealed_by uuid references app_public.users (id) on delete set null;

-- The ticket an assignment took (its position in the drawn stratum's sequence; '*' for
-- minimization). Filled by the draw's own trigger below, never by a client.
alter table app_public.treatment_assignments add column allocation_position integer;
comment on column app_public.treatment_assignments.allocation_position is
  'The position of the ticket this assignment took in its stratum''s concealed sequence (for verification after unblinding).';

create function app_hidden.tg_assignment_ticket() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  -- randomize_case marks the ticket with the case before it inserts the assignment.
  select t.position into new.allocation_position from app_private.allocation_tickets t where t.case_id = new.case_id
   order by t.drawn_at desc nulls last limit 1;
  return new;
end;
$$;
create trigger _060_allocation_ticket before insert on app_public.treatment_assignments
  for each row execute function app_hidden.tg_assignment_ticket();

-- The first draw is go-live at the latest.
create function app_hidden.tg_assignment_fixes_allocation() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  update app_private.allocation_config c set fixed_at = now(), fixed_by = new.assigned_by where c.fixed_at is null;
  return null;
end;
$$;
create trigger _070_fixes_allocation after insert on app_public.treatment_assignments
  for each row execute function app_hidden.tg_assignment_fixes_allocation();

-- Configuration with its commitment ----------------------------------------------------------

-- Replaces the request role's way to 0060's configure_allocation: the same checks and tickets,
-- plus the commitment, and refused once the allocation is fixed (published).
create function app_hidden.configure_committed_allocation(
  method text, arms jsonb, factors text[], settings jsonb, seed text, tickets jsonb, commitment text, parameters_text text
) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may configure the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  if commitment is null or commitment !~ '^[0-9a-f]{64}$' or parameters_text is null then
    raise exception 'The allocation needs its commitment.' using errcode = '22023', hint = 'invalid_value';
  end if;
  -- Once cases are drawn, configure_allocation says so (allocation_in_use); before, go-live fixed it.
  if exists (select 1 from app_private.allocation_config c where c.fixed_at is not null)
     and not exists (select 1 from app_public.treatment_assignments) then
    raise exception 'The allocation is fixed and its commitment published; it can no longer change.'
      using errcode = '55000', hint = 'allocation_fixed';
  end if;
  perform app_hidden.configure_allocation(method, arms, factors, settings, seed, tickets);
  update app_private.allocation_config c
     set commitment = configure_committed_allocation.commitment, parameters_text = configure_committed_allocation.parameters_text;
end;
$$;
grant execute on function app_hidden.configure_committed_allocation(text, jsonb, text[], jsonb, text, jsonb, text, text) to sanad_user;
revoke execute on function app_hidden.configure_allocation(text, jsonb, text[], jsonb, text, jsonb) from sanad_user, public;

-- Go-live: a coordinator fixes the allocation so the commitment can be published.
create function app_hidden.fix_allocation() returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may fix the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  if not exists (select 1 from app_private.allocation_config) then
    raise exception 'The allocation is not configured yet. A coordinator configures it on the trial page first.'
      using errcode = '55000', hint = 'allocation_missing';
  end if;
  update app_private.allocation_config c set fixed_at = now(), fixed_by = app_public.current_user_id() where c.fixed_at is null;
end;
$$;
grant execute on function app_hidden.fix_allocation() to sanad_user;

-- Unblinding log (append-only) ---------------------------------------------------------------

create table app_public.unblinding_events (
  id uuid primary key default gen_random_uuid(),
  -- allocation: the seed revealed (the whole sequence); case: one case's arm shown to a blinded assessor
  kind text not null constraint unblinding_kind_known check (kind in ('allocation', 'case')),
  case_id uuid references app_public.cases (id) on delete set null,
  -- for kind case: the blinded assessor who may now see the arm
  assessor_id uuid references app_public.users (id) on delete set null,
  reason text not null constraint unblinding_reason_length check (length(btrim(reason)) between 1 and 2000),
  unblinded_by uuid references app_public.users (id) on delete set null,
  unblinded_at timestamptz not null default now()
);
create index unblinding_events_case_idx on app_public.unblinding_events (case_id, assessor_id);
comment on table app_public.unblinding_events is
  'Every unblinding with its reason: the allocation''s seed revealed, or a case''s arm shown to a blinded assessor. Append-only.';
alter table app_public.unblinding_events enable row level security;
create policy select_coordinator on app_public.unblinding_events for select to sanad_user using ((select app_hidden.is_coordinator()));
-- No write grant: only the unblinding functions write here, and nothing changes a row.
grant select on app_public.unblinding_events to sanad_user;

create function app_hidden.tg_unblinding_append_only() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  raise exception 'The unblinding log is append-only.' using errcode = '42501', hint = 'forbidden';
end;
$$;
create trigger _010_append_only before update or delete on app_public.unblinding_events
  for each row execute function app_hidden.tg_unblinding_append_only();
create trigger _010_append_only_truncate before truncate on app_public.unblinding_events
  for each statement execute function app_hidden.tg_unblinding_append_only();

-- Unblinding the allocation: reveals the seed (to coordinators and the verifier), logged.
create function app_hidden.reveal_allocation(reason text) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may unblind the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  if reason is null or length(btrim(reason)) = 0 or length(reason) > 2000 then
    raise exception 'Give a reason (up to 2000 characters).' using errcode = '22023', hint = 'reason_required';
  end if;
  if not exists (select 1 from app_private.allocation_config c where c.fixed_at is not null) then
    raise exception 'Only a fixed allocation can be unblinded: fix it (go-live) first.' using errcode = '55000', hint = 'allocation_not_fixed';
  end if;
  if exists (select 1 from app_private.allocation_config c where c.revealed_at is not null) then
    raise exception 'The allocation is unblinded already.' using errcode = '55000', hint = 'already_unblinded';
  end if;
  update app_private.allocation_config c set revealed_at = now(), revealed_by = app_public.current_user_id();
  insert into app_public.unblinding_events (kind, reason, unblinded_by) values ('allocation', btrim(reason), app_public.current_user_id());
end;
$$;
grant execute on function app_hidden.reveal_allocation(text) to sanad_user;

-- What coordinators publish: parameters, commitment, go-live; the seed only once unblinded.
create function app_public.allocation_commitment() returns jsonb
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the allocation.' using errcode = '42501', hint = 'forbidden';
  end if;
  return (
    select jsonb_build_object(
      'commitment', c.commitment,
      'parameters', c.parameters_text,
      'configuredAt', c.configured_at,
      'fixedAt', c.fixed_at,
      'fixedBy', (select coalesce(u.alias, u.username) from app_public.users u where u.id = c.fixed_by),
      'revealedAt', c.revealed_at,
      'revealedBy', (select coalesce(u.alias, u.username) from app_public.users u where u.id = c.revealed_by),
      'seed', case when c.revealed_at is not null then c.seed end)
      from app_private.allocation_config c);
end;
$$;
comment on function app_public.allocation_commitment() is
  'The allocation''s published parameters and commitment, when it was fixed (go-live), and the seed once unblinded; coordinators only.';
grant execute on function app_public.allocation_commitment() to sanad_user;

-- The unblinding log with names (not ids), newest first; coordinators only.
create function app_public.unblinding_log()
  returns table (kind text, case_id uuid, assessor text, reason text, unblinded_by text, unblinded_at timestamptz)
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators may read the unblinding log.' using errcode = '42501', hint = 'forbidden';
  end if;
  return query
    select e.kind, e.case_id, (select coalesce(u.alias, u.username) from app_public.users u where u.id = e.assessor_id),
           e.reason, (select coalesce(u.alias, u.username) from app_public.users u where u.id = e.unblinded_by), e.unblinded_at
      from app_public.unblinding_events e order by e.unblinded_at desc, e.id;
end;
$$;
grant execute on function app_public.unblinding_log() to sanad_user;
