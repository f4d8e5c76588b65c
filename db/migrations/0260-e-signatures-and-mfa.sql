-- Why: 21 CFR Part 11 and ICH E6(R3) ask that a decision signed electronically is bound to its
-- record with the signer's printed name, the time (UTC) and the meaning of the signature, and
-- that the signer re-authenticates at the act; OWASP ASVS level 2 asks for a second factor for
-- privileged staff (issue 30, items 3 and 4). docs/decisions/e-signatures-and-mfa.md.
-- (Numbered 0260: the first version of this work, 0235, was held back before it landed.)
--
--   app_public.signatures        the signature manifests: append-only for every role, read by
--                                coordinators and the staff of the case, hash-chained (own chain,
--                                checked by `npm run sanad -- verify-audit`)
--   app_private.signing_tokens   short-lived, single-use proofs of re-authentication, bound to
--                                the person, the act and the record (only their hash is kept)
--   app_private.staff_mfa        a person's TOTP secret (RFC 6238) once enrolled
--   app_private.mfa_recovery_codes  hashed one-time recovery codes

-- ---------------------------------------------------------------------------------------------
-- Signature manifests

create table app_public.signatures (
  id uuid primary key default gen_random_uuid(),
  at timestamptz not null default clock_timestamp(),
  signer_id uuid not null references app_public.users (id),
  -- the signer's name as shown when they signed (alias, else username): kept, not looked up
  printed_name text not null constraint signatures_printed_name_length check (length(printed_name) between 1 and 200),
  -- the act signed (src/domain/signatures.ts SIGNED_ACTS) and its meaning
  act text not null constraint signatures_act_known check (act in (
    'report_sign', 'report_amend', 'rule_override', 'randomize', 'exclude', 'safety_close', 'withdraw', 'legal_hold')),
  meaning text not null constraint signatures_meaning_known check (meaning in (
    'eligibility_decision', 'report_correction', 'rule_override', 'allocation', 'exclusion_decision', 'safety_review',
    'withdrawal', 'legal_hold')),
  case_id uuid not null references app_public.cases (id),
  -- the signed record: its kind and id
  record_kind text not null constraint signatures_record_kind_known check (record_kind in ('interview_report', 'case', 'workflow_task')),
  record_id uuid not null,
  -- sha-256 (hex) of the signed content, canonical JSON (src/domain/signatures.ts)
  content_hash text not null constraint signatures_content_hash_format check (content_hash ~ '^[0-9a-f]{64}$'),
  chain text, chain_seq bigint, prev_hash text, row_hash text
);
comment on table app_public.signatures is 'Append-only signature manifests: who signed which record, when (UTC), with which meaning, and the hash of what was signed.';
create index signatures_case_idx on app_public.signatures (case_id, at);
create index signatures_record_idx on app_public.signatures (record_id);

-- The signed content itself, so a monitor can recompute the hash; owner only (it may hold what
-- not every reader of the manifest may see, e.g. the drawn arm, with a nonce against guessing).
create table app_private.signed_contents (
  signature_id uuid primary key references app_public.signatures (id),
  content text not null
);
alter table app_private.signed_contents enable row level security;

create trigger _000_append_only before update or delete on app_public.signatures
  for each row execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_public.signatures
  for each statement execute function app_hidden.tg_log_append_only();
create trigger _000_append_only before update or delete on app_private.signed_contents
  for each row execute function app_hidden.tg_log_append_only();
create trigger _000_no_truncate before truncate on app_private.signed_contents
  for each statement execute function app_hidden.tg_log_append_only();

-- The hash chain (as 0181): one chain for all signatures.
create function app_hidden.chain_content_signature(r app_public.signatures) returns text
  language sql stable
  set search_path = pg_catalog
as $$
  select app_hidden.chain_field(r.chain) || app_hidden.chain_field(r.chain_seq::text) || app_hidden.chain_field(r.id::text)
      || app_hidden.chain_field(app_hidden.chain_micros(r.at)) || app_hidden.chain_field(r.signer_id::text)
      || app_hidden.chain_field(r.printed_name) || app_hidden.chain_field(r.act) || app_hidden.chain_field(r.meaning)
      || app_hidden.chain_field(r.case_id::text) || app_hidden.chain_field(r.record_kind)
      || app_hidden.chain_field(r.record_id::text) || app_hidden.chain_field(r.content_hash)
$$;

create function app_hidden.tg_chain_link_signature() returns trigger
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  link record;
begin
  new.chain := 'all';
  link := app_hidden.chain_next('signatures', new.chain);
  new.chain_seq := link.seq;
  new.prev_hash := link.prev_hash;
  new.row_hash := app_hidden.chain_hash(new.prev_hash, app_hidden.chain_content_signature(new));
  update app_private.log_chain_heads set seq = new.chain_seq, hash = new.row_hash where log = 'signatures' and chain = new.chain;
  return new;
end;
$$;

create trigger _990_chain before insert on app_public.signatures
  for each row execute function app_hidden.tg_chain_link_signature();

-- Coordinators and the staff of the case read the manifests; a patient reads only the signature
-- on their own withdrawal (the one signed act they are told about). Nobody but the owner writes.
alter table app_public.signatures enable row level security;
create policy select_staff on app_public.signatures for select to sanad_user
  using ((select app_hidden.is_coordinator())
         or (case_id in (select app_hidden.my_case_ids()) and case_id not in (select app_hidden.my_case_ids_as('patient'))));
create policy select_own_withdrawal on app_public.signatures for select to sanad_user
  using (act = 'withdraw' and case_id in (select app_hidden.my_case_ids_as('patient')));
grant select on app_public.signatures to sanad_user;

-- ---------------------------------------------------------------------------------------------
-- Re-authentication for signing

create table app_private.signing_tokens (
  token_hash text primary key,
  user_id uuid not null references app_public.users (id) on delete cascade,
  act text not null,
  record_id uuid not null,
  -- which factors the person proved: password, totp, recovery
  factors text[] not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
alter table app_private.signing_tokens enable row level security;
create index signing_tokens_user_idx on app_private.signing_tokens (user_id, expires_at);

-- ---------------------------------------------------------------------------------------------
-- Staff MFA (TOTP)

create table app_private.staff_mfa (
  user_id uuid primary key references app_public.users (id) on delete cascade,
  -- base32 secret; pending until the first code confirms it
  secret text not null,
  created_at timestamptz not null default now(),
  confirmed_at timestamptz,
  -- the last time step accepted, so a code is used once (RFC 6238 §5.2)
  last_step bigint not null default 0
);
alter table app_private.staff_mfa enable row level security;

create table app_private.mfa_recovery_codes (
  user_id uuid not null references app_public.users (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);
alter table app_private.mfa_recovery_codes enable row level security;
