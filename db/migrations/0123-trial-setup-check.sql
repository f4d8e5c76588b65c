-- Why: issue 25. Nothing told coordinators that an installation lacked crisis contacts in a
-- language, or that no licensed questionnaire wording was installed (patients then read neutral
-- labels such as "item 1: interest or pleasure" with no question or time frame). One read gives
-- the coordinators the trial's setup state, and its `blocking` flag drives a warning on their
-- home that stays until the setup is complete: crisis contacts in every supported locale, and
-- licensed wording installed or "neutral labels only" confirmed by a coordinator (test trials).

create table app_public.trial_setup_confirmations (
  key text primary key constraint trial_setup_confirmations_key check (key in ('neutral_labels_only')),
  confirmed_by uuid references app_public.users (id) on delete set null,
  confirmed_at timestamptz not null default now()
);
comment on table app_public.trial_setup_confirmations is
  'Setup decisions a coordinator confirmed, e.g. running a test trial with neutral questionnaire labels only.';
create index trial_setup_confirmations_by_idx on app_public.trial_setup_confirmations (confirmed_by);
alter table app_public.trial_setup_confirmations enable row level security;
create policy select_coordinators on app_public.trial_setup_confirmations for select to sanad_user
  using ((select app_hidden.is_coordinator()));
grant select on app_public.trial_setup_confirmations to sanad_user;

-- The setup state (coordinators; null for anyone else):
--   crisisHelpMissing   locales without a crisis_help template (blocking)
--   crisisHelpDefaults  locales whose crisis_help is still the shipped default (0121): to check
--   wording             per locale, the instruments with licensed wording installed
--   neutralLabelsOnly   the confirmation of a test trial without licensed wording, if given
--   blocking            true while a patient could meet missing contacts or unannounced neutral labels
create function app_public.trial_setup_check() returns jsonb
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
declare
  missing text[];
  defaults text[];
  wording jsonb;
  confirmation jsonb;
begin
  if not app_hidden.is_coordinator() then
    return null;
  end if;
  select coalesce(array_agg(l order by l), '{}') into missing
    from unnest(array['ar', 'de', 'en']) l
   where not exists (select 1 from app_public.content_templates t
                      where t.type = 'MESSAGE' and t.code = 'crisis_help' and t.language_code = l and t.treatment_code is null);
  select coalesce(array_agg(t.language_code order by t.language_code), '{}') into defaults
    from app_public.content_templates t
   where t.type = 'MESSAGE' and t.code = 'crisis_help' and t.editor_id is null
     and not exists (select 1 from app_public.content_template_versions v where v.template_id = t.id and v.version > 1);
  select coalesce(jsonb_object_agg(l, coalesce(instruments, '[]'::jsonb)), '{}'::jsonb) into wording
    from unnest(array['ar', 'de', 'en']) l
    left join lateral (
      select jsonb_agg(distinct substring(t.code from '^instr-([A-Za-z0-9_]+)')) as instruments
        from app_public.content_templates t
       where t.type = 'PAGE' and t.code like 'instr-%' and t.language_code = l
    ) w on true;
  select jsonb_build_object('confirmedAt', c.confirmed_at, 'confirmedBy', coalesce(u.alias, u.username))
    into confirmation
    from app_public.trial_setup_confirmations c left join app_public.users u on u.id = c.confirmed_by
   where c.key = 'neutral_labels_only';
  return jsonb_build_object(
    'crisisHelpMissing', to_jsonb(missing),
    'crisisHelpDefaults', to_jsonb(defaults),
    'wording', wording,
    'neutralLabelsOnly', confirmation,
    'blocking', cardinality(missing) > 0
                or (confirmation is null and not exists (select 1 from app_public.content_templates t
                                                          where t.type = 'PAGE' and t.code like 'instr-%')));
end;
$$;
comment on function app_public.trial_setup_check() is
  'The trial''s setup state for coordinators: crisis contacts per locale, installed questionnaire wording, the neutral-labels confirmation, and whether it blocks.';
grant execute on function app_public.trial_setup_check() to sanad_user;

-- A coordinator confirms (or withdraws) running with neutral questionnaire labels only.
create function app_public.confirm_neutral_labels_only(confirmed boolean) returns jsonb
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not app_hidden.is_coordinator() then
    raise exception 'Only coordinators confirm the trial''s setup' using errcode = 'P0001', hint = 'NOT_COORDINATOR';
  end if;
  if confirmed then
    insert into app_public.trial_setup_confirmations (key, confirmed_by) values ('neutral_labels_only', app_public.current_user_id())
    on conflict (key) do update set confirmed_by = excluded.confirmed_by, confirmed_at = now();
  else
    delete from app_public.trial_setup_confirmations where key = 'neutral_labels_only';
  end if;
  return app_public.trial_setup_check();
end;
$$;
comment on function app_public.confirm_neutral_labels_only(boolean) is
  'A coordinator confirms a test trial with neutral questionnaire labels only (or withdraws the confirmation).';
grant execute on function app_public.confirm_neutral_labels_only(boolean) to sanad_user;
