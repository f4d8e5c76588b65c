-- Why: /downloads offers documents (PDF and images) that coordinators upload per language
-- (issue 14 item 5). The files live in the database, not on disk, so they follow backups and
-- work the same with embedded PGlite and PostgreSQL. Everyone signed in may list and download;
-- only coordinators add or remove. The server checks the type by the file's first bytes, and the
-- table checks it again, so no other path can store a file whose bytes disagree with its type.

-- Documents -------------------------------------------------------------------------------------

create table app_public.download_documents (
  id uuid primary key default gen_random_uuid(),
  locale text not null,
  title text not null,
  file_name text not null,
  content_type text not null,
  content bytea not null,
  size_bytes integer generated always as (octet_length(content)) stored,
  uploaded_by uuid default app_public.current_user_id() references app_public.users (id) on delete set null,
  uploaded_at timestamptz not null default now(),
  constraint download_locale_known check (locale in ('ar', 'de', 'en')),
  constraint download_title_length check (char_length(btrim(title)) between 1 and 200),
  constraint download_file_name_safe check (
    char_length(file_name) between 1 and 200 and file_name !~ '[/\\[:cntrl:]]' and file_name not in ('.', '..')
  ),
  constraint download_content_not_empty check (octet_length(content) > 0),
  -- The type must match the file's own signature (magic bytes), whatever the client claimed.
  constraint download_type_matches_content check (
    (content_type = 'application/pdf' and substring(content from 1 for 5) = '\x255044462d'::bytea)
    or (content_type = 'image/png' and substring(content from 1 for 8) = '\x89504e470d0a1a0a'::bytea)
    or (content_type = 'image/jpeg' and substring(content from 1 for 3) = '\xffd8ff'::bytea)
    or (content_type = 'image/webp' and substring(content from 1 for 4) = '\x52494646'::bytea
        and substring(content from 9 for 4) = '\x57454250'::bytea)
  )
);
comment on table app_public.download_documents is E'@behavior -*\nDocuments offered on /downloads, one language each. Read and written through /api/downloads (docs/API.md).';

create index download_documents_locale_idx on app_public.download_documents (locale, uploaded_at desc);
create index download_documents_uploaded_by_idx on app_public.download_documents (uploaded_by);

alter table app_public.download_documents enable row level security;
create policy select_signed_in on app_public.download_documents for select to sanad_user
  using (true);
create policy insert_coordinator on app_public.download_documents for insert to sanad_user
  with check ((select app_hidden.is_coordinator()) and uploaded_by = (select app_public.current_user_id()));
create policy delete_coordinator on app_public.download_documents for delete to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.download_documents to sanad_user;
grant insert (locale, title, file_name, content_type, content) on app_public.download_documents to sanad_user;
grant delete on app_public.download_documents to sanad_user;

-- Functions the routes call (as the caller: the policies above decide) -------------------------

create function app_public.upload_download_document(locale text, title text, file_name text, content_type text, content bytea)
  returns uuid
  language plpgsql volatile
  set search_path = pg_catalog
as $$
declare
  new_id uuid;
begin
  if not (select app_hidden.is_coordinator()) then
    raise exception 'Only coordinators may upload documents' using errcode = '42501', hint = 'forbidden';
  end if;
  insert into app_public.download_documents (locale, title, file_name, content_type, content)
  values (upload_download_document.locale, btrim(upload_download_document.title), upload_download_document.file_name,
          upload_download_document.content_type, upload_download_document.content)
  returning id into new_id;
  return new_id;
end;
$$;
comment on function app_public.upload_download_document(text, text, text, text, bytea) is E'@behavior -*\nStores a document for /downloads (coordinators); called by POST /api/downloads.';
grant execute on function app_public.upload_download_document(text, text, text, text, bytea) to sanad_user;

create function app_public.delete_download_document(document_id uuid) returns void
  language plpgsql volatile
  set search_path = pg_catalog
as $$
begin
  if not (select app_hidden.is_coordinator()) then
    raise exception 'Only coordinators may delete documents' using errcode = '42501', hint = 'forbidden';
  end if;
  delete from app_public.download_documents d where d.id = delete_download_document.document_id;
  if not found then
    raise exception 'There is no such document' using errcode = 'P0002', hint = 'document_not_found';
  end if;
end;
$$;
comment on function app_public.delete_download_document(uuid) is E'@behavior -*\nRemoves a document from /downloads (coordinators); called by DELETE /api/downloads/:id.';
grant execute on function app_public.delete_download_document(uuid) to sanad_user;
