/**
 * "My path" (/workflows) for a patient (issue 25): only the steps written for patients
 * (src/domain/patient-facing.ts), in their words: what is open now with the button to its place,
 * what is done, and the dates ahead (the follow-ups). No process ids, safety processes,
 * reminders, variables or BPMN names: the rule is tested over every model in workflows/.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { isPatientFacing, isPatientFacingTask, patientStepKey } from '../../../domain/patient-facing';
import { dueTaskPath } from '../../../domain/workflow-tasks';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, Spinner } from '../../ui/ui';
import { processesQuery, taskLogQueryOptions } from '../tasks/api';
import { useDateTime } from '../tasks/labels';

export function PatientWorkflows() {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const processes = useQuery(processesQuery());
  const log = useQuery(taskLogQueryOptions());
  const [running, dates] = processes.data ?? [[], []];
  const definitionOf = new Map(running.map((p) => [p.id, p.definition_key ? String(p.definition_key) : null]));
  const steps = (log.data ?? []).filter((entry) => isPatientFacingTask(definitionOf.get(entry.process_instance_id), String(entry.task_definition_key)));
  const open = steps.filter((s) => !s.end_time);
  const done = steps.filter((s) => s.end_time).sort((a, b) => String(b.end_time).localeCompare(String(a.end_time)));
  const ahead = dates.filter((d) => isPatientFacing(definitionOf.get(d.process_instance_id), d.name, 'date'));
  const text = (key: string) => t(patientStepKey(key));
  return (
    <Page title={t('patientPath.pathTitle')} width="reading">
      <p>{t('patientPath.pathIntro')}</p>
      <ErrorAlert error={processes.error ?? log.error} />
      {processes.isPending || log.isPending ? <Spinner /> : null}
      <section aria-labelledby="open-steps">
        <h2 id="open-steps">{t('patientPath.openSteps')}</h2>
        {open.length === 0 ? <p className="muted">{t('patientPath.nothingOpen')}</p> : null}
        <ul className="case-cards">
          {open.map((step) => {
            const key = String(step.task_definition_key);
            const path = dueTaskPath({ id: step.id, taskDefinitionKey: key, candidateGroups: ['patients'] }, false);
            return (
              <li key={step.id} className="card card--flat">
                <h3 className="case-cards__title">{text(key)}</h3>
                {step.due ? <p className="muted">{t('patientPath.stepDue', { when: dateTime(String(step.due)) })}</p> : null}
                {path ? (
                  <Link className="button" to={path}>
                    {t(`tasks.actions.${key}`, { defaultValue: t('tasks.actions.open') })}
                  </Link>
                ) : null}
              </li>
            );
          })}
        </ul>
      </section>
      {ahead.length > 0 ? (
        <section aria-labelledby="dates-ahead">
          <h2 id="dates-ahead">{t('patientPath.datesAhead')}</h2>
          <ul className="plain-list">
            {ahead.map((d) => (
              <li key={d.id}>
                <time dateTime={d.timestamp}>{dateTime(d.timestamp)}</time>: {text(d.name)}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="done-steps">
        <h2 id="done-steps">{t('patientPath.doneSteps')}</h2>
        {done.length === 0 ? <p className="muted">{t('patientPath.nothingDone')}</p> : null}
        <ul className="plain-list">
          {done.map((step) => (
            <li key={step.id}>
              {text(String(step.task_definition_key))}{' '}
              <span className="muted">
                · {t(step.delete_reason === 'completed' ? 'patientPath.stepDone' : 'patientPath.stepEnded', { when: dateTime(String(step.end_time)) })}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}
