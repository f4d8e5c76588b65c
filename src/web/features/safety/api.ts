/**
 * Every server call of the clinical-safety screens (issue 13), in one file so that the move to
 * the new web data layer is a small job: suicide-risk calls (spec §7 SuicideCalls,
 * InsertSuicideCall, UpdateSuicideCall), risk signals, the coordinators' overview, crisis help,
 * the emergency contact and the anti-suicide contract (db/migrations/0050).
 */
import type { RiskValue } from '../../../domain/safety';
import { api, graphql } from '../../api/client';

export interface PersonRef {
  id: string;
  username: string;
  alias: string | null;
}

export interface SuicideCall {
  id: string;
  caseId: string;
  callDate: string;
  userIdCaller: string | null;
  userByUserIdCaller: PersonRef | null;
  patientReached: boolean;
  riskOfSuicide: RiskValue | null;
  suicideScore: number | null;
  detailedDescription: string | null;
  followUpContact: boolean;
  followUpDescription: string | null;
  followUpDate: string | null;
  informCoordinator: boolean;
  userIdCoordinator: string | null;
  userByUserIdCoordinator: PersonRef | null;
  coordinatorContactDate: string | null;
  excludePatient: boolean;
  exclusionReason: string | null;
  createdAt: string;
}

/** What a call form sends: every field a person may set (the caller is always the sender). */
export type CallInput = Pick<
  SuicideCall,
  | 'callDate'
  | 'patientReached'
  | 'riskOfSuicide'
  | 'suicideScore'
  | 'detailedDescription'
  | 'followUpContact'
  | 'followUpDescription'
  | 'followUpDate'
  | 'informCoordinator'
  | 'excludePatient'
  | 'exclusionReason'
>;

const CALL_FIELDS = `id caseId callDate userIdCaller userByUserIdCaller { id username alias } patientReached riskOfSuicide suicideScore
  detailedDescription followUpContact followUpDescription followUpDate informCoordinator userIdCoordinator
  userByUserIdCoordinator { id username alias } coordinatorContactDate excludePatient exclusionReason createdAt`;

export interface SafetySignal {
  id: string;
  caseId: string;
  source: string;
  details: { flags?: string[]; item9?: number; total?: number; timeOfMeasurement?: string; [key: string]: unknown };
  responsibleGroup: string;
  raisedAt: string;
  resolvedAt: string | null;
  caseByCaseId?: { id: string; shortId: string } | null;
}

const SIGNAL_FIELDS = 'id caseId source details responsibleGroup raisedAt resolvedAt';

export interface CaseSafety {
  calls: SuicideCall[];
  signals: SafetySignal[];
  antiSuicideContractAt: string | null;
  emergencyContact: string | null;
}

/** The Safety section of a case: calls by call date (spec §7 SuicideCalls), signals newest first. */
export async function loadCaseSafety(caseId: string): Promise<CaseSafety> {
  const data = await graphql<{
    allCaseSuicideCallsList: SuicideCall[];
    allSafetySignalsList: SafetySignal[];
    caseById: { antiSuicideContractAt: string | null; emergencyContact: string | null } | null;
  }>(
    `query CaseSafety($caseId: UUID!) {
      allCaseSuicideCallsList(condition: { caseId: $caseId }, orderBy: CALL_DATE_ASC) { ${CALL_FIELDS} }
      allSafetySignalsList(condition: { caseId: $caseId }, orderBy: RAISED_AT_DESC) { ${SIGNAL_FIELDS} }
      caseById(id: $caseId) { id antiSuicideContractAt emergencyContact }
    }`,
    { caseId },
  );
  return {
    calls: data.allCaseSuicideCallsList,
    signals: data.allSafetySignalsList,
    antiSuicideContractAt: data.caseById?.antiSuicideContractAt ?? null,
    emergencyContact: data.caseById?.emergencyContact ?? null,
  };
}

/** The latest PHQ-9 item 9 answers of a case (the suicide item), newest first. */
export async function loadPhq9Item9(caseId: string): Promise<{ time_of_measurement: string; item9: number | null; updated_at: string }[]> {
  return api('GET', `/api/phq9?select=time_of_measurement,item9,updated_at&case_id=eq.${encodeURIComponent(caseId)}&order=updated_at.desc`);
}

export async function createCall(caseId: string, input: CallInput): Promise<SuicideCall> {
  const data = await graphql<{ createCaseSuicideCall: { caseSuicideCall: SuicideCall } }>(
    `mutation InsertSuicideCall($call: CaseSuicideCallInput!) {
      createCaseSuicideCall(input: { caseSuicideCall: $call }) { caseSuicideCall { ${CALL_FIELDS} } }
    }`,
    { call: { ...input, caseId } },
  );
  return data.createCaseSuicideCall.caseSuicideCall;
}

export async function updateCall(id: string, patch: Partial<CallInput>): Promise<SuicideCall> {
  const data = await graphql<{ updateCaseSuicideCallById: { caseSuicideCall: SuicideCall } }>(
    `mutation UpdateSuicideCall($id: UUID!, $patch: CaseSuicideCallPatch!) {
      updateCaseSuicideCallById(input: { id: $id, caseSuicideCallPatch: $patch }) { caseSuicideCall { ${CALL_FIELDS} } }
    }`,
    { id, patch },
  );
  return data.updateCaseSuicideCallById.caseSuicideCall;
}

export interface SafetyOverviewData {
  signals: (SafetySignal & { caseByCaseId: { id: string; shortId: string } | null })[];
  overdue: { id: string; name: string | null; taskDefinitionKey: string; due: string | null; priority: number; caseId: string; caseByCaseId: { id: string; shortId: string } | null }[];
  callsWaiting: (SuicideCall & { caseByCaseId: { id: string; shortId: string } | null })[];
  missingLocales: string[] | null;
}

/** The coordinators' overview: open signals, overdue safety tasks, calls waiting for contact. */
export async function loadSafetyOverview(): Promise<SafetyOverviewData> {
  const data = await graphql<{
    allSafetySignalsList: SafetyOverviewData['signals'];
    openWorkflowTasks: { nodes: SafetyOverviewData['overdue'] };
    safetyOverviewCallsWaitingList: SafetyOverviewData['callsWaiting'];
    crisisHelpMissingLocales: string[] | null;
  }>(
    `query SafetyOverview {
      allSafetySignalsList(condition: { resolvedAt: null }, orderBy: RAISED_AT_ASC) { ${SIGNAL_FIELDS} caseByCaseId { id shortId } }
      openWorkflowTasks(overdue: true, sort: PRIORITY, first: 200) { nodes { id name taskDefinitionKey due priority caseId caseByCaseId { id shortId } } }
      safetyOverviewCallsWaitingList { ${CALL_FIELDS} caseByCaseId { id shortId } }
      crisisHelpMissingLocales
    }`,
  );
  return {
    signals: data.allSafetySignalsList,
    // Safety tasks carry priority 100 (workflows/safety.bpmn); the list sorts them first.
    overdue: data.openWorkflowTasks.nodes.filter((task) => task.priority >= 100),
    callsWaiting: data.safetyOverviewCallsWaitingList,
    missingLocales: data.crisisHelpMissingLocales,
  };
}

export interface CrisisHelp {
  languageCode: string;
  title: string;
  content: string;
}

export interface PatientSafety {
  crisisHelp: CrisisHelp | null;
  emergencyContact: string | null;
  antiSuicideContractAt: string | null;
}

/** What the crisis panel needs: the trial's contacts in the reader's language and the case's state. */
export async function loadPatientSafety(caseId: string, languageCode: string): Promise<PatientSafety> {
  const data = await graphql<{ crisisHelp: CrisisHelp | null; caseById: { emergencyContact: string | null; antiSuicideContractAt: string | null } | null }>(
    `query CrisisHelp($caseId: UUID!, $languageCode: String!) {
      crisisHelp(languageCode: $languageCode) { languageCode title content }
      caseById(id: $caseId) { id emergencyContact antiSuicideContractAt }
    }`,
    { caseId, languageCode },
  );
  return {
    crisisHelp: data.crisisHelp,
    emergencyContact: data.caseById?.emergencyContact ?? null,
    antiSuicideContractAt: data.caseById?.antiSuicideContractAt ?? null,
  };
}

export async function saveEmergencyContact(caseId: string, emergencyContact: string): Promise<string | null> {
  const data = await graphql<{ setEmergencyContact: { case: { emergencyContact: string | null } | null } }>(
    `mutation SetEmergencyContact($caseId: UUID!, $emergencyContact: String!) {
      setEmergencyContact(input: { caseId: $caseId, emergencyContact: $emergencyContact }) { case { id emergencyContact } }
    }`,
    { caseId, emergencyContact },
  );
  return data.setEmergencyContact.case?.emergencyContact ?? null;
}

export async function confirmAntiSuicideContract(caseId: string): Promise<string | null> {
  const data = await graphql<{ confirmAntiSuicideContract: { datetime: string | null } }>(
    `mutation ConfirmAntiSuicideContract($caseId: UUID!) { confirmAntiSuicideContract(input: { caseId: $caseId }) { datetime } }`,
    { caseId },
  );
  return data.confirmAntiSuicideContract.datetime;
}
