/**
 * The open workflow tasks of one case, for its detail page: name (linked to the task screen),
 * due date with overdue marked, and who is to do it.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { caseTasksQuery } from './api';
import { DueDate, TaskGroups, useTaskName } from './labels';

export function CaseTasksSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  const { data, error, dataUpdatedAt } = useQuery(caseTasksQuery(caseId));
  const now = new Date(dataUpdatedAt || Date.now());
  return (
    <section aria-labelledby="case-tasks-title">
      <h2 id="case-tasks-title">{t('tasks.caseTasks')}</h2>
      <ErrorAlert error={error} />
      {data && data.length === 0 ? <p>{t('tasks.noOpenTasks')}</p> : null}
      {data && data.length > 0 ? (
        <ul className="plain-list case-tasks">
          {data.map((task) => (
            <li key={task.id}>
              <Link to={`/admin/tasks/${task.id}`}>{taskName(task)}</Link>
              {' · '}
              <DueDate due={task.due} now={now} patientZone={task.caseByCaseId?.patient?.timeZone} />
              {' · '}
              <TaskGroups groups={task.candidateGroups} assignee={task.assignee} assigneePerson={task.assigneePerson} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
