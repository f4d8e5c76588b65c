/**
 * Every server call of the trial screens (issue 15), as the web data layer wants them
 * (src/web/api/README.md): the GraphQL document of the case's trial facts, query options with
 * their keys, the /api/trial REST calls (docs/API.md "Trial management"), and what each action
 * refetches.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { ConsortFlow } from '../../../domain/consort';
import type { AllocationFactor, AllocationMethod, Arm, GenderSource } from '../../../domain/randomization';
import { api, ApiError, readToken } from '../../api/client';
import { graphql, request, type ResultOf } from '../../api/graphql';

export const trialKeys = {
  all: ['trial'] as const,
  allocation: ['trial', 'allocation'] as const,
  consort: ['trial', 'consort'] as const,
  invoices: (year: number, month: number) => ['trial', 'invoices', year, month] as const,
  case: (caseId: string) => ['trial', 'case', caseId] as const,
};

export interface AllocationSummary {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  settings: { blockMultiples?: number[]; probability?: number; tableRows?: number; genderSource?: GenderSource };
  configuredAt: string;
  strata: number;
  draws: number;
}

export interface BalanceRow {
  stratum: string;
  treatment: string;
  assignments: number;
}

export const allocationQuery = () =>
  queryOptions({
    queryKey: trialKeys.allocation,
    queryFn: ({ signal }) => api<{ allocation: AllocationSummary | null; balance: BalanceRow[] }>('GET', '/api/trial/allocation', { signal }),
  });

export interface AllocationRequest {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  blockMultiples?: number[];
  probability?: number;
  table?: string;
  genderSource?: GenderSource;
}

export function configureAllocation(body: AllocationRequest): Promise<{ tickets: number }> {
  return api('POST', '/api/trial/allocation', { body });
}

export const consortQuery = () => queryOptions({ queryKey: trialKeys.consort, queryFn: ({ signal }) => api<ConsortFlow>('GET', '/api/trial/consort', { signal }) });

export const CaseTrial = graphql(`
  query CaseTrial($id: UUID!) {
    caseById(id: $id) {
      id isDropout dropoutReason excludeFromAnalysis reasonForExclusion exclusionFlags randomizationCheck
      treatmentAssignmentsByCaseIdList(orderBy: ASSIGNED_AT_ASC) { id treatment stratum assignedAt }
      exclusionChangesByCaseIdList(orderBy: CHANGED_AT_DESC) { id flag value reason changedAt }
    }
  }
`);
export type CaseTrialFacts = NonNullable<ResultOf<typeof CaseTrial>['caseById']>;

/** What the server's draw would say about a case, read before the button is offered (0141). */
export interface RandomizationCheck {
  refusal: 'already_randomized' | 'allocation_missing' | 'not_accepted' | null;
  registeredGender: string | null;
  reportedGender: string | null;
  genderMismatch: boolean;
  /** The record the stratum's gender comes from (0216), and what each record says. */
  genderSource?: GenderSource;
  genders?: Partial<Record<GenderSource, string | null>>;
}

export const caseTrialQuery = (caseId: string) =>
  queryOptions({ queryKey: trialKeys.case(caseId), queryFn: async () => (await request(CaseTrial, { id: caseId })).caseById });

export interface Assignment {
  treatment: string;
  stratum: string;
  assignedAt: string;
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

export const invoicesQuery = (year: number, month: number) =>
  queryOptions({
    queryKey: trialKeys.invoices(year, month),
    queryFn: ({ signal }) => api<{ shortNoticeHours: number; items: InvoiceItem[] }>('GET', `/api/trial/invoices?year=${year}&month=${month}`, { signal }),
  });

export function setShortNotice(hours: number): Promise<void> {
  return api('PUT', '/api/trial/invoice-settings', { body: { shortNoticeHours: hours } });
}

export function recordSession(body: { caseId: string; sessionAt: string; held: boolean; canceledAt?: string; canceledByTherapist?: boolean }): Promise<{ canceledShortTerm: boolean }> {
  return api('POST', '/api/trial/sessions', { body });
}

/**
 * After any trial change (allocation, draw, exclusion, session, notice): every trial read, and
 * the case screens, which show the treatment and the exclusion facts.
 */
export const refetchAfterTrialChange = (client: QueryClient) =>
  Promise.all([client.invalidateQueries({ queryKey: trialKeys.all }), client.invalidateQueries({ queryKey: ['cases'] })]);

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
