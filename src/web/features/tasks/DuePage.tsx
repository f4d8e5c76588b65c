/**
 * Due now (route /due, open): the open tasks that are the signed-in person's to do
 * (myDueTasks, 0014), soonest first, each with the place where it is done — a patient's
 * questionnaires or booking, a staff member's task screen. Signed out, it asks the person to
 * sign in and come back. A task done elsewhere disappears: the list is fetched again when the
 * person returns to the tab and after a task is completed here (spec §4).
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { isStaff } from '../../../domain/roles';
import { dueTaskPath } from '../../../domain/workflow-tasks';
import { accountFlags } from '../../session/profile';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page } from '../../ui/ui';
import { dueTasksQuery } from './api';
import { DueDate, TaskCaseName, useTaskName } from './labels';

function DueList({ staff }: { staff: boolean }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  const { data, error, isPending: loading, dataUpdatedAt } = useQuery(dueTasksQuery());
  const now = new Date(dataUpdatedAt || Date.now());

  return (
    <>
      <ErrorAlert error={error} />
      {!data && loading ? <p role="status">{t('common.loading')}</p> : null}
      {data && data.length === 0 ? <p role="status">{t('tasks.nothingDue')}</p> : null}
      {data && data.length > 0 ? (
        <ul className="case-cards due-list" aria-label={t('tasks.dueList')}>
          {data.map((task) => {
            const path = dueTaskPath(task, staff);
            return (
              <li key={task.id} className="card card--flat">
                <h2 className="case-cards__title">{taskName(task)}</h2>
                <dl className="facts">
                  <dt>{t('tasks.due')}</dt>
                  <dd>
                    <DueDate due={task.due} now={now} patientZone={task.caseByCaseId?.patient?.timeZone} />
                  </dd>
                  {staff ? (
                    <>
                      <dt>{t('tasks.case')}</dt>
                      <dd>
                        <TaskCaseName task={task} />
                      </dd>
                    </>
                  ) : null}
                </dl>
                {path ? (
                  <p>
                    <Link className="button" to={path}>
                      {t(`tasks.actions.${task.taskDefinitionKey}`, { defaultValue: t('tasks.actions.open') })}
                      <span className="visually-hidden">: {taskName(task)}</span>
                    </Link>
                  </p>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </>
  );
}

export function DuePage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const flags = accountFlags(user);
  return (
    <Page title={t('nav.due')} width="reading">
      {user && flags ? (
        <DueList staff={isStaff(flags)} />
      ) : (
        <div className="card">
          <p>{t('tasks.signInForDue')}</p>
          <Link className="button" to="/login?returnTo=/due">
            {t('tasks.signIn')}
          </Link>
        </div>
      )}
    </Page>
  );
}
