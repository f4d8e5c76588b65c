/**
 * Versioned e-consent, withdrawal and retention (issue 31): what the screens read and send.
 * The server decides everything (0245–0247); see docs/decisions/versioned-consent.md.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, apiBlob } from '../../api/client';

export interface ConsentDocument {
  versionId: string;
  version: number;
  language: string;
  title: string;
  body: string;
  publishedAt: string;
}

export interface ConsentRecord {
  id: string;
  caseId: string;
  version: number;
  language: string;
  title: string;
  agreedAt: string;
  identityMethod: string;
  identityConfirmedAt: string | null;
}

export interface ConsentVersion {
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

export interface CoverageRow {
  collection: string;
  covered: number;
  notCovered: number;
  flagsOnly: number;
}

export const consentKeys = {
  all: ['consent'] as const,
  current: (language: string) => ['consent', 'current', language] as const,
  mine: (language: string) => ['consent', 'mine', language] as const,
  coverage: ['consent', 'coverage'] as const,
  texts: (id: string) => ['consent', 'texts', id] as const,
  withdrawal: (caseId: string) => ['withdrawal', caseId] as const,
  erasurePreview: (caseId: string) => ['withdrawal', caseId, 'preview'] as const,
};

/** The current document for the registration form; none published answers null. */
export const currentConsentQuery = (language: string) =>
  queryOptions({
    queryKey: consentKeys.current(language),
    queryFn: async ({ signal }) => {
      return await api<ConsentDocument | null>('GET', `/api/consent/current?language=${language}`, { signal, anonymous: true });
    },
  });

export const myConsentQuery = (language: string) =>
  queryOptions({
    queryKey: consentKeys.mine(language),
    queryFn: ({ signal }) => api<{ pending: boolean; current: ConsentDocument | null; records: ConsentRecord[] }>('GET', `/api/consent/mine?language=${language}`, { signal }),
  });

export const coverageQuery = () =>
  queryOptions({
    queryKey: consentKeys.coverage,
    queryFn: ({ signal }) => api<{ versions: ConsentVersion[]; collections: CoverageRow[] }>('GET', '/api/consent/coverage', { signal }),
  });

export const consentTextsQuery = (versionId: string) =>
  queryOptions({
    queryKey: consentKeys.texts(versionId),
    queryFn: ({ signal }) => api<{ language: string; title: string; body: string }[]>('GET', `/api/consent/versions/${versionId}/texts`, { signal }),
  });

export const giveConsent = (versionId: string, language: string, typedUsername: string) =>
  api<ConsentRecord>('POST', '/api/consent/agree', { body: { versionId, language, typedUsername } });
export const createDraft = () => api<{ id: string; version: number }>('POST', '/api/consent/versions');
export const saveText = (versionId: string, language: string, title: string, body: string) =>
  api('PUT', `/api/consent/versions/${versionId}/texts/${language}`, { body: { title, body } });
export const publishVersion = (versionId: string, major: boolean, reason: string) =>
  api<ConsentVersion>('POST', `/api/consent/versions/${versionId}/publish`, { body: { major, reason } });

/** Opens the printable record (HTML from the server) in a new tab. */
export async function openConsentRecord(id: string): Promise<void> {
  const blob = await apiBlob(`/api/consent/records/${id}`);
  const url = URL.createObjectURL(blob);
  window.open(url, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const refetchConsent = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: consentKeys.all });

// Withdrawal --------------------------------------------------------------------------------------

export type WithdrawalLevel = 'stop_contact' | 'stop_data' | 'erasure';
export const WITHDRAWAL_LEVELS: WithdrawalLevel[] = ['stop_contact', 'stop_data', 'erasure'];

export interface WithdrawalState {
  withdrawals: { id: string; level: WithdrawalLevel; reason: string; decidedAt: string }[];
  legalHold: { reason: string; setAt: string } | null;
  erasures: { erasedAt: string; cause: string }[];
}

export const withdrawalQuery = (caseId: string) =>
  queryOptions({ queryKey: consentKeys.withdrawal(caseId), queryFn: ({ signal }) => api<WithdrawalState>('GET', `/api/withdrawal/cases/${caseId}`, { signal }) });

export const erasurePreviewQuery = (caseId: string) =>
  queryOptions({
    queryKey: consentKeys.erasurePreview(caseId),
    queryFn: ({ signal }) => api<{ recordKind: string; field: string; records: number }[]>('GET', `/api/withdrawal/cases/${caseId}/erasure-preview`, { signal }),
  });

/** The coordinator's act (confirmed with a reason on the screen). */
export const withdraw = (caseId: string, level: WithdrawalLevel, reason: string) => api('POST', `/api/withdrawal/cases/${caseId}`, { body: { level, reason } });
export const setLegalHold = (caseId: string, hold: boolean, reason: string) => api('POST', `/api/withdrawal/cases/${caseId}/legal-hold`, { body: { hold, reason } });
export const refetchWithdrawal = (queryClient: QueryClient, caseId: string) => queryClient.invalidateQueries({ queryKey: ['withdrawal', caseId] });
