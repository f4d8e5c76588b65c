-- Why: a monitor must be able to check that no row of the case audit log, the access log or the
-- account log was changed, deleted or slipped in afterwards, without trusting whoever runs the
-- server (issue 30). Each row carries the hash of its content and of the previous row of its
-- chain, computed by the database on insert; `npm run sanad -- verify-audit` recomputes every
-- chain from the raw columns (src/server/integrity/chains.ts) and names the first broken link.
--
-- Chains: the audit log has one chain per case (rows without a case: one per table), so that
-- writers of different cases never wait for each other; the access and account logs have one
-- chain each. Appends to a chain are serialized by a row lock on its head
-- (app_private.log_chain_heads), held to the end of the writing transaction, so the chain's
-- order is the order of commits and two writers never share a predecessor.
--
-- Hash: sha256, hex, over the previous row's hash followed by the row's fields, each written
-- as N (null) or S<octets>:<text>, in the order of app_hidden.chain_content_*. Times enter as
-- whole microseconds since 1970 (UTC), jsonb as PostgreSQL's canonical text.

create table app_private.log_chain_heads (
  log text not null,
  chain text not null,
  seq bigint not null,
  hash text not null,
  primary key (log, chain)
);
alter table app_private.log_chain_heads enable row level security;
comment on table app_private.log_chain_heads is 'The last link of every hash chain; its row lock serializes appends.';

alter table app_public.audit_log add column chain text, add column chain_seq bigint, add column prev_hash text, add column row_hash text;
alter table app_public.access_log add column chain text, add column chain_seq bigint, add column prev_hash text, add column row_hash text;
alter table app_public.account_log add column chain text, add column chain_seq bigint, add column prev_hash text, add column row_hash text;
create index audit_log_chain_idx on app_public.audit_log (chain, chain_seq);

-- One field of the hashed text.
create function app_hidden.chain_field(value text) returns text
  language sql immutable
  set search_path = pg_catalog
as $$
  select case when value is null then 'N' else 'S' || octet_length(value) || ':' || value end
$$;

create function app_hidden.chain_micros(at timestamptz) returns text
  language sql immutable
  set search_path = pg_catalog
as $$
  select (extract(epoch from at) * 1000000)::bigint::text
$$;

create function app_hidden.chain_hash(prev_hash text, content text) returns text
  language sql immutable
  set search_path = pg_catalog
as $$
  select encode(sha256(convert_to(prev_hash || content, 'UTF8')), 'hex')
$$;

create function app_hidden.chain_content_audit(r app_public.audit_log) returns text
  language sql stable
  set search_path = pg_catalog
as $$
  select app_hidden.chain_field(r.chain) || app_hidden.chain_field(r.chain_seq::text) || app_hidden.chain_field(r.id::text)
      || app_hidden.chain_field(app_hidden.chain_micros(r.at)) || app_hidden.chain_field(r.actor_id::text)
      || app_hidden.chain_field(r.actor_role) || app_hidden.chain_field(r.table_name) || app_hidden.chain_field(r.operation)
      || app_hidden.chain_field(r.record_id::text) || app_hidden.chain_field(r.case_id::text)
      || app_hidden.chain_field(r.old_data::text) || app_hidden.chain_field(r.new_data::text)
$$;

create function app_hidden.chain_content_access(r app_public.access_log) returns text
  language sql stable
  set search_path = pg_catalog
as $$
  select app_hidden.chain_field(r.chain) || app_hidden.chain_field(r.chain_seq::text) || app_hidden.chain_field(r.id::text)
      || app_hidden.chain_field(app_hidden.chain_micros(r.at)) || app_hidden.chain_field(r.reader_id::text)
      || app_hidden.chain_field(r.record_kind) || app_hidden.chain_field(r.api) || app_hidden.chain_field(r.case_ids::text)
$$;

create function app_hidden.chain_content_account(r app_public.account_log) returns text
  language sql stable
  set search_path = pg_catalog
as $$
  select app_hidden.chain_field(r.chain) || app_hidden.chain_field(r.chain_seq::text) || app_hidden.chain_field(r.id::text)
      || app_hidden.chain_field(app_hidden.chain_micros(r.at)) || app_hidden.chain_field(r.user_id::text)
      || app_hidden.chain_field(r.actor_id::text) || app_hidden.chain_field(r.event)
      || app_hidden.chain_field(r.detail::text) || app_hidden.chain_field(r.address)
$$;

-- The next link of a chain: locks its head until the transaction ends.
create function app_hidden.chain_next(log text, chain text, out seq bigint, out prev_hash text)
  language plpgsql
  set search_path = pg_catalog
as $$
begin
  insert into app_private.log_chain_heads (log, chain, seq, hash)
  values (chain_next.log, chain_next.chain, 0, repeat('0', 64))
  on conflict do nothing;
  select h.seq + 1, h.hash into seq, prev_hash
    from app_private.log_chain_heads h
   where h.log = chain_next.log and h.chain = chain_next.chain
     for update;
end;
$$;

-- One trigger function per log: each knows its row type (a CASE over row casts would be
-- planned for every branch).
create function app_hidden.tg_chain_link_audit() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  link record;
begin
  -- Whatever a caller put into the chain columns is replaced.
  new.chain := coalesce(new.case_id::text, 'table:' || new.table_name);
  link := app_hidden.chain_next('audit_log', new.chain);
  new.chain_seq := link.seq;
  new.prev_hash := link.prev_hash;
  new.row_hash := app_hidden.chain_hash(new.prev_hash, app_hidden.chain_content_audit(new));
  update app_private.log_chain_heads set seq = new.chain_seq, hash = new.row_hash where log = 'audit_log' and chain = new.chain;
  return new;
end;
$$;

create function app_hidden.tg_chain_link_access() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  link record;
begin
  new.chain := 'all';
  link := app_hidden.chain_next('access_log', new.chain);
  new.chain_seq := link.seq;
  new.prev_hash := link.prev_hash;
  new.row_hash := app_hidden.chain_hash(new.prev_hash, app_hidden.chain_content_access(new));
  update app_private.log_chain_heads set seq = new.chain_seq, hash = new.row_hash where log = 'access_log' and chain = new.chain;
  return new;
end;
$$;

create function app_hidden.tg_chain_link_account() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  link record;
begin
  new.chain := 'all';
  link := app_hidden.chain_next('account_log', new.chain);
  new.chain_seq := link.seq;
  new.prev_hash := link.prev_hash;
  new.row_hash := app_hidden.chain_hash(new.prev_hash, app_hidden.chain_content_account(new));
  update app_private.log_chain_heads set seq = new.chain_seq, hash = new.row_hash where log = 'account_log' and chain = new.chain;
  return new;
end;
$$;

-- Last of the before-insert triggers (names sort), so it hashes the row as it is stored.
create trigger _990_chain before insert on app_public.audit_log
  for each row execute function app_hidden.tg_chain_link_audit();
create trigger _990_chain before insert on app_public.access_log
  for each row execute function app_hidden.tg_chain_link_access();
create trigger _990_chain before insert on app_public.account_log
  for each row execute function app_hidden.tg_chain_link_account();

-- ---------------------------------------------------------------------------------------------
-- Seal the history written before this migration, in the order it was written. The
-- append-only rule yields for this one pass, inside this transaction.

alter table app_public.audit_log disable trigger _000_append_only;
do $$
declare
  r app_public.audit_log;
  link record;
begin
  for r in select * from app_public.audit_log where row_hash is null order by id loop
    r.chain := coalesce(r.case_id::text, 'table:' || r.table_name);
    link := app_hidden.chain_next('audit_log', r.chain);
    r.chain_seq := link.seq;
    r.prev_hash := link.prev_hash;
    r.row_hash := app_hidden.chain_hash(r.prev_hash, app_hidden.chain_content_audit(r));
    update app_public.audit_log set chain = r.chain, chain_seq = r.chain_seq, prev_hash = r.prev_hash, row_hash = r.row_hash where id = r.id;
    update app_private.log_chain_heads set seq = r.chain_seq, hash = r.row_hash where log = 'audit_log' and chain = r.chain;
  end loop;
end;
$$;
alter table app_public.audit_log enable trigger _000_append_only;
