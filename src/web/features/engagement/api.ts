/**
 * The engagement radar (issue 32): what the screen reads. The server computes every state from
 * the data and scopes the rows (0290, docs/decisions/engagement-radar.md).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../api/client';

export const ENGAGEMENT_STATES = ['active', 'inactive', 'stalled', 'lost'] as const;
export type EngagementState = (typeof ENGAGEMENT_STATES)[number];
export const RADAR_PAGE_SIZE = 50;

export interface RadarRow {
  caseId: string;
  shortId: string;
  patientAlias: string | null;
  state: EngagementState;
  lastActivityAt: string;
  questionnairesDone: number;
  worksheetsDone: number;
  questionnairesOverdue: number;
  worksheetsOverdue: number;
  lastFromPatientAt: string | null;
  lastToPatientAt: string | null;
  waitingSince: string | null;
}

export interface Radar {
  rows: RadarRow[];
  counts: Record<EngagementState, number>;
  thresholds: { inactiveDays: number; stalledDays: number; lostDays: number };
}

export const engagementKeys = {
  radar: (offset: number) => ['engagement', 'radar', offset] as const,
};

export const radarQuery = (offset: number) =>
  queryOptions({
    queryKey: engagementKeys.radar(offset),
    queryFn: () => api<Radar>('GET', `/api/engagement/radar?limit=${RADAR_PAGE_SIZE}&offset=${offset}`),
  });
