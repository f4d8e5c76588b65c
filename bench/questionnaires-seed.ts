/**
 * Seeds a migrated database for the questionnaire benchmark (issue "Questionnaires", item 8):
 * the case workspace's people and cases (workspace-seed.ts, with few messages, which this
 * benchmark does not read) and 20 questionnaire records per case: PHQ-9, GAD-7, PCL-5 and
 * BDI-II at each of the five times of measurement. 200,000 records at scale 1.
 *
 * The scores are the server's own: a few hundred answer profiles per instrument are made from
 * its definition, checked with validateAnswers and scored with score() (src/domain/instruments,
 * what a POST runs), and the records draw their profile at random, in set-based SQL in one
 * owner transaction. Later times of measurement draw milder profiles, as treatment would have
 * it. The audit trigger is off during the load, as in workspace-seed.ts, and so is the safety
 * signal trigger of migration 0050 (PHQ-9, BDI-II): the history's risk signals would each queue a
 * safety process, thousands of workflow starts that the server would then run during the
 * measurement (history is past, its signals long handled). The tables are vacuumed and analyzed
 * afterwards.
 */
import type pg from 'pg';
import {
  INSTRUMENTS,
  score,
  shownItems,
  validateAnswers,
  type AnswerValue,
  type InstrumentCode,
  type InstrumentDefinition,
  type ItemDefinition,
} from '../src/domain/instruments';
import type { DatabaseKind } from '../src/server/db/database';
import { withOwnerAs, type Sql } from '../src/server/db/transaction';
import { MEASUREMENT_TIMES } from '../src/server/questionnaires/columns';
import { ident } from '../src/server/questionnaires/migration';
import { scoreColumns } from '../src/server/questionnaires/collections';
import { mulberry32 } from './random';
import { seedWorkspace, workspaceSize, type WorkspaceSize } from './workspace-seed';

/** Four instruments × five times of measurement: the issue's 20 records per case. */
export const SEEDED_INSTRUMENTS = ['phq9', 'gad7', 'pcl5', 'bdi2'] as const satisfies readonly InstrumentCode[];

/** Answer profiles per instrument: enough variety for plausible distributions of every score. */
const PROFILES = 400;

/** Messages at scale 1: the workspace gives every member at least one; this benchmark reads none. */
const MESSAGES_AT_FULL_SCALE = 20_000;

/** Days after the case's opening at which each time of measurement was answered (about). */
const DAYS_AFTER_OPENING: Record<(typeof MEASUREMENT_TIMES)[number], number> = { screening: 2, pre: 30, post: 120, fu1: 210, fu2: 300 };

/** PGlite loads in this process on one core: a fifth of the size, as the workspace benchmark. */
const DEFAULT_SCALE: Record<DatabaseKind, number> = { postgres: 1, pglite: 0.2 };

export function questionnaireScale(kind: DatabaseKind, env: Record<string, string | undefined>): number {
  const raw = env.BENCH_QUESTIONNAIRE_SCALE;
  if (!raw) return DEFAULT_SCALE[kind];
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new Error(`BENCH_QUESTIONNAIRE_SCALE must be a number in (0, 10], got "${raw}"`);
  return scale;
}

export function questionnaireSize(scale: number): WorkspaceSize {
  return { ...workspaceSize(scale), messages: Math.round(MESSAGES_AT_FULL_SCALE * scale) };
}

export function describeQuestionnaireSize(size: WorkspaceSize): string {
  return `scale ${size.scale}: ${size.cases} cases × ${SEEDED_INSTRUMENTS.length * MEASUREMENT_TIMES.length} records = ${size.cases * SEEDED_INSTRUMENTS.length * MEASUREMENT_TIMES.length} questionnaire records`;
}

/** One case as the benchmark uses it: its patient (who writes) and therapist (who reads). */
export interface BenchCase {
  caseId: string;
  patient: { id: string; username: string };
  /** The therapist and every case they treat (a therapist's reads go over all of them). */
  therapist: { id: string; username: string; caseIds: string[] };
}

export interface SeededQuestionnaires {
  size: WorkspaceSize;
  /** Random cases (by a fixed seed) with their patient and one therapist; as many as asked for. */
  cases: BenchCase[];
  coordinator: { id: string; username: string };
  /** Every case's id, for reads spread over the whole table. */
  allCaseIds: string[];
  records: number;
}

/**
 * An answer near `severity` (0 mild … 1 severe) on the item's scale, with some noise so that
 * items of one person differ. Text and dates are left unanswered (none is required in the
 * seeded instruments; validation says so if that changes).
 */
function answerFor(item: ItemDefinition, severity: number, random: () => number): AnswerValue | undefined {
  const level = Math.min(1, Math.max(0, severity + (random() - 0.5) * 0.5));
  const scale = item.scale;
  switch (scale.kind) {
    case 'integer':
      return scale.min + Math.round(level * (scale.max - scale.min));
    case 'options':
      return scale.options[Math.min(scale.options.length - 1, Math.floor(level * scale.options.length))]!.code;
    case 'multi': {
      const open = scale.options.filter((o) => !o.exclusive);
      return [open[Math.floor(random() * open.length)]!.code];
    }
    case 'yesno':
      return level >= 0.5;
    case 'text':
    case 'date':
      return undefined;
  }
}

/** A complete, valid set of answers for the definition, item by item as a form shows them. */
export function answerProfile(definition: InstrumentDefinition, severity: number, random: () => number): Record<string, AnswerValue> {
  const answers: Record<string, AnswerValue> = {};
  for (const item of definition.items) {
    if (!shownItems(definition, answers).has(item.id)) continue;
    const value = answerFor(item, severity, random);
    if (value !== undefined) answers[item.id] = value;
  }
  const problems = validateAnswers(definition, answers);
  if (problems.length > 0) throw new Error(`Seed answers for ${definition.code} do not validate: ${JSON.stringify(problems)}`);
  return answers;
}

interface ScoredProfile {
  answers: string;
  total: number | null;
  band: string | null;
  subscales: string | null;
  flags: string[];
  diagnoses: string | null;
  complete: boolean;
}

/** JSON of a score record as collections.ts stores it (scoreColumns), or null. */
function jsonOrNull(record: unknown): string | null {
  return record === null ? null : JSON.stringify(record);
}

/** Profiles from mild to severe (index order), scored by the server's scoring. */
function scoredProfiles(definition: InstrumentDefinition, random: () => number): ScoredProfile[] {
  return Array.from({ length: PROFILES }, (_, k) => {
    const answers = answerProfile(definition, k / (PROFILES - 1), random);
    const scores = scoreColumns(score(definition, answers));
    return {
      answers: JSON.stringify(answers),
      total: scores.total,
      band: scores.band,
      subscales: jsonOrNull(scores.subscales),
      flags: scores.flags,
      diagnoses: jsonOrNull(scores.diagnoses),
      complete: scores.complete,
    };
  });
}

export async function seedQuestionnaires(pool: pg.Pool, size: WorkspaceSize, sampleCases: number): Promise<SeededQuestionnaires> {
  await seedWorkspace(pool, size, { careRecords: false });
  const random = mulberry32(8);
  await withOwnerAs(pool, null, async (sql) => {
    await sql.query('select setseed(0.0808)');
    await loadProfiles(sql, random);
    for (const code of SEEDED_INSTRUMENTS) await insertRecords(sql, code, INSTRUMENTS[code]);
  });
  for (const code of SEEDED_INSTRUMENTS) await pool.query(`vacuum (analyze) app_public.${code}`);
  return describeQuestionnaireSeed(pool, size, sampleCases);
}

/** The scored profiles of every seeded instrument, in a temporary table of the transaction. */
async function loadProfiles(sql: Sql, random: () => number): Promise<void> {
  await sql.query(
    `create temporary table qb_profiles (instrument text, k int, answers jsonb, total numeric, band text, subscales jsonb,
       flags text[], diagnoses jsonb, complete boolean, primary key (instrument, k)) on commit drop`,
  );
  for (const code of SEEDED_INSTRUMENTS) {
    const profiles = scoredProfiles(INSTRUMENTS[code], random);
    await sql.query(
      `insert into qb_profiles
       select $1, p.k - 1, p.answers, p.total, p.band, p.subscales, array(select jsonb_array_elements_text(p.flags)), p.diagnoses, p.complete
         from unnest($2::jsonb[], $3::numeric[], $4::text[], $5::jsonb[], $6::jsonb[], $7::jsonb[], $8::boolean[])
              with ordinality as p(answers, total, band, subscales, flags, diagnoses, complete, k)`,
      [
        code,
        profiles.map((p) => p.answers),
        profiles.map((p) => p.total),
        profiles.map((p) => p.band),
        profiles.map((p) => p.subscales),
        profiles.map((p) => JSON.stringify(p.flags)),
        profiles.map((p) => p.diagnoses),
        profiles.map((p) => p.complete),
      ],
    );
  }
}

/**
 * One record per case and time of measurement, written by the case's patient some days after
 * the case opened (never in the future). The profile is drawn at random, biased to milder ones
 * at later times.
 */
async function insertRecords(sql: Sql, code: InstrumentCode, definition: InstrumentDefinition): Promise<void> {
  const items = definition.items.map((item) => ident(item.id));
  // Deferred triggers (the read versions of 0015) must have run before a table is altered.
  await sql.query('set constraints all immediate');
  const triggers = await seedTimeTriggers(sql, code);
  for (const trigger of triggers) await sql.query(`alter table app_public.${code} disable trigger ${trigger}`);
  await sql.query(
    `with drawn as materialized (
       select m.case_id, m.user_id as patient_id, c.created_at as opened, t.time, t.days,
              floor($2::int * random() * (1 - 0.15 * (t.ord - 1)))::int as k
         from app_public.case_members m
         join app_public.cases c on c.id = m.case_id
        cross join unnest($3::text[], $4::int[]) with ordinality as t(time, days, ord)
        where m.acts_as_patient
     )
     insert into app_public.${code} (case_id, submitter_id, time_of_measurement, ${items.join(', ')},
       total, band, subscales, flags, diagnoses, complete, created_at, updated_at)
     select d.case_id, d.patient_id, d.time, ${items.map((i) => `a.${i}`).join(', ')},
            p.total, p.band, p.subscales, p.flags, p.diagnoses, p.complete, at.at, at.at
       from drawn d
       join qb_profiles p on p.instrument = $1 and p.k = d.k
      cross join lateral jsonb_populate_record(null::app_public.${code}, p.answers) as a
      cross join lateral (select least(now(), d.opened + make_interval(days => d.days, secs => random() * 86400)) as at) as at`,
    [code, PROFILES, [...MEASUREMENT_TIMES], MEASUREMENT_TIMES.map((t) => DAYS_AFTER_OPENING[t])],
  );
  for (const trigger of triggers) await sql.query(`alter table app_public.${code} enable trigger ${trigger}`);
}

/** The triggers off while a table is loaded: the audit log, and the safety signals where the table has them. */
async function seedTimeTriggers(sql: Sql, code: InstrumentCode): Promise<string[]> {
  const { rows } = await sql.query<{ tgname: string }>(
    `select tgname from pg_trigger where tgrelid = $1::regclass and tgname in ('_900_audit', '_500_safety_signal') order by tgname`,
    [`app_public.${code}`],
  );
  return rows.map((r) => r.tgname);
}

/** Who the scenarios sign in as, read back from a seeded database. */
export async function describeQuestionnaireSeed(pool: pg.Pool, size: WorkspaceSize, sampleCases: number): Promise<SeededQuestionnaires> {
  type CaseRow = { case_id: string; patient_id: string; patient: string; therapist_id: string; therapist: string; therapist_cases: string[] };
  const { rows: cases } = await pool.query<CaseRow>(
    `select p.case_id, pu.id as patient_id, pu.username as patient, tu.id as therapist_id, tu.username as therapist,
            array(select o.case_id from app_public.case_members o where o.user_id = tu.id and o.acts_as_therapist order by o.case_id) as therapist_cases
       from app_public.case_members p
       join app_public.users pu on pu.id = p.user_id
       join lateral (select t.user_id from app_public.case_members t where t.case_id = p.case_id and t.acts_as_therapist
                      order by t.user_id limit 1) t on true
       join app_public.users tu on tu.id = t.user_id
      where p.acts_as_patient
      order by md5(p.case_id::text)
      limit $1`,
    [sampleCases],
  );
  const { rows: coordinators } = await pool.query<{ id: string; username: string }>(
    'select id, username from app_public.users where is_coordinator_account order by username limit 1',
  );
  const { rows: all } = await pool.query<{ id: string }>('select id from app_public.cases order by id');
  const counts = await Promise.all(SEEDED_INSTRUMENTS.map((code) => pool.query<{ n: number }>(`select count(*)::int as n from app_public.${code}`)));
  return {
    size,
    cases: cases.map((c) => ({
      caseId: c.case_id,
      patient: { id: c.patient_id, username: c.patient },
      therapist: { id: c.therapist_id, username: c.therapist, caseIds: c.therapist_cases },
    })),
    coordinator: coordinators[0]!,
    allCaseIds: all.map((c) => c.id),
    records: counts.reduce((sum, result) => sum + result.rows[0]!.n, 0),
  };
}
