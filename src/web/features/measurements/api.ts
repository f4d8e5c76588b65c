/**
 * The server calls of the measurement screens: the schedule, a record per questionnaire and
 * time, saving answers as the patient goes (an upsert on case and time of measurement, so a
 * retried save never makes a second record) and a trial's installed wording.
 */
import type { Answers, InstrumentCode } from '../../../domain/instruments';
import type { MeasurementSchedule, MeasurementTime } from '../../../domain/measurements';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../api/client';

/** A stored record as the patient reads it: answers and record columns, scores always empty. */
export type StoredRecord = Answers & { id?: string; time_of_measurement?: string };

let schedule: Promise<MeasurementSchedule> | null = null;

/** The installation's schedule; asked once per page load (it changes only with a restart). */
export function loadSchedule(): Promise<MeasurementSchedule> {
  schedule ??= api<{ schedule: MeasurementSchedule }>('GET', '/api/measurements/schedule', { anonymous: true }).then(
    (body) => body.schedule,
    (error: unknown) => {
      schedule = null;
      throw error;
    },
  );
  return schedule;
}

/** Spec §5: each stored-entity call requires its url; a missing collection code is a programming error. */
export function collectionUrl(code: InstrumentCode | '' | undefined): string {
  if (!code) throw new Error('state.url must be defined');
  return `/api/${code}`;
}

/** The case's record of one questionnaire at one time, or an empty one. */
export async function loadRecord(code: InstrumentCode, caseId: string, time: MeasurementTime): Promise<StoredRecord> {
  const query = new URLSearchParams({ case_id: `eq.${caseId}`, time_of_measurement: `eq.${time}` });
  const rows = await api<StoredRecord[]>('GET', `${collectionUrl(code)}?${query.toString()}`);
  return rows[0] ?? {};
}

/** Every record of one questionnaire in the case, by time of measurement (for /frageboegen). */
export async function loadRecordsByTime(code: InstrumentCode, caseId: string): Promise<Partial<Record<MeasurementTime, StoredRecord>>> {
  const rows = await api<StoredRecord[]>('GET', `${collectionUrl(code)}?case_id=eq.${encodeURIComponent(caseId)}`);
  return Object.fromEntries(rows.map((row) => [row.time_of_measurement, row]));
}

/** Saves some answers into the record (creating it on the first answer). */
export async function saveAnswers(code: InstrumentCode, caseId: string, time: MeasurementTime, changes: AnswerChanges): Promise<void> {
  const rows = await api<unknown>('POST', collectionUrl(code), {
    body: { case_id: caseId, time_of_measurement: time, ...changes },
    headers: { prefer: 'resolution=merge-duplicates, return=representation' },
  });
  // Spec §5: saving a stored entity expects exactly one result back.
  if (Array.isArray(rows) && rows.length !== 1) throw new Error('Expected exactly one result');
}

export const measurementKeys = {
  all: ['measurements'] as const,
  records: (code: InstrumentCode, caseId: string) => ['measurements', 'records', code, caseId] as const,
  schedule: () => ['measurements', 'schedule'] as const,
  record: (code: InstrumentCode, caseId: string, time: MeasurementTime) => ['measurements', 'record', code, caseId, time] as const,
  wording: (code: InstrumentCode, locale: string) => ['measurements', 'wording', code, locale] as const,
  battery: (time: MeasurementTime, caseId: string) => ['measurements', 'battery', time, caseId] as const,
};

/** The questionnaires due at one time, in the schedule's order, each with the case's record. */
export async function loadBattery(time: MeasurementTime, caseId: string): Promise<{ code: InstrumentCode; record: StoredRecord }[]> {
  const codes = [...(await loadSchedule())[time]];
  const records = await Promise.all(codes.map((code) => loadRecord(code, caseId, time)));
  return codes.map((code, i) => ({ code, record: records[i] ?? {} }));
}

export const batteryQuery = (time: MeasurementTime, caseId: string) => queryOptions({ queryKey: measurementKeys.battery(time, caseId), queryFn: () => loadBattery(time, caseId) });

/**
 * The record the questionnaire form starts from. The form fetches it once per opening
 * (`fetchQuery`, always fresh) and then owns the answers: merged with this device's unsent
 * answers and saved through the outbox, so no background refetch may overwrite them.
 */
export const recordQuery = (code: InstrumentCode, caseId: string, time: MeasurementTime) =>
  queryOptions({ queryKey: measurementKeys.record(code, caseId, time), queryFn: () => loadRecord(code, caseId, time), staleTime: 0 });

/**
 * A trial's installed wording. A coordinator may install or change it while patients use the
 * app (template editor, import-wording), so every opening of a form reads it afresh; the cached
 * texts show meanwhile, and the neutral labels where none are installed.
 */
export const wordingQuery = (code: InstrumentCode, locale: string) =>
  queryOptions({ queryKey: measurementKeys.wording(code, locale), queryFn: () => loadWording(code, locale), staleTime: 0, refetchOnMount: 'always' });

export const scheduleQuery = () => queryOptions({ queryKey: measurementKeys.schedule(), queryFn: loadSchedule, staleTime: Infinity });
export const recordsByTimeQuery = (code: InstrumentCode, caseId: string) =>
  queryOptions({ queryKey: measurementKeys.records(code, caseId), queryFn: () => loadRecordsByTime(code, caseId) });

/** A trial's installed texts of one instrument (template code → text); none is no error. */
export async function loadWording(code: InstrumentCode, locale: string): Promise<Record<string, string>> {
  try {
    const body = await api<{ texts: Record<string, string> }>('GET', `/api/wording/${code}?locale=${encodeURIComponent(locale)}`, { anonymous: true });
    return body.texts;
  } catch {
    // Without installed wording the neutral labels are shown; that is never a reason to stop.
    return {};
  }
}
