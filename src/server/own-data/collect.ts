/**
 * Own-data download (issue 31 item 2, GDPR Art. 15/20): everything a patient may read about
 * themselves, gathered in the caller's transaction as the request role, so row-level security
 * and the `<code>_records` views decide what is included exactly as they do for the screens.
 * Nothing here reads as the owner: a score the patient may not see today stays empty here too.
 *
 * Only the patient's own cases are read (`my_case_ids_as('patient')`), so a person who is also
 * staff somewhere never downloads another person's case. The questionnaire collections come
 * from the instrument registry and the worksheets from the worksheet registry: a collection
 * added there is in the download without a change here.
 * See docs/decisions/own-data-download.md.
 */
import { INSTRUMENT_CODES, INSTRUMENTS, type InstrumentCode } from '../../domain/instruments';
import { WORKSHEET_CODES, WORKSHEETS, type WorksheetCode } from '../../domain/worksheets';
import type { Sql } from '../db/transaction';
import { forbidden } from '../http/errors';

type Row = Record<string, unknown>;

export interface OwnProfile {
  id: string;
  username: string;
  email: string;
  alias: string | null;
  gender: string | null;
  phone: string | null;
  locale: string;
  time_zone: string;
  created_at: string;
  last_login: string | null;
}

/** The agreement flags set at registration and the anti-suicide contract. */
export interface OwnConsents {
  agreed_to_terms: boolean;
  agreed_to_privacy_policy: boolean;
  agreed_to_research_use: boolean;
  agreed_to_be_contacted: boolean;
  confirmed_adult: boolean;
  anti_suicide_contract_at: string | null;
}

export interface OwnQuestionnaire {
  id: string;
  case_id: string;
  time_of_measurement: string;
  created_at: string;
  updated_at: string;
  /** Item id → stored answer, in the definition's order; unanswered items are null. */
  answers: Record<string, unknown>;
  /** The scores as the patient may read them: empty (null) unless the rules let them see one. */
  scores: { total: unknown; band: unknown; subscales: unknown; complete: unknown };
}

export interface OwnWorksheet {
  id: string;
  case_id: string;
  /** Field name → value, in the worksheet's order. */
  fields: Record<string, unknown>;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** The care team's sent feedback on this entry. */
  feedback: { id: string; body: string; published_at: string }[];
}

export interface OwnLetter {
  id: string;
  case_id: string;
  subject: string | null;
  body: string;
  language_code: string;
  published_at: string;
}

export interface OwnMessage {
  id: string;
  case_id: string;
  subject: string | null;
  body: string;
  from_me: boolean;
  from_system: boolean;
  sent_at: string | null;
  created_at: string;
}

export interface OwnAppointment {
  id: string;
  case_id: string;
  starts_at: string | null;
  ends_at: string | null;
  canceled: boolean;
  canceled_at: string | null;
  has_taken_place: boolean | null;
  booked_at: string;
}

/** A versioned consent (issue 31 item 1): the text agreed to, its version, language and time. */
export interface OwnConsentRecord {
  id: string;
  case_id: string;
  version: number;
  language_code: string;
  title: string;
  body: string;
  agreed_at: string;
  identity_method: string;
  identity_confirmed_at: string | null;
}

export interface OwnData {
  generated_at: string;
  profile: OwnProfile;
  consents: OwnConsents;
  consent_records: OwnConsentRecord[];
  case_ids: string[];
  questionnaires: Partial<Record<InstrumentCode, OwnQuestionnaire[]>>;
  worksheets: Partial<Record<WorksheetCode, OwnWorksheet[]>>;
  letters: OwnLetter[];
  messages: OwnMessage[];
  appointments: OwnAppointment[];
}

/** Timestamps as ISO text in UTC, the same whatever the server's zone. */
const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value));

/** The cases the caller is the patient of; none means this is not a patient. */
async function myPatientCaseIds(sql: Sql): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(`select id from app_hidden.my_case_ids_as('patient') as id order by id`);
  return rows.map((r) => r.id);
}

async function readProfile(sql: Sql): Promise<{ profile: OwnProfile; consents: OwnConsents }> {
  const { rows } = await sql.query<Row>(
    `select id, username::text, email::text, alias, gender::text, phone, locale, time_zone, created_at, last_login,
            agreed_to_terms, agreed_to_privacy_policy, agreed_to_research_use, agreed_to_be_contacted, confirmed_adult, anti_suicide_contract_at
       from app_public.users where id = app_public.current_user_id()`,
  );
  const u = rows[0]!;
  return {
    profile: {
      id: u.id as string,
      username: u.username as string,
      email: u.email as string,
      alias: (u.alias as string | null) ?? null,
      gender: (u.gender as string | null) ?? null,
      phone: (u.phone as string | null) ?? null,
      locale: u.locale as string,
      time_zone: u.time_zone as string,
      created_at: iso(u.created_at)!,
      last_login: iso(u.last_login),
    },
    consents: {
      agreed_to_terms: u.agreed_to_terms as boolean,
      agreed_to_privacy_policy: u.agreed_to_privacy_policy as boolean,
      agreed_to_research_use: u.agreed_to_research_use as boolean,
      agreed_to_be_contacted: u.agreed_to_be_contacted as boolean,
      confirmed_adult: u.confirmed_adult as boolean,
      anti_suicide_contract_at: iso(u.anti_suicide_contract_at),
    },
  };
}

/** One questionnaire collection through its records view (scores emptied for patients there). */
async function readQuestionnaires(sql: Sql, code: InstrumentCode, caseIds: string[]): Promise<OwnQuestionnaire[]> {
  const definition = INSTRUMENTS[code];
  // `code` comes from the registry, never from a request: safe as an identifier.
  const { rows } = await sql.query<Row>(`select * from app_public.${code}_records where case_id = any($1::uuid[]) order by created_at, id`, [caseIds]);
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    time_of_measurement: r.time_of_measurement as string,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    answers: Object.fromEntries(definition.items.map((item) => [item.id, r[item.id] ?? null])),
    scores: { total: r.total ?? null, band: r.band ?? null, subscales: r.subscales ?? null, complete: r.complete ?? null },
  }));
}

/** Sent feedback on the caller's worksheet entries, by entry id. */
async function readWorksheetFeedback(sql: Sql, caseIds: string[]): Promise<Map<string, OwnWorksheet['feedback']>> {
  const { rows } = await sql.query<Row>(
    `select id, worksheet_id, body, published_at from app_public.worksheet_feedback
      where case_id = any($1::uuid[]) and published_at is not null order by published_at, id`,
    [caseIds],
  );
  const byEntry = new Map<string, OwnWorksheet['feedback']>();
  for (const r of rows) {
    const list = byEntry.get(r.worksheet_id as string) ?? [];
    list.push({ id: r.id as string, body: r.body as string, published_at: iso(r.published_at)! });
    byEntry.set(r.worksheet_id as string, list);
  }
  return byEntry;
}

/** One worksheet collection: the caller's own entries, drafts and sent ones, with feedback. */
async function readWorksheets(sql: Sql, code: WorksheetCode, caseIds: string[], feedback: Map<string, OwnWorksheet['feedback']>): Promise<OwnWorksheet[]> {
  const { rows } = await sql.query<Row>(
    `select * from app_public.${code} where case_id = any($1::uuid[]) and submitter_id = app_public.current_user_id() order by created_at, id`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    fields: Object.fromEntries(WORKSHEETS[code].fields.map((f) => [f.name, r[f.name] ?? null])),
    published_at: iso(r.published_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    feedback: feedback.get(r.id as string) ?? [],
  }));
}

async function readLetters(sql: Sql, caseIds: string[]): Promise<OwnLetter[]> {
  const { rows } = await sql.query<Row>(
    `select id, case_id, subject, body, language_code, published_at from app_public.letters
      where case_id = any($1::uuid[]) and published_at is not null order by published_at, id`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    subject: (r.subject as string | null) ?? null,
    body: r.body as string,
    language_code: r.language_code as string,
    published_at: iso(r.published_at)!,
  }));
}

/** Messages the patient may read: sent to patients, or their own (drafts included). */
async function readMessages(sql: Sql, caseIds: string[]): Promise<OwnMessage[]> {
  const { rows } = await sql.query<Row>(
    `select id, case_id, subject, body, sender_id = app_public.current_user_id() as from_me, from_system, sent_at, created_at
       from app_public.case_messages where case_id = any($1::uuid[]) order by coalesce(sent_at, created_at), id`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    subject: (r.subject as string | null) ?? null,
    body: r.body as string,
    from_me: r.from_me === true,
    from_system: r.from_system as boolean,
    sent_at: iso(r.sent_at),
    created_at: iso(r.created_at)!,
  }));
}

async function readConsentRecords(sql: Sql, caseIds: string[]): Promise<OwnConsentRecord[]> {
  const { rows } = await sql.query<Row>(
    `select id, case_id, version, language_code, title, body, agreed_at, identity_method, identity_confirmed_at
       from app_public.case_consents where case_id = any($1::uuid[]) order by agreed_at, id`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    version: r.version as number,
    language_code: r.language_code as string,
    title: r.title as string,
    body: r.body as string,
    agreed_at: iso(r.agreed_at)!,
    identity_method: r.identity_method as string,
    identity_confirmed_at: iso(r.identity_confirmed_at),
  }));
}

/** Interview bookings with the time of the offered slot (the offer is visible to the booked patient). */
async function readAppointments(sql: Sql, caseIds: string[]): Promise<OwnAppointment[]> {
  const { rows } = await sql.query<Row>(
    `select b.id, b.case_id, o.starts_at, o.ends_at, b.canceled, b.canceled_at, o.has_taken_place, b.created_at
       from app_public.interview_bookings b left join app_public.interview_offers o on o.id = b.offer_id
      where b.case_id = any($1::uuid[]) order by o.starts_at nulls last, b.id`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id as string,
    case_id: r.case_id as string,
    starts_at: iso(r.starts_at),
    ends_at: iso(r.ends_at),
    canceled: r.canceled as boolean,
    canceled_at: iso(r.canceled_at),
    has_taken_place: (r.has_taken_place as boolean | null) ?? null,
    booked_at: iso(r.created_at)!,
  }));
}

/**
 * The caller's own record, every kind, as the request role. A person who is the patient of no
 * case is refused (403): staff accounts hold no personal case data of their own here, and their
 * account details are on the profile page.
 */
export async function collectOwnData(sql: Sql): Promise<OwnData> {
  const caseIds = await myPatientCaseIds(sql);
  if (caseIds.length === 0) throw forbidden('own_data_patients_only', 'The data download is for patients. Your account details are shown on this page.');
  const { profile, consents } = await readProfile(sql);
  const questionnaires: OwnData['questionnaires'] = {};
  for (const code of INSTRUMENT_CODES) {
    const records = await readQuestionnaires(sql, code, caseIds);
    if (records.length > 0) questionnaires[code] = records;
  }
  const worksheets: OwnData['worksheets'] = {};
  const feedback = await readWorksheetFeedback(sql, caseIds);
  for (const code of WORKSHEET_CODES) {
    const entries = await readWorksheets(sql, code, caseIds, feedback);
    if (entries.length > 0) worksheets[code] = entries;
  }
  return {
    generated_at: new Date().toISOString(),
    profile,
    consents,
    consent_records: await readConsentRecords(sql, caseIds),
    case_ids: caseIds,
    questionnaires,
    worksheets,
    letters: await readLetters(sql, caseIds),
    messages: await readMessages(sql, caseIds),
    appointments: await readAppointments(sql, caseIds),
  };
}
