-- Why: issue 28, item 6. A write whose answer is lost (a reset connection, a killed process, a
-- proxy timeout) was repeated by a client that retried it: a second message, a second answer.
-- A state-changing request may now carry an `Idempotency-Key`; the first answer to it is kept
-- here, per person, so a retry with the same key gets that answer back instead of a second
-- effect, on whichever server process it lands and after a restart. The server calls the three
-- functions as the owner with the person its token verified (as it does the rate limits,
-- migration 0170); request roles have no access (app_private, RLS on and no policy).

create table app_private.idempotency_keys (
  user_id uuid not null references app_public.users (id) on delete cascade,
  key text not null,
  -- sha256 of the method, the URL and the body: the same key with another request is refused.
  request_hash text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Null while the first request runs; then its answer.
  status_code integer,
  content_type text,
  response_body bytea,
  primary key (user_id, key)
);
alter table app_private.idempotency_keys enable row level security;
create index idempotency_keys_expires_at on app_private.idempotency_keys (expires_at);

comment on table app_private.idempotency_keys is
  'The first answer to each Idempotency-Key a person sent, kept until expires_at (src/server/http/idempotency.ts).';

-- Claims `idempotency_key` for a request (hash `hash_of_request`) of `person`. Answers one row:
--   'new'      the caller runs the request and then calls idempotency_finish or _release;
--   'replay'   the key's first answer (answer_status, answer_type, answer_body);
--   'mismatch' the key was used for another request;
--   'running'  the first request with this key has not finished yet.
-- A claim older than `stale_seconds` without an answer (its process died, or it could not store
-- the answer) is taken over: the caller runs the request again.
create function app_private.idempotency_begin(person uuid, idempotency_key text, hash_of_request text, ttl_seconds integer, stale_seconds integer)
returns table (outcome text, answer_status integer, answer_type text, answer_body bytea)
language plpgsql
volatile
set search_path = pg_catalog
as $$
declare
  kept app_private.idempotency_keys;
begin
  delete from app_private.idempotency_keys k
   where k.user_id = person and k.key = idempotency_key and k.expires_at <= now();
  insert into app_private.idempotency_keys as k (user_id, key, request_hash, expires_at)
  values (person, idempotency_key, hash_of_request, now() + make_interval(secs => ttl_seconds))
  on conflict on constraint idempotency_keys_pkey do nothing;
  if found then
    return query select 'new'::text, null::integer, null::text, null::bytea;
    return;
  end if;
  select * into kept from app_private.idempotency_keys k
   where k.user_id = person and k.key = idempotency_key for update;
  if kept.request_hash <> hash_of_request then
    return query select 'mismatch'::text, null::integer, null::text, null::bytea;
  elsif kept.status_code is not null then
    return query select 'replay'::text, kept.status_code, kept.content_type, kept.response_body;
  elsif kept.created_at < now() - make_interval(secs => stale_seconds) then
    update app_private.idempotency_keys k set created_at = now()
     where k.user_id = person and k.key = idempotency_key;
    return query select 'new'::text, null::integer, null::text, null::bytea;
  else
    return query select 'running'::text, null::integer, null::text, null::bytea;
  end if;
end
$$;
revoke all on function app_private.idempotency_begin(uuid, text, text, integer, integer) from public;

-- Keeps the answer of a claimed key.
create function app_private.idempotency_finish(person uuid, idempotency_key text, status integer, answer_type text, answer bytea)
returns void
language sql
volatile
set search_path = pg_catalog
as $$
  update app_private.idempotency_keys k
     set status_code = status, content_type = answer_type, response_body = answer
   where k.user_id = person and k.key = idempotency_key and k.status_code is null
$$;
revoke all on function app_private.idempotency_finish(uuid, text, integer, text, bytea) from public;

-- Gives a claimed key up (the request failed on the server's side: it may be tried again).
create function app_private.idempotency_release(person uuid, idempotency_key text)
returns void
language sql
volatile
set search_path = pg_catalog
as $$
  delete from app_private.idempotency_keys k
   where k.user_id = person and k.key = idempotency_key and k.status_code is null
$$;
revoke all on function app_private.idempotency_release(uuid, text) from public;

-- Forgets expired keys (run now and then by the server); answers how many.
create function app_private.idempotency_sweep()
returns integer
language sql
volatile
set search_path = pg_catalog
as $$
  with gone as (delete from app_private.idempotency_keys where expires_at <= now() returning 1)
  select count(*)::integer from gone
$$;
revoke all on function app_private.idempotency_sweep() from public;
