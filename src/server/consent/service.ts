/**
 * Versioned e-consent (issue 31 item 1): each function is one act, run in the caller's
 * transaction as the request role; the SQL functions of 0245 decide who may and refuse bad
 * input (unknown version, draft, outdated, missing language) before anything is written.
 * See docs/decisions/versioned-consent.md.
 */
import type { Sql } from '../db/transaction';
import { notFound } from '../http/errors';

type Row = Record<string, unknown>;

const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value));

export interface ConsentDocument {
  versionId: string;
  version: number;
  language: string;
  title: string;
  body: string;
  publishedAt: string;
}

/** The current published version in a language (falling back to any language it has). */
export async function currentConsentDocument(sql: Sql, language: string): Promise<ConsentDocument | null> {
  const { rows } = await sql.query<Row>(
    `select v.id, v.version, v.published_at, t.language_code, t.title, t.body
       from app_public.consent_versions v join app_public.consent_texts t on t.version_id = v.id
      where v.id = (app_hidden.current_consent_version()).id
      order by t.language_code = $1 desc, t.language_code limit 1`,
    [language],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    versionId: r.id as string,
    version: r.version as number,
    language: r.language_code as string,
    title: r.title as string,
    body: r.body as string,
    publishedAt: iso(r.published_at)!,
  };
}

export interface ConsentRecord {
  id: string;
  caseId: string;
  versionId: string;
  version: number;
  language: string;
  title: string;
  body: string;
  agreedAt: string;
  identityMethod: string;
  identityConfirmedAt: string | null;
}

function toRecord(r: Row): ConsentRecord {
  return {
    id: r.id as string,
    caseId: r.case_id as string,
    versionId: r.version_id as string,
    version: r.version as number,
    language: r.language_code as string,
    title: r.title as string,
    body: r.body as string,
    agreedAt: iso(r.agreed_at)!,
    identityMethod: r.identity_method as string,
    identityConfirmedAt: iso(r.identity_confirmed_at),
  };
}

/** The consents of the given cases that row-level security lets the caller read, newest first. */
export async function consentRecordsOfCases(sql: Sql, caseIds: string[]): Promise<ConsentRecord[]> {
  const { rows } = await sql.query<Row>(`select * from app_public.case_consents where case_id = any($1::uuid[]) order by agreed_at desc, id`, [caseIds]);
  return rows.map(toRecord);
}

/** One consent record the caller may read, or 404. */
export async function consentRecord(sql: Sql, id: string): Promise<ConsentRecord> {
  const { rows } = await sql.query<Row>('select * from app_public.case_consents where id = $1', [id]);
  if (!rows[0]) throw notFound('consent_record_not_found', 'There is no such consent record.');
  return toRecord(rows[0]);
}

export interface MyConsentState {
  /** True while a major amendment waits for the caller's consent (data collection waits too). */
  pending: boolean;
  current: ConsentDocument | null;
  records: ConsentRecord[];
}

/** What a signed-in patient agreed to and whether they are asked to consent again. */
export async function myConsentState(sql: Sql, language: string): Promise<MyConsentState> {
  const cases = await sql.query<{ id: string }>(`select id from app_hidden.my_case_ids_as('patient') as id`);
  const caseIds = cases.rows.map((r) => r.id);
  const pending = await sql.query<{ pending: boolean }>(
    `select exists (select 1 from app_public.consent_requests where case_id = any($1::uuid[]) and answered_at is null) as pending`,
    [caseIds],
  );
  return { pending: pending.rows[0]!.pending, current: await currentConsentDocument(sql, language), records: await consentRecordsOfCases(sql, caseIds) };
}

/** A signed-in patient agrees to the current version (app_hidden.give_consent decides). */
export async function giveConsent(sql: Sql, versionId: string, language: string, typedUsername: string): Promise<ConsentRecord> {
  const { rows } = await sql.query<Row>('select * from app_hidden.give_consent($1, $2, $3)', [versionId, language, typedUsername]);
  return toRecord(rows[0]!);
}

// Coordinators -----------------------------------------------------------------------------------

export interface ConsentVersionSummary {
  id: string;
  version: number;
  status: 'draft' | 'published';
  major: boolean;
  publishedAt: string | null;
  changeNote: string | null;
  languages: string[];
  consents: number;
  openRequests: number;
  answeredRequests: number;
}

export async function consentVersions(sql: Sql): Promise<ConsentVersionSummary[]> {
  const { rows } = await sql.query<Row>('select * from app_hidden.consent_version_summary()');
  return rows.map((r) => ({
    id: r.version_id as string,
    version: r.version as number,
    status: r.status as 'draft' | 'published',
    major: r.major as boolean,
    publishedAt: iso(r.published_at),
    changeNote: (r.change_note as string | null) ?? null,
    languages: r.languages as string[],
    consents: Number(r.consents),
    openRequests: Number(r.open_requests),
    answeredRequests: Number(r.answered_requests),
  }));
}

export interface ConsentText {
  language: string;
  title: string;
  body: string;
  updatedAt: string;
}

/** The texts of one version (drafts for coordinators only: row-level security). */
export async function consentTexts(sql: Sql, versionId: string): Promise<ConsentText[]> {
  const version = await sql.query('select 1 from app_public.consent_versions where id = $1', [versionId]);
  if (version.rowCount === 0) throw notFound('consent_version_unknown', 'There is no such consent version.');
  const { rows } = await sql.query<Row>('select language_code, title, body, updated_at from app_public.consent_texts where version_id = $1 order by language_code', [versionId]);
  return rows.map((r) => ({ language: r.language_code as string, title: r.title as string, body: r.body as string, updatedAt: iso(r.updated_at)! }));
}

export async function createConsentDraft(sql: Sql): Promise<{ id: string; version: number }> {
  const { rows } = await sql.query<{ id: string; version: number }>('select id, version from app_hidden.create_consent_draft()');
  return rows[0]!;
}

/** Saves a draft's text in one language (insert or replace); a published version refuses. */
export async function saveConsentText(sql: Sql, versionId: string, language: string, title: string, body: string): Promise<void> {
  const version = await sql.query('select 1 from app_public.consent_versions where id = $1', [versionId]);
  if (version.rowCount === 0) throw notFound('consent_version_unknown', 'There is no such consent version.');
  await sql.query(
    `insert into app_public.consent_texts (version_id, language_code, title, body) values ($1, $2, $3, $4)
     on conflict (version_id, language_code) do update set title = excluded.title, body = excluded.body`,
    [versionId, language, title, body],
  );
}

/**
 * Publishing a version: the act a coordinator confirms with a reason (the change note). Kept as
 * this one function so the e-signature (re-entering the password) can be required here.
 */
export async function publishConsentVersion(sql: Sql, versionId: string, major: boolean, reason: string): Promise<ConsentVersionSummary> {
  await sql.query('select id from app_hidden.publish_consent_version($1, $2, $3)', [versionId, major, reason]);
  return (await consentVersions(sql)).find((v) => v.id === versionId)!;
}

export interface CoverageRow {
  collection: string;
  covered: number;
  notCovered: number;
  flagsOnly: number;
}

export async function consentCoverage(sql: Sql): Promise<{ versions: ConsentVersionSummary[]; collections: CoverageRow[] }> {
  const { rows } = await sql.query<Row>('select * from app_hidden.consent_coverage()');
  return {
    versions: await consentVersions(sql),
    collections: rows.map((r) => ({ collection: r.collection as string, covered: Number(r.covered), notCovered: Number(r.not_covered), flagsOnly: Number(r.flags_only) })),
  };
}
