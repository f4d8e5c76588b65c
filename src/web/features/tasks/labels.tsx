/**
 * How tasks read on screen: the BPMN names are English, so known tasks, groups, form fields and
 * timers of workflows/trial.bpmn are translated by their ids, and anything else falls back to
 * the name in the definition.
 */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { isolateIdent } from '../../../domain/bidi';
import { useClock } from '../../ui/useClock';
import { isOverdue } from '../../../domain/workflow-tasks';
import { useSession } from '../../session/session';

export function useTaskName(): (task: { taskDefinitionKey: string; name: string | null }) => string {
  const { t } = useTranslation();
  // Safety tasks (workflows/safety.bpmn) are named in the safety namespace.
  return (task) =>
    t([`tasks.names.${task.taskDefinitionKey}`, `safety.taskNames.${task.taskDefinitionKey}`, `careTeam.taskNames.${task.taskDefinitionKey}`, `counseling.taskNames.${task.taskDefinitionKey}`, `engagement.taskNames.${task.taskDefinitionKey}`], { defaultValue: task.name ?? task.taskDefinitionKey });
}

/** A person's name on a task: the alias they chose; never an account id or username (issue 26). */
export function taskPersonName(person: { alias: string | null } | null | undefined): string | null {
  return person?.alias?.trim() || null;
}

/** Who is to do a task: its groups, and its assignee by name ("you" for oneself). */
export function TaskGroups({ groups, assignee, assigneePerson }: { groups: readonly (string | null)[]; assignee: string | null; assigneePerson?: { alias: string | null } | null }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const parts = groups.filter((g): g is string => Boolean(g)).map((g) => t(`tasks.groups.${g}`, { defaultValue: g }));
  const name = taskPersonName(assigneePerson);
  if (assignee) parts.push(assignee === user?.id ? t('tasks.assignedToMe') : name ? t('careTeam.taskPeople.assignedToNamed', { name }) : t('tasks.assignedToPerson'));
  return <>{parts.length ? parts.join(', ') : t('tasks.nobody')}</>;
}

/** A task's case as people know it: the patient's name and the case code. */
export function TaskCaseName({ task }: { task: { caseByCaseId: { shortId: string; patient?: { alias: string | null } | null } | null } }) {
  const { t } = useTranslation();
  const c = task.caseByCaseId;
  if (!c) return null;
  const name = taskPersonName(c.patient);
  return (
    <bdi>
      {name ? t('careTeam.taskPeople.caseOf', { name, code: isolateIdent(c.shortId) }) : t('careTeam.taskPeople.caseCode', { code: isolateIdent(c.shortId) })}
    </bdi>
  );
}

/** The viewer's clock as one function (the task screens' name for it). */
export function useDateTime(): (value: string | Date) => string {
  return useClock().dateTime;
}

/**
 * The due date in the viewer's clock; overdue ones say so in words and colour (not colour
 * alone). With the patient's zone, the patient's own time is named when it reads differently.
 */
export function DueDate({ due, now, patientZone }: { due: string | null; now: Date; patientZone?: string | null }) {
  const { t } = useTranslation();
  const clock = useClock();
  if (!due) return <span className="muted">{t('tasks.noDue')}</span>;
  const overdue = isOverdue(due, now);
  return (
    <span className={overdue ? 'task-due task-due--overdue' : 'task-due'}>
      <time dateTime={due}>{clock.forPatient(due, patientZone)}</time>
      {overdue ? <span className="badge badge--danger badge--inline task-due__flag">{t('tasks.overdue')}</span> : null}
    </span>
  );
}

/** A timer of a process (my_dates): reminders and follow-up waits of the trial by name. */
export function useTimerLabel(): (entry: { name: string; label: string | null }) => string {
  const { t } = useTranslation();
  return (entry) => {
    if (entry.name.endsWith('Reminder')) return t('tasks.timers.reminder');
    return t(`tasks.timers.${entry.name}`, { defaultValue: entry.label ?? entry.name });
  };
}

/** A workflow model by its name in the person's language ("safety" → "Safety follow-up"). */
export function processName(t: TFunction, definitionKey: unknown): string {
  const key = typeof definitionKey === 'string' ? definitionKey : '';
  return t(`careteam.processes.${key}`, { defaultValue: t('careteam.processes.other') });
}
