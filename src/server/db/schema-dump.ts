/**
 * The schema as it stands after every migration, read from the catalog and written as SQL one
 * can read: db/schema.sql (npm run schema:sql; a test fails when it is stale). Migrations are
 * the history; this file is the present, so a function redefined in five migrations is found
 * once, with its current text, its grants, and the policies and triggers around its tables.
 *
 * Deterministic: every list is sorted by name, no OIDs, owners or times are written, so the same
 * migrations give the same bytes. The committed file is dumped from PGlite; a PostgreSQL server
 * of another version may print some definitions differently (whitespace, casts), which is why the
 * test compares bytes on PGlite and object names on a server.
 */
import type pg from 'pg';
import { repoPath } from '../paths';

export const SCHEMA_SQL_FILE = repoPath('db/schema.sql');

export const DUMPED_SCHEMAS = ['app_public', 'app_hidden', 'app_private'] as const;

type Queryable = Pick<pg.Pool, 'query'>;

/** Code-point order, the same on every machine (no locale). */
const byKey = <T>(key: (item: T) => string) => (a: T, b: T) => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** One object of the dump: its kind and qualified name (sorting and the name test) and its SQL. */
export interface DumpedObject {
  kind: string;
  name: string;
  sql: string;
}

async function rows<T extends pg.QueryResultRow>(db: Queryable, text: string): Promise<T[]> {
  return (await db.query<T>(text, [DUMPED_SCHEMAS as unknown as string[]])).rows;
}

/** `grant … to …` lines from an ACL, leaving out the owner's own rights (they follow from owning). */
const ACL_ROWS = `
  select coalesce(r.rolname, 'public') as grantee, a.privilege_type as privilege, a.is_grantable as grantable
    from aclexplode(%ACL%) a
    left join pg_roles r on r.oid = a.grantee
   where a.grantee <> %OWNER%`;

function grantLines(entries: { grantee: string; privilege: string; grantable: boolean }[], on: string): string[] {
  const byGrantee = new Map<string, { privileges: string[]; grantable: boolean }>();
  for (const e of entries) {
    const key = `${e.grantee}${e.grantable ? ' with grant option' : ''}`;
    const found = byGrantee.get(key) ?? { privileges: [], grantable: e.grantable };
    found.privileges.push(e.privilege.toLowerCase());
    byGrantee.set(key, found);
  }
  return [...byGrantee.entries()]
    .sort(byKey(([key]) => key))
    .map(([key, { privileges }]) => {
      const grantee = key.replace(' with grant option', '');
      return `grant ${privileges.sort().join(', ')} on ${on} to ${grantee}${key.endsWith(' with grant option') ? ' with grant option' : ''};`;
    });
}

type Acl = { grantee: string; privilege: string; grantable: boolean }[];

async function schemas(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; acl: Acl; comment: string | null }>(
    db,
    `select n.nspname as name,
            coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privilege', g.privilege, 'grantable', g.grantable))
                        from (${ACL_ROWS.replace('%ACL%', 'n.nspacl').replace('%OWNER%', 'n.nspowner')}) g), '[]') as acl,
            obj_description(n.oid, 'pg_namespace') as comment
       from pg_namespace n where n.nspname = any($1)`,
  );
  return found.map((s) => ({
    kind: 'schema',
    name: s.name,
    sql: [`create schema ${s.name};`, ...(s.comment ? [`comment on schema ${s.name} is ${quoteLiteral(s.comment)};`] : []), ...grantLines(s.acl, `schema ${s.name}`)].join('\n'),
  }));
}

async function types(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; kind: string; definition: string }>(
    db,
    `select format('%I.%I', n.nspname, t.typname) as name, t.typtype as kind,
            case t.typtype
              when 'e' then (select string_agg(quote_literal(e.enumlabel), ', ' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)
              when 'd' then format_type(t.typbasetype, t.typtypmod)
                            || coalesce(' default ' || t.typdefault, '')
                            || case when t.typnotnull then ' not null' else '' end
                            || coalesce((select string_agg(' constraint ' || quote_ident(c.conname) || ' ' || pg_get_constraintdef(c.oid), '' order by c.conname collate "C")
                                           from pg_constraint c where c.contypid = t.oid), '')
              when 'c' then (select string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
                               from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped)
            end as definition
       from pg_type t
       join pg_namespace n on n.oid = t.typnamespace
      where n.nspname = any($1)
        and (t.typtype in ('e', 'd') or (t.typtype = 'c' and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'))
        and not exists (select 1 from pg_depend d where d.objid = t.oid and d.deptype = 'e')`,
  );
  return found.map((t) => ({
    kind: 'type',
    name: t.name,
    sql:
      t.kind === 'e' ? `create type ${t.name} as enum (${t.definition});`
      : t.kind === 'd' ? `create domain ${t.name} as ${t.definition};`
      : `create type ${t.name} as (${t.definition});`,
  }));
}

interface TableRow {
  name: string;
  kind: string;
  rls: boolean;
  forced: boolean;
  partition_key: string | null;
  partition_of: string | null;
  partition_bound: string | null;
  comment: string | null;
  columns: { name: string; type: string; notNull: boolean; default: string | null; generated: string; identity: string; comment: string | null }[];
  constraints: { name: string; definition: string }[];
  acl: Acl;
  column_acl: { column: string; grantee: string; privilege: string; grantable: boolean }[];
}

async function tables(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<TableRow>(
    db,
    `select format('%I.%I', n.nspname, c.relname) as name, c.relkind as kind,
            c.relrowsecurity as rls, c.relforcerowsecurity as forced,
            case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partition_key,
            (select format('%I.%I', pn.nspname, p.relname) from pg_inherits i join pg_class p on p.oid = i.inhparent
               join pg_namespace pn on pn.oid = p.relnamespace where i.inhrelid = c.oid and c.relispartition) as partition_of,
            case when c.relispartition then pg_get_expr(c.relpartbound, c.oid) end as partition_bound,
            obj_description(c.oid, 'pg_class') as comment,
            (select json_agg(json_build_object(
                      'name', quote_ident(a.attname), 'type', format_type(a.atttypid, a.atttypmod), 'notNull', a.attnotnull,
                      'default', pg_get_expr(d.adbin, d.adrelid), 'generated', a.attgenerated, 'identity', a.attidentity,
                      'comment', col_description(c.oid, a.attnum)) order by a.attnum)
               from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
            coalesce((select json_agg(json_build_object('name', quote_ident(k.conname), 'definition', pg_get_constraintdef(k.oid)) order by k.conname collate "C")
                        from pg_constraint k where k.conrelid = c.oid and k.contype <> 'n'), '[]') as constraints,
            coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privilege', g.privilege, 'grantable', g.grantable))
                        from (${ACL_ROWS.replace('%ACL%', 'c.relacl').replace('%OWNER%', 'c.relowner')}) g), '[]') as acl,
            coalesce((select json_agg(json_build_object('column', quote_ident(a.attname), 'grantee', coalesce(r.rolname, 'public'),
                                                        'privilege', x.privilege_type, 'grantable', x.is_grantable))
                        from pg_attribute a cross join lateral aclexplode(a.attacl) x left join pg_roles r on r.oid = x.grantee
                       where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attacl is not null and x.grantee <> c.relowner), '[]') as column_acl
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1) and c.relkind in ('r', 'p')
        and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')`,
  );
  return found.map((t) => {
    const lines = t.columns.map((col) => {
      const parts = [`  ${col.name} ${col.type}`];
      if (col.identity === 'a') parts.push('generated always as identity');
      else if (col.identity === 'd') parts.push('generated by default as identity');
      else if (col.generated === 's') parts.push(`generated always as (${col.default}) stored`);
      else if (col.generated === 'v') parts.push(`generated always as (${col.default}) virtual`);
      else if (col.default !== null) parts.push(`default ${col.default}`);
      if (col.notNull) parts.push('not null');
      return parts.join(' ');
    });
    for (const k of t.constraints) lines.push(`  constraint ${k.name} ${k.definition}`);
    const head = t.partition_of ? `create table ${t.name} partition of ${t.partition_of} ${t.partition_bound ?? ''}`.trimEnd() : `create table ${t.name}`;
    const out = [`${head} (\n${lines.join(',\n')}\n)${t.partition_key ? ` partition by ${t.partition_key}` : ''};`];
    if (t.rls) out.push(`alter table ${t.name} enable row level security;`);
    if (t.forced) out.push(`alter table ${t.name} force row level security;`);
    if (t.comment) out.push(`comment on table ${t.name} is ${quoteLiteral(t.comment)};`);
    for (const col of t.columns) if (col.comment) out.push(`comment on column ${t.name}.${col.name} is ${quoteLiteral(col.comment)};`);
    out.push(...grantLines(t.acl, `table ${t.name}`));
    // Column grants: one line per grantee and privilege, the columns in name order.
    const columnGrants = new Map<string, string[]>();
    for (const g of t.column_acl) {
      const key = `${g.privilege.toLowerCase()}\u0000${g.grantee}\u0000${g.grantable ? ' with grant option' : ''}`;
      columnGrants.set(key, [...(columnGrants.get(key) ?? []), g.column]);
    }
    for (const [key, columns] of [...columnGrants.entries()].sort(byKey(([k]) => k))) {
      const [privilege, grantee, option] = key.split('\u0000');
      out.push(`grant ${privilege} (${columns.sort().join(', ')}) on table ${t.name} to ${grantee}${option};`);
    }
    return { kind: 'table', name: t.name, sql: out.join('\n') };
  });
}

async function views(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; kind: string; options: string[] | null; definition: string; comment: string | null; acl: Acl }>(
    db,
    `select format('%I.%I', n.nspname, c.relname) as name, c.relkind as kind, c.reloptions as options,
            pg_get_viewdef(c.oid, true) as definition, obj_description(c.oid, 'pg_class') as comment,
            coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privilege', g.privilege, 'grantable', g.grantable))
                        from (${ACL_ROWS.replace('%ACL%', 'c.relacl').replace('%OWNER%', 'c.relowner')}) g), '[]') as acl
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1) and c.relkind in ('v', 'm')`,
  );
  return found.map((v) => {
    const options = v.options && v.options.length > 0 ? ` with (${[...v.options].sort().join(', ')})` : '';
    const create = v.kind === 'm' ? 'create materialized view' : 'create view';
    const out = [`${create} ${v.name}${options} as\n${v.definition.trimEnd().replace(/;$/, '')};`];
    if (v.comment) out.push(`comment on ${v.kind === 'm' ? 'materialized view' : 'view'} ${v.name} is ${quoteLiteral(v.comment)};`);
    out.push(...grantLines(v.acl, `table ${v.name}`));
    return { kind: 'view', name: v.name, sql: out.join('\n') };
  });
}

async function sequences(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; acl: Acl }>(
    db,
    `select format('%I.%I', n.nspname, c.relname) as name,
            coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privilege', g.privilege, 'grantable', g.grantable))
                        from (${ACL_ROWS.replace('%ACL%', 'c.relacl').replace('%OWNER%', 'c.relowner')}) g), '[]') as acl
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1) and c.relkind = 'S'`,
  );
  return found.map((s) => ({ kind: 'sequence', name: s.name, sql: [`create sequence ${s.name};`, ...grantLines(s.acl, `sequence ${s.name}`)].join('\n') }));
}

async function indexes(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; definition: string }>(
    db,
    `select format('%I.%I', n.nspname, i.relname) as name, pg_get_indexdef(i.oid) as definition
       from pg_index x
       join pg_class i on i.oid = x.indexrelid
       join pg_class t on t.oid = x.indrelid
       join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = any($1)
        and not exists (select 1 from pg_constraint k where k.conindid = i.oid and k.contype in ('p', 'u', 'x'))`,
  );
  return found.map((i) => ({ kind: 'index', name: i.name, sql: `${i.definition};` }));
}

async function functions(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; signature: string; kind: string; definition: string; comment: string | null; acl: Acl }>(
    db,
    `select format('%I.%I', n.nspname, p.proname) as name,
            format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)) as signature,
            p.prokind as kind, pg_get_functiondef(p.oid) as definition, obj_description(p.oid, 'pg_proc') as comment,
            coalesce((select json_agg(json_build_object('grantee', g.grantee, 'privilege', g.privilege, 'grantable', g.grantable))
                        from (${ACL_ROWS.replace('%ACL%', 'coalesce(p.proacl, acldefault(\'f\', p.proowner))').replace('%OWNER%', 'p.proowner')}) g), '[]') as acl
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = any($1) and p.prokind in ('f', 'p', 'w')
        and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
  );
  return found.map((f) => {
    const out = [`${f.definition.trimEnd()};`];
    const what = f.kind === 'p' ? 'procedure' : 'function';
    if (f.comment) out.push(`comment on ${what} ${f.signature} is ${quoteLiteral(f.comment)};`);
    out.push(...grantLines(f.acl, `${what} ${f.signature}`));
    return { kind: 'function', name: f.signature, sql: out.join('\n') };
  });
}

async function policies(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; tbl: string; policy: string; permissive: string; roles: string[]; cmd: string; qual: string | null; with_check: string | null }>(
    db,
    `select format('%I.%I', p.schemaname, p.tablename) || ' ' || quote_ident(p.policyname) as name,
            format('%I.%I', p.schemaname, p.tablename) as tbl, quote_ident(p.policyname) as policy,
            lower(p.permissive) as permissive, p.roles::text[] as roles, lower(p.cmd) as cmd, p.qual, p.with_check
       from pg_policies p where p.schemaname = any($1)`,
  );
  return found.map((p) => {
    const parts = [`create policy ${p.policy} on ${p.tbl} as ${p.permissive} for ${p.cmd} to ${[...p.roles].sort().join(', ')}`];
    if (p.qual !== null) parts.push(`  using (${p.qual})`);
    if (p.with_check !== null) parts.push(`  with check (${p.with_check})`);
    return { kind: 'policy', name: p.name, sql: `${parts.join('\n')};` };
  });
}

async function triggers(db: Queryable): Promise<DumpedObject[]> {
  const found = await rows<{ name: string; definition: string; enabled: string; tbl: string; trigger: string }>(
    db,
    `select format('%I.%I', n.nspname, c.relname) || ' ' || quote_ident(t.tgname) as name,
            format('%I.%I', n.nspname, c.relname) as tbl, quote_ident(t.tgname) as trigger,
            pg_get_triggerdef(t.oid, true) as definition, t.tgenabled as enabled
       from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any($1) and not t.tgisinternal`,
  );
  return found.map((t) => {
    const out = [`${t.definition};`];
    if (t.enabled === 'D') out.push(`alter table ${t.tbl} disable trigger ${t.trigger};`);
    return { kind: 'trigger', name: t.name, sql: out.join('\n') };
  });
}

/** Every object of the dumped schemas, by kind in dependency-friendly order, then by name. */
export async function dumpObjects(db: Queryable): Promise<DumpedObject[]> {
  const groups = [schemas, types, sequences, tables, indexes, views, functions, policies, triggers];
  const all: DumpedObject[] = [];
  for (const read of groups) all.push(...(await read(db)).sort(byKey((o) => o.name)));
  return all;
}

const KIND_TITLES: Record<string, string> = {
  schema: 'Schemas',
  type: 'Types',
  sequence: 'Sequences',
  table: 'Tables (columns, constraints, row-level security, grants)',
  index: 'Indexes (those of primary keys, unique and exclusion constraints are in the tables)',
  view: 'Views',
  function: 'Functions (current definitions)',
  policy: 'Policies',
  trigger: 'Triggers',
};

/** The objects a dump names, `<kind>: <name>` in file order (its `-- kind: name` lines). */
export function dumpedNames(text: string): string[] {
  return [...text.matchAll(/^-- ([a-z]+): (.+)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
}

/** The whole file: a header, then each kind under a heading, each object under a `-- kind: name` line. */
export async function dumpSchema(db: Queryable): Promise<string> {
  const objects = await dumpObjects(db);
  const out = [
    '-- GENERATED by `npm run schema:sql` from a freshly migrated PGlite database: do not edit.',
    `-- The schemas ${DUMPED_SCHEMAS.join(', ')} as they stand after every migration in db/migrations,`,
    '-- read from the catalog (src/server/db/schema-dump.ts). Migrations are the history; this is the',
    '-- present. A test fails when this file differs from a fresh dump: run `npm run schema:sql`.',
  ];
  let kind = '';
  for (const o of objects) {
    if (o.kind !== kind) {
      kind = o.kind;
      out.push('', `-- ${'='.repeat(94)}`, `-- ${KIND_TITLES[kind] ?? kind}`, `-- ${'='.repeat(94)}`);
    }
    out.push('', `-- ${o.kind}: ${o.name}`, o.sql);
  }
  return `${out.join('\n')}\n`;
}
