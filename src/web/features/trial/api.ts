/**
 * Every server call of the trial screens (issue 15), in one file so that the web data layer's
 * port (issue 18) is a small job: the /api/trial routes (docs/API.md "Trial management") and the
 * case list's treatment field.
 */
import type { ConsortFlow } from '../../../domain/consort';
import type { AllocationFactor, AllocationMethod, Arm } from '../../../domain/randomization';
import { api, ApiError, graphql, readToken } from '../../api/client';

export interface AllocationSummary {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  settings: { blockMultiples?: number[]; probability?: number; tableRows?: number };
  configuredAt: string;
  strata: number;
  draws: number;
}

export interface BalanceRow {
  stratum: string;
  treatment: string;
  assignments: number;
}

export function loadAllocation(): Promise<{ allocation: AllocationSummary | null; balance: BalanceRow[] }> {
  return api('GET', '/api/trial/allocation');
}

export interface AllocationRequest {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  blockMultiples?: number[];
  probability?: number;
  table?: string;
}

export function configureAllocation(body: AllocationRequest): Promise<{ tickets: number }> {
  return api('POST', '/api/trial/allocation', { body });
}

export function loadConsort(): Promise<ConsortFlow> {
  return api('GET', '/api/trial/consort');
}

export interface Assignment {
  treatment: string;
  stratum: string;
  assignedAt: string;
}

export interface CaseTrialFacts {
  isDropout: boolean;
  dropoutReason: string | null;
  excludeFromAnalysis: boolean;
  reasonForExclusion: string | null;
  exclusionFlags: Record<string, boolean> | null;
  treatmentAssignmentsByCaseIdList: Assignment[];
  exclusionChangesByCaseIdList: { id: string; flag: string; value: boolean; reason: string; changedAt: string }[];
}

export async function loadCaseTrial(caseId: string): Promise<CaseTrialFacts | null> {
  const data = await graphql<{ caseById: CaseTrialFacts | null }>(
    `query CaseTrial($id: UUID!) { caseById(id: $id) {
      isDropout dropoutReason excludeFromAnalysis reasonForExclusion exclusionFlags
      treatmentAssignmentsByCaseIdList(orderBy: ASSIGNED_AT_ASC) { treatment stratum assignedAt }
      exclusionChangesByCaseIdList(orderBy: CHANGED_AT_DESC) { id flag value reason changedAt }
    } }`,
    { id: caseId },
  );
  return data.caseById;
}

export function randomizeCase(caseId: string): Promise<Assignment> {
  return api('POST', `/api/trial/cases/${encodeURIComponent(caseId)}/randomize`);
}

export function changeExclusion(caseId: string, body: { flag: string; value: boolean; reason: string; askForPost?: boolean }): Promise<void> {
  return api('POST', `/api/trial/cases/${encodeURIComponent(caseId)}/exclusion`, { body });
}

export interface InvoiceItem {
  id: string;
  user_id: string | null;
  username: string | null;
  alias: string | null;
  case_id: string | null;
  invoice_type: 'interview' | 'therapy_session';
  date: string;
  has_taken_place: boolean;
  canceled: boolean;
  canceled_by_therapist: boolean;
  canceled_short_term: boolean;
}

export function loadInvoices(year: number, month: number): Promise<{ shortNoticeHours: number; items: InvoiceItem[] }> {
  return api('GET', `/api/trial/invoices?year=${year}&month=${month}`);
}

export function setShortNotice(hours: number): Promise<void> {
  return api('PUT', '/api/trial/invoice-settings', { body: { shortNoticeHours: hours } });
}

export function recordSession(body: { caseId: string; sessionAt: string; held: boolean; canceledAt?: string; canceledByTherapist?: boolean }): Promise<{ canceledShortTerm: boolean }> {
  return api('POST', '/api/trial/sessions', { body });
}

/** A file that needs the bearer token: fetched, then saved under the server's name. */
export async function downloadFile(path: string, fallbackName: string): Promise<string> {
  const token = readToken();
  let response: Response;
  try {
    response = await fetch(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  } catch {
    throw new ApiError(0, 'network', 'The server cannot be reached.');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    throw new ApiError(response.status, body.error ?? `http_${response.status}`, body.message ?? response.statusText);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  saveBlob(await response.blob(), name);
  return name;
}

export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
