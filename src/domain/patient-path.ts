/**
 * The patient's path through the trial (issue 25), as the patient sees it: which phase they
 * are in, what they do next and by when, and which destinations their menu offers. The case
 * stage (set by workflows/trial.bpmn) is the backbone; the patient's own open tasks, their
 * booking and the exclusion/dropout flags refine it, because one stage ("interview") covers
 * booking, waiting for the interview and waiting for the decision and allocation.
 *
 * Pure functions: the home page, the menu and their tests read the same rules.
 */
import type { RouteId } from './routes';

export const PATIENT_PHASES = [
  'registration',
  'screening',
  'booking',
  'awaitingInterview',
  'awaitingAllocation',
  'treatment',
  'followUp',
  'counseling',
  'rejected',
  'finished',
  'excluded',
  'droppedOut',
] as const;
export type PatientPhase = (typeof PATIENT_PHASES)[number];

export interface PathTask {
  /** The BPMN task id (screeningTask, bookTask, worksheetTask, …). */
  key: string;
  due: string | null;
}

export interface PathFacts {
  stage: string;
  /** The patient account's `excluded` flag (any exclusion reason). */
  excluded: boolean;
  /** The case's `is_dropout`. */
  dropout: boolean;
  /** The patient's own open tasks (myDueTasks). */
  openTasks: readonly PathTask[];
  /** When the case's booked, not cancelled interview starts, if there is one. */
  bookingStartsAt: string | null;
  now: Date;
}

/** Stages after which the treatment has started: the worksheets and letters exist from here on. */
const TREATMENT_STAGES = new Set(['treatment', 'post', 'fu1', 'fu2']);

/** The phase of the patient's path. An exclusion or a dropout wins over the stage. */
export function patientPhase(facts: PathFacts): PatientPhase {
  if (facts.excluded || facts.stage === 'excluded') return 'excluded';
  if (facts.dropout) return 'droppedOut';
  switch (facts.stage) {
    case 'screening':
      return 'screening';
    case 'interview': {
      if (facts.openTasks.some((task) => task.key === 'bookTask')) return 'booking';
      const startsAt = facts.bookingStartsAt ? Date.parse(facts.bookingStartsAt) : NaN;
      if (Number.isFinite(startsAt) && startsAt > facts.now.getTime()) return 'awaitingInterview';
      // Interview held (or its booking gone without a new booking task): the decision and the
      // allocation are the team's to make now.
      return facts.bookingStartsAt ? 'awaitingAllocation' : 'booking';
    }
    case 'treatment':
      return 'treatment';
    case 'post':
    case 'fu1':
    case 'fu2':
      return 'followUp';
    case 'counseling':
      return 'counseling';
    case 'rejected':
      return 'rejected';
    case 'finished':
      return 'finished';
    default:
      return 'registration';
  }
}

/** Whether the phase comes with the treatment's worksheets and letters. */
export function treatmentStarted(stage: string, phase?: PatientPhase): boolean {
  if (phase === 'treatment' || phase === 'followUp') return true;
  return TREATMENT_STAGES.has(stage);
}

/**
 * The patient tasks in the order a patient should do them when several are open: the measurement
 * that opens a phase first, then the booking, then the worksheets, then the ongoing sessions.
 */
const TASK_ORDER = ['screeningTask', 'preTask', 'bookTask', 'postTask', 'fu1Task', 'fu2Task', 'worksheetTask', 'patientTreatmentTask', 'counselingPatientTask'];

function taskRank(key: string): number {
  const rank = TASK_ORDER.indexOf(key);
  return rank === -1 ? TASK_ORDER.length : rank;
}

/** The patient's next task: by the order above, then the earliest due date. */
export function nextTask<T extends PathTask>(tasks: readonly T[]): T | null {
  const sorted = [...tasks].sort(
    (a, b) => taskRank(a.key) - taskRank(b.key) || (a.due ? Date.parse(a.due) : Infinity) - (b.due ? Date.parse(b.due) : Infinity),
  );
  return sorted[0] ?? null;
}

/**
 * What the patient waits for when no task of theirs is open: the catalog key
 * `patientPath.waiting.<phase>` explains it; these phases have nothing to wait for.
 */
export function waitsForTeam(phase: PatientPhase): boolean {
  return phase === 'awaitingInterview' || phase === 'awaitingAllocation' || phase === 'registration' || phase === 'screening' || phase === 'booking';
}

/**
 * Stages in which an interview may be booked (the server's gate, 0122, says the same): after
 * the screening, before the decision; 'registration' is a case without a trial yet.
 */
export const BOOKING_STAGES: readonly string[] = ['registration', 'interview'];

/** Whether the booking belongs in the patient's menu at this stage. */
export function bookingOpen(stage: string): boolean {
  return BOOKING_STAGES.includes(stage);
}

/** The destinations a patient's phase adds to the menu after `home`'s fixed ones. */
export function phaseDestinations(stage: string): RouteId[] {
  if (stage === 'counseling') return ['pastLetters'];
  return treatmentStarted(stage) ? ['allExercises', 'pastLetters'] : [];
}

// Names ---------------------------------------------------------------------------------------------

export interface NamedPerson {
  alias?: string | null;
  username?: string | null;
}

/**
 * The one display-name rule for people shown to others: the name the person chose (alias),
 * else a word for their role in the case. A username ("demo-interviewer") is a sign-in name,
 * not a name: it is shown only to its owner and to staff who manage accounts.
 */
export function displayName(person: NamedPerson | null | undefined, roleWord: string): string {
  const alias = person?.alias?.trim();
  return alias ? alias : roleWord;
}

/** How the signed-in person is greeted: their chosen name, else their username (theirs to see). */
export function ownName(person: NamedPerson): string {
  return person.alias?.trim() || person.username || '';
}

export type CareRole = 'therapist' | 'interviewer' | 'supervisor' | 'supporter' | 'counselor';

export interface CareMember {
  person: NamedPerson | null;
  actsAsTherapist: boolean;
  actsAsInterviewer: boolean;
  actsAsSupervisor: boolean;
  actsAsSupporter: boolean;
  actsAsCounselor: boolean;
}

/**
 * The roles of a member the patient should know about, by phase: the interviewer until the
 * interview is done, then the therapist (and the counselor on the counseling path). Supervisors
 * and supporters work in the background and are not listed as the patient's contact.
 */
export function careRolesShown(phase: PatientPhase): CareRole[] {
  switch (phase) {
    case 'booking':
    case 'awaitingInterview':
    case 'awaitingAllocation':
      return ['interviewer', 'therapist'];
    case 'treatment':
    case 'followUp':
    case 'droppedOut':
    case 'finished':
      return ['therapist'];
    case 'counseling':
      return ['counselor'];
    case 'registration':
    case 'screening':
    case 'rejected':
    case 'excluded':
      return [];
  }
}

/** The care team as the patient sees it: one line per shown role and person. */
export function careTeam(members: readonly CareMember[], phase: PatientPhase): { role: CareRole; person: NamedPerson | null }[] {
  const flag: Record<CareRole, keyof CareMember> = {
    therapist: 'actsAsTherapist',
    interviewer: 'actsAsInterviewer',
    supervisor: 'actsAsSupervisor',
    supporter: 'actsAsSupporter',
    counselor: 'actsAsCounselor',
  };
  const team: { role: CareRole; person: NamedPerson | null }[] = [];
  for (const role of careRolesShown(phase)) {
    for (const member of members) if (member[flag[role]]) team.push({ role, person: member.person });
  }
  return team;
}
