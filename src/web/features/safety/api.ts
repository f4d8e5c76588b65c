/**
 * Every server call of the clinical-safety screens (issue 13): suicide-risk calls (spec §7
 * SuicideCalls, InsertSuicideCall, UpdateSuicideCall), risk signals, the coordinators'
 * overview, crisis help, the emergency contact and the anti-suicide contract
 * (db/migrations/0050). Documents, query keys and options, the writes, and what each write
 * refetches (src/web/api/README.md).
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { graphql, request, type ResultOf } from '../../api/graphql';
import type { RiskValue } from '../../../domain/safety';
import type { ResponseRow } from '../../../domain/safety-report';

const SuicideCallFields = graphql(`
  fragment SuicideCallFields on CaseSuicideCall {
    id caseId callDate userIdCaller userByUserIdCaller { id username alias } patientReached riskOfSuicide suicideScore
    detailedDescription followUpContact followUpDescription followUpDate informCoordinator userIdCoordinator
    userByUserIdCoordinator { id username alias } coordinatorContactDate excludePatient exclusionReason createdAt
  }
`);

const SafetySignalFields = graphql(`
  fragment SafetySignalFields on SafetySignal { id caseId source details responsibleGroup raisedAt resolvedAt }
`);

/** Spec §7 SuicideCalls: the calls of a case by call date. */
export const SuicideCalls = graphql(
  `query SuicideCalls($caseId: UUID!) {
    allCaseSuicideCalls(condition: { caseId: $caseId }, orderBy: CALL_DATE_ASC) { nodes { ...SuicideCallFields } }
  }`,
  [SuicideCallFields],
);

export const CaseSafety = graphql(
  `query CaseSafety($caseId: UUID!) {
    allSafetySignalsList(condition: { caseId: $caseId }, orderBy: RAISED_AT_DESC) { ...SafetySignalFields }
    caseById(id: $caseId) { id antiSuicideContractAt emergencyContact }
  }`,
  [SafetySignalFields],
);

export const InsertSuicideCall = graphql(
  `mutation InsertSuicideCall($call: CaseSuicideCallInput!) {
    createCaseSuicideCall(input: { caseSuicideCall: $call }) { caseSuicideCall { ...SuicideCallFields } }
  }`,
  [SuicideCallFields],
);

export const UpdateSuicideCall = graphql(
  `mutation UpdateSuicideCall($id: UUID!, $patch: CaseSuicideCallPatch!) {
    updateCaseSuicideCallById(input: { id: $id, caseSuicideCallPatch: $patch }) { caseSuicideCall { ...SuicideCallFields } }
  }`,
  [SuicideCallFields],
);

/**
 * A safety task (issue 26): its patient, the risk answer it is about (with who took it on and
 * the escalations), the calls answering it, or the call a review/follow-up is about. Read through
 * the task's computed columns (db/migrations/0130): no process variable reaches the screen.
 */
export const SafetyTask = graphql(
  `query SafetyTask($id: UUID!) {
    workflowTaskById(id: $id) {
      id caseId taskDefinitionKey endTime mayComplete
      caseByCaseId { id shortId patient { id alias username } }
      safetySignal {
        ...SafetySignalFields acknowledgedAt userByAcknowledgedBy { id alias username } closingReason
        escalatedToCoordinatorsAt escalatedToOnCallAt firstCallAt
      }
      suicideCall { ...SuicideCallFields }
    }
  }`,
  [SafetySignalFields, SuicideCallFields],
);

export const AcknowledgeSafetySignal = graphql(`
  mutation AcknowledgeSafetySignal($signalId: UUID!) {
    acknowledgeSafetySignal(input: { signalId: $signalId }) { safetySignal { id acknowledgedAt } }
  }
`);

/** The safety banner of a staff home: open risk tasks the person can act on (0131). */
export const MyOpenRiskTasks = graphql(`
  query MyOpenRiskTasks {
    myOpenRiskTasksList {
      id due created caseId
      caseByCaseId { id shortId patient { id alias username } }
      safetySignal { id acknowledgedAt }
    }
  }
`);

/** The coordinators' response-time report (0131): every risk answer with its times. */
export const SafetyResponseTimes = graphql(`
  query SafetyResponseTimes($from: Datetime, $before: Datetime) {
    safetyResponseTimesList(raisedFrom: $from, raisedBefore: $before) {
      id caseId raisedAt acknowledgedAt firstCallAt resolvedAt closingReason caseByCaseId { id shortId }
    }
  }
`);

export const SafetyOverview = graphql(
  `query SafetyOverview {
    allSafetySignalsList(condition: { resolvedAt: null }, orderBy: RAISED_AT_ASC) { ...SafetySignalFields caseByCaseId { id shortId } }
    openWorkflowTasks(overdue: true, sort: PRIORITY, first: 200) { nodes { id name taskDefinitionKey due priority caseId caseByCaseId { id shortId } } }
    safetyOverviewCallsWaitingList { ...SuicideCallFields caseByCaseId { id shortId } }
    crisisHelpMissingLocales
  }`,
  [SafetySignalFields, SuicideCallFields],
);

export const CrisisHelp = graphql(`
  query CrisisHelp($caseId: UUID!, $languageCode: String!) {
    crisisHelp(languageCode: $languageCode) { id languageCode title content }
    caseById(id: $caseId) { id emergencyContact antiSuicideContractAt }
  }
`);

export const SetEmergencyContact = graphql(`
  mutation SetEmergencyContact($caseId: UUID!, $emergencyContact: String!) {
    setEmergencyContact(input: { caseId: $caseId, emergencyContact: $emergencyContact }) { case { id emergencyContact } }
  }
`);

export const ConfirmAntiSuicideContract = graphql(`
  mutation ConfirmAntiSuicideContract($caseId: UUID!) { confirmAntiSuicideContract(input: { caseId: $caseId }) { datetime } }
`);

export type SuicideCall = ResultOf<typeof SuicideCallFields>;
export type SafetySignal = ResultOf<typeof SafetySignalFields> & {
  details: { flags?: string[]; item9?: number; total?: number; timeOfMeasurement?: string; [key: string]: unknown };
};
export type SafetyOverviewData = {
  signals: (SafetySignal & { caseByCaseId: { id: string; shortId: string | null } | null })[];
  overdue: NonNullable<ResultOf<typeof SafetyOverview>['openWorkflowTasks']>['nodes'];
  callsWaiting: ResultOf<typeof SafetyOverview>['safetyOverviewCallsWaitingList'];
  missingLocales: (string | null)[] | null;
};

/** What a call form sends: every field a person may set (the caller is always the sender). */
export interface CallInput {
  /** The risk answer the call answers, when it is recorded from its task (only on a new call). */
  safetySignalId?: string;
  callDate: string;
  patientReached: boolean;
  riskOfSuicide: RiskValue | null;
  suicideScore: number | null;
  detailedDescription: string | null;
  followUpContact: boolean;
  followUpDescription: string | null;
  followUpDate: string | null;
  informCoordinator: boolean;
  excludePatient: boolean;
  exclusionReason: string | null;
}

export const safetyKeys = {
  all: ['safety'] as const,
  calls: (caseId: string) => ['safety', 'calls', caseId] as const,
  caseSafety: (caseId: string) => ['safety', 'case', caseId] as const,
  phq9: (caseId: string) => ['safety', 'phq9', caseId] as const,
  overview: ['safety', 'overview'] as const,
  task: (taskId: string) => ['safety', 'task', taskId] as const,
  banner: ['safety', 'banner'] as const,
  report: (from: string | null, before: string | null) => ['safety', 'report', from, before] as const,
  patient: (caseId: string, languageCode: string) => ['safety', 'patient', caseId, languageCode] as const,
};

export const suicideCallsQuery = (caseId: string) =>
  queryOptions({
    queryKey: safetyKeys.calls(caseId),
    queryFn: async ({ signal }) => (await request(SuicideCalls, { caseId }, { signal })).allCaseSuicideCalls?.nodes ?? [],
  });

export const caseSafetyQuery = (caseId: string) =>
  queryOptions({
    queryKey: safetyKeys.caseSafety(caseId),
    queryFn: async ({ signal }) => {
      const data = await request(CaseSafety, { caseId }, { signal });
      return {
        signals: (data.allSafetySignalsList ?? []) as SafetySignal[],
        antiSuicideContractAt: data.caseById?.antiSuicideContractAt ?? null,
        emergencyContact: data.caseById?.emergencyContact ?? null,
      };
    },
  });

/** The PHQ-9 item 9 answers of a case (the suicide item), newest first. */
export const phq9Item9Query = (caseId: string) =>
  queryOptions({
    queryKey: safetyKeys.phq9(caseId),
    queryFn: ({ signal }) =>
      api<{ time_of_measurement: string; item9: number | null; updated_at: string }[]>(
        'GET',
        `/api/phq9?select=time_of_measurement,item9,updated_at&case_id=eq.${encodeURIComponent(caseId)}&order=updated_at.desc`,
        { signal },
      ),
  });

/** The coordinators' overview: open signals, overdue safety tasks, calls waiting for contact. */
export const safetyOverviewQuery = () =>
  queryOptions({
    queryKey: safetyKeys.overview,
    queryFn: async ({ signal }): Promise<SafetyOverviewData> => {
      const data = await request(SafetyOverview, {}, { signal });
      return {
        signals: (data.allSafetySignalsList ?? []) as SafetyOverviewData['signals'],
        // Safety tasks carry priority 100 (workflows/safety.bpmn); the list sorts them first.
        overdue: (data.openWorkflowTasks?.nodes ?? []).filter((task) => task.priority >= 100),
        callsWaiting: data.safetyOverviewCallsWaitingList ?? [],
        missingLocales: data.crisisHelpMissingLocales ?? null,
      };
    },
  });

export type SafetyTaskData = NonNullable<ResultOf<typeof SafetyTask>['workflowTaskById']> & {
  safetySignal: (SafetySignal & NonNullable<NonNullable<ResultOf<typeof SafetyTask>['workflowTaskById']>['safetySignal']>) | null;
};

export const safetyTaskQuery = (taskId: string) =>
  queryOptions({
    queryKey: safetyKeys.task(taskId),
    queryFn: async ({ signal }) => ((await request(SafetyTask, { id: taskId }, { signal })).workflowTaskById ?? null) as SafetyTaskData | null,
  });

export type OpenRiskTask = NonNullable<ResultOf<typeof MyOpenRiskTasks>['myOpenRiskTasksList']>[number];

/** Polled like the messages (spec §7, every 60 s) and on return to the tab: a risk answer may come any time. */
export const myOpenRiskTasksQuery = () =>
  queryOptions({
    queryKey: safetyKeys.banner,
    queryFn: async ({ signal }) => ((await request(MyOpenRiskTasks, {}, { signal })).myOpenRiskTasksList ?? []) as OpenRiskTask[],
    refetchInterval: 60_000,
    refetchOnWindowFocus: true,
  });

export const safetyReportQuery = (from: string | null, before: string | null) =>
  queryOptions({
    queryKey: safetyKeys.report(from, before),
    queryFn: async ({ signal }): Promise<ResponseRow[]> => {
      const rows = (await request(SafetyResponseTimes, { from, before }, { signal })).safetyResponseTimesList ?? [];
      return rows.map((r) => ({
        caseId: r.caseId,
        shortId: r.caseByCaseId?.shortId ?? '',
        raisedAt: r.raisedAt,
        acknowledgedAt: r.acknowledgedAt ?? null,
        firstCallAt: r.firstCallAt ?? null,
        resolvedAt: r.resolvedAt ?? null,
        closedWithReason: Boolean(r.closingReason),
      }));
    },
  });

export async function acknowledgeSignal(signalId: string): Promise<void> {
  await request(AcknowledgeSafetySignal, { signalId });
}

/** What the crisis panel needs: the trial's contacts in the reader's language and the case's state. */
export const patientSafetyQuery = (caseId: string, languageCode: string) =>
  queryOptions({
    queryKey: safetyKeys.patient(caseId, languageCode),
    queryFn: async ({ signal }) => {
      const data = await request(CrisisHelp, { caseId, languageCode }, { signal });
      return {
        crisisHelp: data.crisisHelp ?? null,
        emergencyContact: data.caseById?.emergencyContact ?? null,
        antiSuicideContractAt: data.caseById?.antiSuicideContractAt ?? null,
      };
    },
  });

export async function createCall(caseId: string, input: CallInput): Promise<SuicideCall> {
  const data = await request(InsertSuicideCall, { call: { ...input, caseId } });
  const call = data.createCaseSuicideCall?.caseSuicideCall;
  if (!call) throw new Error('Expected exactly one result'); // spec §5
  return call;
}

export async function updateCall(id: string, patch: Partial<CallInput>): Promise<SuicideCall> {
  const data = await request(UpdateSuicideCall, { id, patch });
  const call = data.updateCaseSuicideCallById?.caseSuicideCall;
  if (!call) throw new Error('Expected exactly one result'); // spec §5
  return call;
}

export async function saveEmergencyContact(caseId: string, emergencyContact: string): Promise<string | null> {
  const data = await request(SetEmergencyContact, { caseId, emergencyContact });
  return data.setEmergencyContact?.case?.emergencyContact ?? null;
}

export async function confirmAntiSuicideContract(caseId: string): Promise<string | null> {
  const data = await request(ConfirmAntiSuicideContract, { caseId });
  return data.confirmAntiSuicideContract?.datetime ?? null;
}

/**
 * After a call is saved, the contract recorded or the emergency contact given: everything of
 * safety (the case's calls and section, the overview, the patient's panel), the case page (its
 * emergency contact, exclusion and dropout fields) and the case lists (the risk mark); a call
 * may open workflow tasks too.
 */
export const refetchAfterSafetyChange = (client: QueryClient) =>
  Promise.all([
    client.invalidateQueries({ queryKey: safetyKeys.all }),
    client.invalidateQueries({ queryKey: ['cases'] }),
    client.invalidateQueries({ queryKey: ['tasks'] }),
  ]);
