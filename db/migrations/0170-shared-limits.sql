-- Why: issue 28. Rate limits and the sign-in throttle lived in each server process's memory,
-- so N processes behind a balancer allowed N times the limit and an attacker spreading guesses
-- over them got N times the free failures. With PostgreSQL they are kept here, shared by every
-- process (the embedded database admits one process, which keeps counting in memory). The
-- server calls the two functions as the owner; request roles have no access (app_private).

-- Request counters: one fixed window per key ('address:<ip>', 'person:<uuid>').
create table app_private.rate_limit_windows (
  key text primary key,
  window_start timestamptz not null,
  hits integer not null
);
alter table app_private.rate_limit_windows enable row level security;

-- Counts one request for each key (same order as `limits`); answers, per key, 0 when allowed or
-- the seconds until its window ends when the window already held `limits[i]` requests. One
-- statement for both keys of a request: one round trip.
create function app_private.hit_rate_limits(keys text[], limits integer[], window_seconds integer)
returns integer[]
language sql
volatile
set search_path = pg_catalog
as $$
  with hit as (
    insert into app_private.rate_limit_windows as w (key, window_start, hits)
    select k.key, now(), 1 from unnest(keys) with ordinality as k(key, i)
    on conflict (key) do update
      set window_start = case when w.window_start <= now() - make_interval(secs => window_seconds) then now() else w.window_start end,
          hits = case when w.window_start <= now() - make_interval(secs => window_seconds) then 1 else w.hits + 1 end
    returning w.key, w.window_start, w.hits
  )
  select array_agg(
           case when h.hits > limits[k.i] then greatest(1, ceil(extract(epoch from (h.window_start + make_interval(secs => window_seconds) - now())))::integer) else 0 end
           order by k.i)
    from unnest(keys) with ordinality as k(key, i) join hit h on h.key = k.key
$$;
revoke all on function app_private.hit_rate_limits(text[], integer[], integer) from public;

-- Sign-in failures per key ('pair:<name>|<ip>', 'address:<ip>'), as src/server/auth/throttle.ts keeps them.
create table app_private.sign_in_failures (
  key text primary key,
  failures integer not null,
  last_at timestamptz not null,
  wait_until timestamptz not null
);
alter table app_private.sign_in_failures enable row level security;

-- Seconds the caller must still wait before the next attempt (0: none). Failures older than
-- the window whose wait is over are forgotten (and deleted now and then, on a failure).
create function app_private.sign_in_wait(keys text[], window_seconds integer)
returns integer
language sql
stable
set search_path = pg_catalog
as $$
  select coalesce(max(greatest(0, ceil(extract(epoch from (f.wait_until - now())))::integer)), 0)
    from app_private.sign_in_failures f
   where f.key = any (keys)
     and not (f.last_at < now() - make_interval(secs => window_seconds) and f.wait_until <= now())
$$;
revoke all on function app_private.sign_in_wait(text[], integer) from public;

-- Records a failure for each key; after `free[i]` failures each further one makes the key
-- wait 1 s, 2 s, 4 s, … up to max_delay_seconds. Answers the longest wait it starts.
create function app_private.record_sign_in_failure(keys text[], free integer[], window_seconds integer, max_delay_seconds integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog
as $$
declare
  wait integer;
begin
  delete from app_private.sign_in_failures
   where key = any (keys) and last_at < now() - make_interval(secs => window_seconds) and wait_until <= now();
  with bumped as (
    insert into app_private.sign_in_failures as f (key, failures, last_at, wait_until)
    select k.key, 1, now(), case when 1 >= free[k.i] then now() + make_interval(secs => least(1, max_delay_seconds)) else now() end
      from unnest(keys) with ordinality as k(key, i)
    on conflict (key) do update
      set failures = f.failures + 1,
          last_at = now(),
          wait_until = case
            when f.failures + 1 >= free[(select k.i from unnest(keys) with ordinality as k(key, i) where k.key = f.key)]
            then now() + make_interval(secs => least(power(2, least(f.failures + 1 - free[(select k.i from unnest(keys) with ordinality as k(key, i) where k.key = f.key)], 30))::integer, max_delay_seconds))
            else f.wait_until end
    returning f.wait_until
  )
  select coalesce(max(greatest(0, ceil(extract(epoch from (b.wait_until - now())))::integer)), 0) into wait from bumped b;
  -- Forget long-past failures of other keys now and then, so the table follows the active keys.
  if random() < 0.01 then
    delete from app_private.sign_in_failures where last_at < now() - make_interval(secs => window_seconds) and wait_until <= now();
    delete from app_private.rate_limit_windows where window_start < now() - interval '1 hour';
  end if;
  return wait;
end
$$;
revoke all on function app_private.record_sign_in_failure(text[], integer[], integer, integer) from public;

-- A successful sign-in forgets the failures of this name at this address.
create function app_private.forget_sign_in_failures(pair_key text)
returns void
language sql
volatile
set search_path = pg_catalog
as $$
  delete from app_private.sign_in_failures where key = pair_key
$$;
revoke all on function app_private.forget_sign_in_failures(text) from public;
