-- Why: questionnaire wording (`PAGE` content templates with `instr-…` codes, read by the
-- questionnaire forms) is judged by one checker against the instrument's definition
-- (src/domain/wording-file.ts), but the template editor's ordinary page save wrote single
-- `instr-` texts around it (an item without its options, an empty text, a code of no item). A
-- request role may now write, change or delete such a text only inside a transaction in which
-- the server's checked path (installWording: PUT /api/wording, PUT /api/wording/text) has set
-- `sanad.wording_checked`; the GraphQL mutations and restoreContentTemplateVersion are refused
-- with a message that says where to go. The owner (the operations CLI's import-wording, which
-- runs the same checker, and the operations console) is not bound by this rule.
-- See docs/DECISIONS.md "2026-11 Therapy content, completion".

create function app_hidden.tg_content_templates_wording_checked() returns trigger
  language plpgsql
  set search_path = pg_catalog
as $$
declare
  row_type text := case when tg_op = 'DELETE' then old.type else new.type end;
  row_code text := case when tg_op = 'DELETE' then old.code else new.code end;
begin
  if (row_type = 'PAGE' and row_code like 'instr-%'
      or tg_op = 'UPDATE' and old.type = 'PAGE' and old.code like 'instr-%')
     and current_user = 'sanad_user'
     and coalesce(current_setting('sanad.wording_checked', true), '') <> 'on' then
    raise exception 'Questionnaire wording (%) is saved through the questionnaire wording form or the template editor''s wording check, not as an ordinary page', row_code
      using errcode = 'P0001', hint = 'WORDING_NEEDS_CHECK';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end;
$$;
comment on function app_hidden.tg_content_templates_wording_checked() is
  'Refuses request-role writes of questionnaire wording (instr- PAGE texts) that did not pass the server''s wording checker.';

create trigger _250_wording_checked before insert or update or delete on app_public.content_templates
  for each row execute function app_hidden.tg_content_templates_wording_checked();
