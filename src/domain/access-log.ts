/**
 * The access log's vocabulary (issue 30): the kinds of case record a read can touch, named for
 * people ("interview reports", not a table or GraphQL type), and how a table, collection or
 * GraphQL type maps to one. Shared by the server (which records) and the web app (which shows).
 */

/** Kinds of case record, in the order screens list them. */
export const RECORD_KINDS = [
  'case',
  'members',
  'messages',
  'questionnaires',
  'scores',
  'interviews',
  'interviewReports',
  'worksheets',
  'letters',
  'tasks',
  'safety',
  'trial',
  'auditLog',
  'accessLog',
  'records',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The doors a read comes through. */
export const READ_APIS = ['graphql', 'rest', 'workflow', 'export', 'screen'] as const;
export type ReadApi = (typeof READ_APIS)[number];

/** Name fragments (lower case, no separators) and their kind, most specific first. */
const KIND_BY_FRAGMENT: [string, RecordKind][] = [
  ['auditlog', 'auditLog'],
  ['accesslog', 'accessLog'],
  ['casemember', 'members'],
  ['message', 'messages'],
  ['suicidecall', 'safety'],
  ['safety', 'safety'],
  ['score', 'scores'],
  ['feedbackinterviewreport', 'interviewReports'],
  ['interviewreport', 'interviewReports'],
  ['missedinterview', 'interviews'],
  ['interview', 'interviews'],
  ['mydate', 'interviews'],
  ['worksheet', 'worksheets'],
  ['cbt', 'worksheets'],
  ['ipt', 'worksheets'],
  ['letter', 'letters'],
  ['exclusion', 'trial'],
  ['treatmentassignment', 'trial'],
  ['randomiz', 'trial'],
  ['allocation', 'trial'],
  ['trialparticipant', 'trial'],
  ['invoice', 'trial'],
  ['workflow', 'tasks'],
  ['task', 'tasks'],
  ['process', 'tasks'],
  ['gateway', 'tasks'],
  ['case', 'case'],
];

/**
 * The kind of record a table, REST collection or GraphQL type holds: `interview_reports`,
 * `InterviewReportVersion` and `feedback_interview_reports` are all interview reports.
 * Questionnaire collections are named by their code, which the caller knows; others fall
 * back to "records".
 */
export function recordKindOf(name: string): RecordKind {
  const flat = name.replace(/[^A-Za-z]/g, '').toLowerCase();
  for (const [fragment, kind] of KIND_BY_FRAGMENT) if (flat.includes(fragment)) return kind;
  return 'records';
}

/**
 * The reads of one request, gathered by every door it passes (REST, GraphQL, workflow): per
 * kind, the cases touched. An empty set means a read of that kind whose cases are unknown.
 */
export class CaseReads {
  readonly byKind = new Map<RecordKind, Set<string>>();
  api: ReadApi | undefined;

  add(api: ReadApi, kind: RecordKind, caseIds: Iterable<string>): void {
    this.api ??= api;
    let ids = this.byKind.get(kind);
    if (!ids) this.byKind.set(kind, (ids = new Set()));
    for (const id of caseIds) if (typeof id === 'string' && UUID.test(id)) ids.add(id.toLowerCase());
  }

  get empty(): boolean {
    return this.byKind.size === 0;
  }

  /** The kinds and, in the same order, their case lists, as record_case_reads takes them. */
  toParameters(): { kinds: RecordKind[]; caseLists: string[][] } {
    const kinds = [...this.byKind.keys()];
    return { kinds, caseLists: kinds.map((kind) => [...this.byKind.get(kind)!].sort()) };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Values of every `caseId` / `case_id` key in a JSON value (workflow answers, REST rows). */
export function caseIdsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) caseIdsIn(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'caseId' || key === 'case_id') && typeof inner === 'string') found.add(inner);
      else if (typeof inner === 'object') caseIdsIn(inner, found);
    }
  }
  return found;
}
