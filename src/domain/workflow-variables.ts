/**
 * Process variables as a clinic reads them on a task page (issue 26: no "P14D", no UUIDs, no
 * variable names). Each variable the trial and safety processes use is either shown, under a
 * translated label (careTeam.variables.<name>) with its value in words, or deliberately hidden
 * (ids and plumbing). A variable in neither list is hidden too, so nothing raw ever shows; the
 * test checks that every variable the BPMN models name is in one of the lists.
 */

export type VariableKind = 'duration' | 'date' | 'boolean' | 'text' | 'outcome' | 'arm' | 'time' | 'stage' | 'codes';

/** Shown variables and how their value reads. */
export const SHOWN_VARIABLES: Readonly<Record<string, VariableKind>> = {
  bookingDue: 'duration',
  patientTaskDue: 'duration',
  treatmentDuration: 'duration',
  worksheetDue: 'duration',
  counselingDuration: 'duration',
  taskDue: 'duration',
  reviewDue: 'duration',
  startsAt: 'date',
  followUpDate: 'date',
  followUpEscalateAt: 'date',
  excluded: 'boolean',
  askForPostIfDroppedOut: 'boolean',
  outcome: 'outcome',
  treatment: 'arm',
  timeOfMeasurement: 'time',
  stage: 'stage',
  exclusionReasons: 'codes',
  rejectedReasons: 'codes',
  rejectionReason: 'codes',
  dropoutReason: 'text',
  reason: 'text',
};

/** Ids and plumbing: never shown. */
export const HIDDEN_VARIABLES: readonly string[] = [
  'offerId', 'bookingId', 'interviewReportId', 'worksheetId', 'worksheet', 'callerId', 'callId', 'safetyGroup',
  'message', 'template', 'to', 'signalId', 'caseId', 'patientId', 'therapistId',
  // the safety loop's plumbing (issue 26): escalation times and the closing reason, shown on the task's own view
  'ackDue', 'onCallAfter', 'closingReason',
  // the counseling path's plumbing (issue 27): who was assigned and which letter closed it
  'counselorId', 'letterId',
  // the therapist chosen in "assign a therapist" (an account id; the case's member list names them)
  'therapist',
  // the engagement radar's outreach (issue 32): the group the task goes to
  'outreachGroup',
];

/** A duration of ISO 8601 (P14D, P3M, PT12H, P1Y2M) as its parts; null when it is not one. */
export function durationParts(text: string): { unit: 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute'; amount: number }[] | null {
  const match = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return null;
  const units = ['year', 'month', 'week', 'day', 'hour', 'minute'] as const;
  return units.flatMap((unit, i) => (match[i + 1] ? [{ unit, amount: Number(match[i + 1]) }] : []));
}

/** A duration in words in the reader's language ("14 days", "3 Monate", "٣ أشهر"). */
export function formatDuration(text: string, locale: string): string | null {
  const parts = durationParts(text);
  if (!parts || parts.length === 0) return null;
  const words = parts.map(({ unit, amount }) => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(amount));
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(words);
}

export interface VariableView {
  name: string;
  kind: VariableKind;
  value: unknown;
}

/** The variables to show, in a stable order; everything else stays hidden. */
export function shownVariables(variables: Readonly<Record<string, { value: unknown }>>): VariableView[] {
  return Object.entries(variables)
    .filter(([name, v]) => name in SHOWN_VARIABLES && v.value !== null && v.value !== undefined && v.value !== '')
    .map(([name, v]) => ({ name, kind: SHOWN_VARIABLES[name]!, value: v.value }))
    .sort((a, b) => Object.keys(SHOWN_VARIABLES).indexOf(a.name) - Object.keys(SHOWN_VARIABLES).indexOf(b.name));
}
