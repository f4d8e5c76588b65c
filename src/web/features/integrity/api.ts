/**
 * The server calls of the integrity screens (issue 30): a case's access history (coordinators)
 * and who on the care team opened the patient's record (/api/integrity, docs/API.md).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../api/client';

export const integrityKeys = {
  all: ['integrity'] as const,
  caseAccess: (caseId: string) => ['integrity', 'caseAccess', caseId] as const,
  myReaders: ['integrity', 'myReaders'] as const,
};

/** Reads grouped per reader, kind of record (and door) and hour. */
export interface AccessEntry {
  lastAt: string;
  reads: number;
  readerName: string;
  readerRoles: string[];
  recordKind: string;
  api?: string;
}

export const caseAccessQuery = (caseId: string) =>
  queryOptions({
    queryKey: integrityKeys.caseAccess(caseId),
    queryFn: ({ signal }) => api<{ rows: AccessEntry[] }>('GET', `/api/integrity/cases/${encodeURIComponent(caseId)}/access`, { signal }),
  });

export const myRecordReadersQuery = () =>
  queryOptions({
    queryKey: integrityKeys.myReaders,
    queryFn: ({ signal }) => api<{ rows: AccessEntry[] }>('GET', '/api/integrity/my-record-readers', { signal }),
  });
