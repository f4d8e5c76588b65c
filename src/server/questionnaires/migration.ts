/**
 * The SQL of db/migrations/0009-questionnaires.sql, generated from the instrument definitions
 * (scripts/generate-questionnaire-sql.ts writes it; a test fails when the committed file
 * differs). Pure: text in, text out, the same text for the same definitions.
 *
 * Per collection: a table `app_public.<code>` (record columns, one column per item with a check
 * for its response scale, the server's score columns), one record per case and time of
 * measurement, row-level security by case membership, column grants that leave the scores to
 * the server, the audit trigger, and the view `app_public.<code>_records` that every read goes
 * through and that shows scores only to the care team and coordinators. See
 * docs/decisions/0011-questionnaire-tables-and-scores.md.
 */
import { INSTRUMENT_CODES, INSTRUMENTS, type InstrumentCode, type InstrumentDefinition, type ItemDefinition } from '../../domain/instruments';
import { FILLED_BY, MEASUREMENT_TIMES, SCORE_COLUMNS, readViewOf, tableOf } from './columns';

export const MIGRATION_FILE = 'db/migrations/0009-questionnaires.sql';

/** Screening exclusion flags of app_public.users the server may raise (spec §4, §3 Patient). */
export const SCREENING_EXCLUSION_COLUMNS = [
  'excluded_for_lack_of_email',
  'excluded_for_lack_of_internet_access',
  'excluded_for_minor_age',
  'excluded_for_upcoming_treatment',
  'excluded_for_bdi_gte45',
  'excluded_for_no_trauma_or_low_bdi',
] as const;
export type ScreeningExclusionColumn = (typeof SCREENING_EXCLUSION_COLUMNS)[number];

/** PostgreSQL's reserved words (pg_get_keywords() categories R and T): a column needs quotes. */
const RESERVED = new Set(
  `all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation column
   concurrently constraint create cross current_catalog current_date current_role current_schema current_time
   current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign freeze from
   full grant group having ilike in initially inner intersect into is isnull join lateral leading left like limit localtime
   localtimestamp natural not notnull null offset on only or order outer overlaps placing primary references returning
   right select session_user similar some symmetric table tablesample then to trailing true union unique user using
   variadic verbose when where window with`.split(/\s+/),
);

/** An identifier as SQL: bare when it can be, quoted otherwise. */
export function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function textArray(values: readonly string[]): string {
  return values.length === 0 ? `'{}'::text[]` : `array[${values.map(literal).join(', ')}]::text[]`;
}

/** A comment with a smart tag line: an E'' string, since COMMENT takes no expressions. */
function commentText(lines: readonly string[]): string {
  return `E'${lines.join('\n').replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;
}

/** Joins items into lines of at most `width` characters, each after `indent`. */
export function wrap(items: readonly string[], indent: string, width = 110): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line === '' ? item : `${line}, ${item}`;
    if (line !== '' && indent.length + next.length > width) {
      lines.push(`${line},`);
      line = item;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

function itemSqlType(item: ItemDefinition): string {
  switch (item.scale.kind) {
    case 'integer':
      return 'integer';
    case 'options':
    case 'text':
      return 'text';
    case 'multi':
      return 'text[]';
    case 'yesno':
      return 'boolean';
    case 'date':
      return 'date';
  }
}

/** The database's copy of the item's scale; validateAnswers gives the friendly errors first. */
function itemCheck(item: ItemDefinition): string | null {
  const column = ident(item.id);
  const scale = item.scale;
  switch (scale.kind) {
    case 'integer':
      return `${column} between ${scale.min} and ${scale.max}`;
    case 'options':
      return `${column} in (${scale.options.map((o) => literal(o.code)).join(', ')})`;
    case 'multi': {
      const exclusive = scale.options.filter((o) => o.exclusive).map((o) => o.code);
      return `app_hidden.is_selection(${column}, ${textArray(scale.options.map((o) => o.code))}, ${textArray(exclusive)})`;
    }
    case 'text':
      return `char_length(${column}) <= ${scale.maxLength}`;
    case 'yesno':
    case 'date':
      return null; // the column type is the whole rule
  }
}

function itemColumnSql(item: ItemDefinition): string {
  const check = itemCheck(item);
  return `  ${ident(item.id)} ${itemSqlType(item)}${check ? ` constraint ${item.id}_on_scale check (${check})` : ''}`;
}

/** The membership rule of the role(s) that fill the instrument in. */
function fillerRule(code: InstrumentCode): string {
  return FILLED_BY[code].map((role) => `case_id in (select app_hidden.my_case_ids_as(${literal(role)}))`).join(' or ');
}

const READ_RULE = `(select app_hidden.is_coordinator()) or case_id in (select app_hidden.my_case_ids())`;
const SCORES_VISIBLE = `(select app_hidden.is_coordinator()) or r.case_id in (select app_hidden.my_care_team_case_ids())`;
const SCORE_NAMES = Object.keys(SCORE_COLUMNS);

function tableSql(code: InstrumentCode, definition: InstrumentDefinition): string {
  const table = tableOf(code);
  const items = definition.items.map((item) => ident(item.id));
  const bands = definition.bands?.map((b) => b.code) ?? [];
  const flags = definition.flags.map((f) => f.code);
  const rule = fillerRule(code);
  const columns = [
    '  id uuid primary key default gen_random_uuid()',
    '  case_id uuid not null references app_public.cases (id) on delete cascade',
    '  submitter_id uuid default app_public.current_user_id() references app_public.users (id) on delete set null',
    `  time_of_measurement text not null\n    constraint time_of_measurement_known check (time_of_measurement in (${MEASUREMENT_TIMES.map(literal).join(', ')}))`,
    ...definition.items.map(itemColumnSql),
    '  total numeric',
    `  band text${bands.length > 0 ? ` constraint band_known check (band in (${bands.map(literal).join(', ')}))` : ''}`,
    `  subscales jsonb constraint subscales_object check (jsonb_typeof(subscales) = 'object')`,
    `  flags text[] constraint flags_known check (flags <@ ${textArray(flags)})`,
    `  diagnoses jsonb constraint diagnoses_object check (jsonb_typeof(diagnoses) = 'object')`,
    '  complete boolean',
    '  created_at timestamptz not null default now()',
    '  updated_at timestamptz not null default now()',
    `  constraint ${code}_one_per_time unique (case_id, time_of_measurement)`,
  ];
  const readable = ['id', 'case_id', 'submitter_id', 'time_of_measurement', ...items, 'created_at', 'updated_at'];
  const writable = ['case_id', 'time_of_measurement', ...items];
  const view = readViewOf(code);
  const answerColumns = ['id', 'case_id', 'submitter_id', 'time_of_measurement', ...items].map((c) => `r.${c}`);
  const scoreColumns = SCORE_NAMES.map((c) => `  case when v.scores_visible then r.${c} end as ${c},`);
  const title = `${definition.labels.en} (${definition.version})`;
  return `-- ${code}: ${title} ${'-'.repeat(Math.max(3, 96 - code.length - title.length))}

create table ${table} (
${columns.join(',\n')}
);
comment on table ${table} is ${commentText([
    '@behavior -*',
    `${definition.labels.en}: a case's answers at one time of measurement, with the scores the server computed. Read and written through /api/${code}.`,
  ])};
-- The unique key (case_id, …) also serves every lookup by case.
${flags.length > 0 ? `create index ${code}_flags_idx on ${table} using gin (flags);\n` : ''}create trigger _100_set_updated_at before update on ${table}
  for each row execute function app_hidden.tg_set_updated_at();
create trigger _900_audit after insert or update or delete on ${table}
  for each row execute function app_hidden.tg_audit('case_id', ${SCORE_NAMES.map(literal).join(', ')});

alter table ${table} enable row level security;
create policy select_member on ${table} for select to sanad_user using (
  ${READ_RULE}
);
create policy insert_filler on ${table} for insert to sanad_user
  with check (${rule});
create policy update_filler on ${table} for update to sanad_user
  using (${rule})
  with check (${rule});
create policy delete_filler on ${table} for delete to sanad_user
  using (${rule});
grant select (
${wrap(readable, '  ')}
) on ${table} to sanad_user;
grant insert (
${wrap(writable, '  ')}
) on ${table} to sanad_user;
grant update (
${wrap(writable, '  ')}
) on ${table} to sanad_user;
grant delete on ${table} to sanad_user;

create view ${view} with (security_barrier) as
select
${wrap(answerColumns, '  ')},
${scoreColumns.join('\n')}
  r.created_at, r.updated_at
  from ${table} r
  cross join lateral (
    select ${SCORES_VISIBLE} as scores_visible
  ) v
 where ${READ_RULE.replace('case_id in', 'r.case_id in')};
comment on view ${view} is ${commentText(['@behavior -*', `${definition.labels.en} records as the signed-in person may see them: scores for the care team and coordinators only.`])};
grant select on ${view} to sanad_user;
`;
}

// The header below is frozen with 0009: its citation of the former docs/DECISIONS.md
// "Questionnaires" is docs/decisions/0011-questionnaire-tables-and-scores.md today.
const HEADER = `-- GENERATED by scripts/generate-questionnaire-sql.ts from the instrument definitions in
-- src/domain/instruments: do not edit; a test fails when this file and the generator differ.
--
-- Why: the questionnaire collections of spec §3 and §7 (/api/phq9 …), stored one table per
-- collection with one column per item, so that the database itself refuses an answer off its
-- scale and every record can be queried item by item (PHQ-9 item 9 is the suicide item).
-- Scores (total, band, subscales, safety and clinical flags, provisional diagnoses, complete)
-- are computed by the server from the items (src/domain/instruments) and written through
-- app_hidden.store_questionnaire_scores: no request role holds any privilege on them. Reads
-- go through app_public.<code>_records, which shows scores to the case's care team and to
-- coordinators only, never to patients (so an excluded patient never learns a score). The
-- screening exclusion flags on app_public.users are raised by
-- app_hidden.raise_screening_exclusions. See docs/DECISIONS.md "Questionnaires".
`;

const HELPERS = `-- Shared helpers ------------------------------------------------------------------------------

-- The cases in which the signed-in person is on the care team (any role but patient): they
-- see the scores of the case's questionnaires.
create function app_hidden.my_care_team_case_ids() returns setof uuid
  language plpgsql stable security definer
  set search_path = pg_catalog
as $$
begin
  return query
  select m.case_id from app_public.case_members m
   where m.user_id = app_public.current_user_id()
     and (m.acts_as_therapist or m.acts_as_supervisor or m.acts_as_interviewer or m.acts_as_supporter
          or m.acts_as_counselor);
end;
$$;
grant execute on function app_hidden.my_care_team_case_ids() to sanad_user;

-- A multi-select answer: at least one code, each allowed and chosen once, an exclusive code
-- ("does not apply") alone. Used by check constraints, so request roles execute it.
create function app_hidden.is_selection(selected text[], allowed text[], exclusive text[]) returns boolean
  language sql immutable
  set search_path = pg_catalog
as $$
  select cardinality(selected) >= 1
     and array_ndims(selected) = 1
     and array_position(selected, null) is null
     and selected <@ allowed
     and cardinality(selected) = (select count(distinct s) from unnest(selected) s)
     and (cardinality(selected) = 1 or not selected && exclusive)
$$;
grant execute on function app_hidden.is_selection(text[], text[], text[]) to sanad_user;

-- Stores the scores the server computed for a record written in this same transaction: the
-- request role cannot write score columns, and this function cannot touch any other record.
create function app_hidden.store_questionnaire_scores(
  collection text, record_id uuid, total numeric, band text, subscales jsonb, flags text[], diagnoses jsonb,
  complete boolean
) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
declare
  stored integer;
begin
  if not collection = any (array[
${wrap(INSTRUMENT_CODES.map(literal), '    ')}
  ]) then
    raise exception 'Not a questionnaire collection: %', collection using errcode = '22023';
  end if;
  execute format(
    'update app_public.%I r set total = $2, band = $3, subscales = $4, flags = $5, diagnoses = $6, complete = $7
      where r.id = $1 and r.xmin = pg_catalog.pg_current_xact_id()::xid', collection)
    using record_id, total, band, subscales, flags, diagnoses, complete;
  get diagnostics stored = row_count;
  if stored <> 1 then
    raise exception 'Scores are stored only with the answers, in the transaction that wrote them' using errcode = '42501';
  end if;
end;
$$;
grant execute on function app_hidden.store_questionnaire_scores(text, uuid, numeric, text, jsonb, text[], jsonb, boolean)
  to sanad_user;

-- Raises the screening exclusion flags (spec §4) of the patient of a case, and "excluded" with
-- them; never lowers one: a coordinator lifts a wrong exclusion by hand, and the audit log
-- shows both. The server decides which flags apply (src/domain/instruments/exclusions.ts)
-- from the case's complete screening records, as the person who wrote them.
create function app_hidden.raise_screening_exclusions(case_id uuid, exclusions text[]) returns void
  language plpgsql volatile security definer
  set search_path = pg_catalog
as $$
begin
  if not exclusions <@ array[
${wrap(SCREENING_EXCLUSION_COLUMNS.map(literal), '    ')}
  ] then
    raise exception 'Not a screening exclusion: %', exclusions using errcode = '22023';
  end if;
  if not app_hidden.is_member(raise_screening_exclusions.case_id) then
    raise exception 'Not involved in this case' using errcode = '42501', hint = 'NOT_INVOLVED';
  end if;
  update app_public.users u
     set excluded = true,
${SCREENING_EXCLUSION_COLUMNS.map((c) => `         ${c} = u.${c} or ${literal(c)} = any (exclusions)`).join(',\n')}
   where u.id in (select m.user_id from app_public.case_members m
                   where m.case_id = raise_screening_exclusions.case_id and m.acts_as_patient)
     and cardinality(exclusions) > 0
     and (not u.excluded or exists (select 1 from unnest(exclusions) e where (to_jsonb(u) ->> e)::boolean is not true));
end;
$$;
grant execute on function app_hidden.raise_screening_exclusions(uuid, text[]) to sanad_user;
`;

/** The whole migration for the current definitions. */
export function questionnaireMigration(): string {
  const tables = INSTRUMENT_CODES.map((code) => tableSql(code, INSTRUMENTS[code]));
  return [HEADER, HELPERS, ...tables].join('\n');
}
