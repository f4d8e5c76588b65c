-- Why: staff read a case's questionnaire scores per time of measurement (spec §7 DetailedCases:
-- cases with GAD-7 and PHQ-9 scores and measurement times; the case detail shows every
-- instrument's scores with bands and flags and a chart over time), PagedCases shows the latest
-- PHQ-9 item 9 (the suicide item), and the workflow must learn when a time of measurement is
-- complete (spec §4 Exclusion: "the workflow is told so the process moves on").

-- Scores of every questionnaire, one row per record -------------------------------------------

-- Built from the `<code>_records` views of 0009, so it applies their read rule unchanged (a
-- case's members read its records; scores only for the care team and coordinators) and no
-- instrument is listed by hand. A questionnaire added later needs a migration that runs this
-- block again.
do $$
declare
  parts text[] := array[]::text[];
  v record;
begin
  for v in
    select c.relname from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'app_public' and c.relkind = 'v' and c.relname like '%\_records'
     order by c.relname
  loop
    parts := parts || format(
      'select %L::text as instrument, r.id, r.case_id, r.time_of_measurement, r.total::double precision as total, r.band, r.subscales, '
      'r.flags, r.diagnoses, r.complete, r.created_at, r.updated_at from app_public.%I r',
      left(v.relname, -length('_records')), v.relname);
  end loop;
  execute 'create view app_public.case_scores with (security_barrier) as ' || array_to_string(parts, ' union all ');
end;
$$;
comment on view app_public.case_scores is E'@foreignKey (case_id) references app_public.cases (id)|@fieldName case|@foreignFieldName caseScores\n@primaryKey instrument,id\nThe questionnaire records of the cases the signed-in person may see, one row per record: instrument code, time of measurement, and the scores computed by the server (empty for patients).';
comment on column app_public.case_scores.instrument is 'The questionnaire collection, e.g. phq9, gad7, pcl5.';
comment on column app_public.case_scores.time_of_measurement is 'screening, pre, post, fu1 or fu2.';
grant select on app_public.case_scores to sanad_user;

-- The latest PHQ-9 item 9 of a case (PagedCases) ------------------------------------------------

create function app_public.cases_latest_phq9_item9(c app_public.cases) returns integer
  language sql stable
  set search_path = pg_catalog
as $$
  select r.item9 from app_public.phq9_records r
   where r.case_id = c.id and r.item9 is not null
   order by r.updated_at desc
   limit 1
$$;
comment on function app_public.cases_latest_phq9_item9(app_public.cases) is
  'The answer to PHQ-9 item 9 (thoughts of being better off dead or of self-harm, 0-3) in the case''s most recently changed PHQ-9 record.';
grant execute on function app_public.cases_latest_phq9_item9(app_public.cases) to sanad_user;

-- Completed times of measurement ------------------------------------------------------------

-- One row per case and time of measurement whose questionnaires are all complete: the first
-- completion tells the workflow once, later edits of a record do not repeat the message.
create table app_private.measurement_completions (
  case_id uuid not null references app_public.cases (id) on delete cascade,
  time_of_measurement text not null
    constraint measurement_completions_time_known check (time_of_measurement in ('screening', 'pre', 'post', 'fu1', 'fu2')),
  completed_at timestamptz not null default now(),
  primary key (case_id, time_of_measurement)
);
alter table app_private.measurement_completions enable row level security;

-- Called by the questionnaire service after a write, in the writer's transaction. It checks
-- for itself that the caller may write to the case and that every named collection holds a
-- complete record for that time, so a caller cannot report an unfinished measurement.
create function app_hidden.record_measurement_completion(
  case_id uuid, time_of_measurement text, collections text[], variables jsonb
) returns boolean
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  collection text;
  is_complete boolean;
begin
  if not ((select app_hidden.is_coordinator()) or app_hidden.is_member(record_measurement_completion.case_id)) then
    raise exception 'Not involved in this case' using errcode = '42501', hint = 'NOT_INVOLVED';
  end if;
  -- Told once: a completion already recorded needs no check of the records (most writes).
  if exists (select 1 from app_private.measurement_completions c
              where c.case_id = record_measurement_completion.case_id
                and c.time_of_measurement = record_measurement_completion.time_of_measurement) then
    return false;
  end if;
  if cardinality(collections) is null or cardinality(collections) = 0 then
    raise exception 'A measurement needs at least one questionnaire' using errcode = '22023';
  end if;
  foreach collection in array collections loop
    if not exists (select 1 from pg_catalog.pg_views v
                    where v.schemaname = 'app_public' and v.viewname = collection || '_records') then
      raise exception 'Unknown questionnaire %', collection using errcode = '22023';
    end if;
    execute format('select exists (select 1 from app_public.%I r where r.case_id = $1 and r.time_of_measurement = $2 and r.complete)', collection)
      into is_complete using record_measurement_completion.case_id, record_measurement_completion.time_of_measurement;
    if not is_complete then
      return false;
    end if;
  end loop;
  insert into app_private.measurement_completions (case_id, time_of_measurement)
  values (record_measurement_completion.case_id, record_measurement_completion.time_of_measurement)
  on conflict do nothing;
  if not found then
    return false;
  end if;
  perform app_hidden.notify_workflow(
    record_measurement_completion.case_id,
    case when record_measurement_completion.time_of_measurement = 'screening' then 'screeningCompleted'
         else record_measurement_completion.time_of_measurement || 'MeasurementCompleted' end,
    coalesce(variables, '{}'::jsonb)
      || jsonb_build_object('timeOfMeasurement', jsonb_build_object('value', record_measurement_completion.time_of_measurement, 'type', 'String')));
  return true;
end;
$$;
grant execute on function app_hidden.record_measurement_completion(uuid, text, text[], jsonb) to sanad_user;
