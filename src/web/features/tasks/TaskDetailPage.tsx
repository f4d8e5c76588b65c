/**
 * One workflow task (route /admin/tasks/{id}): what it is, its case and process, the process
 * variables the person may read, and its form (camunda:formData: string, long, boolean, enum,
 * date). Completing it posts the form as Camunda-typed variables to
 * POST /api/workflow/rest/task/{id}/submit-form; then the workflow data is fetched again and the
 * person returns to the list, which says the task was completed. No spinner (spec §2).
 */
import { CounselingTaskNote, isCounselingFeatureTask } from '../counseling/CounselingTaskNote';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { formVariables, initialFormValues, isSupportedField, variableText, type FormFieldError, type FormValues, type TaskFormField } from '../../../domain/workflow-tasks';
import { formatDuration, shownVariables, type VariableKind } from '../../../domain/workflow-variables';
import { currentLocale } from '../../i18n/i18n';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Checkbox, Page, SelectField, TextArea, TextField } from '../../ui/ui';
import { StageName } from '../cases/labels';
import { OUTREACH_TASK, OutreachNote } from '../engagement/OutreachNote';
import { refetchAfterTaskCompleted, submitTaskForm, taskQuery, variablesQuery, type TaskDetail } from './api';
import { useClock } from '../../ui/useClock';
import { DueDate, processName, TaskCaseName, TaskGroups, useDateTime, useTaskName } from './labels';
import type { TaskListState } from './TaskListPage';
import { RandomizeTaskNote, SERVER_FILLED_FIELDS } from '../trial/RandomizeTaskNote';
import { armName } from '../trial/arm-name';
import { isSafetyTaskKey, SafetyTaskView } from '../safety/SafetyTask';
import { ASSIGN_THERAPIST_TASK, AssignTherapistNote, TherapistChoice } from './AssignTherapistField';
import { refusalKeys } from '../../../domain/refusals';

function useFieldLabel() {
  const { t } = useTranslation();
  return {
    label: (field: TaskFormField) => t(`tasks.fields.${field.id}`, { defaultValue: field.label ?? field.id }),
    choice: (field: TaskFormField, choice: { id: string; name?: string }) => t(`tasks.choices.${field.id}.${choice.id}`, { defaultValue: choice.name ?? choice.id }),
  };
}

function FormFieldInput({ taskKey, field, value, error, onChange }: { taskKey: string; field: TaskFormField; value: string | boolean; error: FormFieldError | undefined; onChange(value: string | boolean): void }) {
  const { t } = useTranslation();
  const { label, choice } = useFieldLabel();
  const errors = error ? [{ code: `task_${error}`, message: t(`tasks.fieldErrors.${error}`) }] : [];
  const name = `field-${field.id}`;
  // The therapist is chosen by name (issue 26), not typed as an account id.
  if (taskKey === ASSIGN_THERAPIST_TASK && field.id === 'therapist') return <TherapistChoice value={String(value)} onChange={onChange} errors={errors} />;
  switch (field.type) {
    case 'boolean':
      return <Checkbox label={label(field)} name={name} checked={value === true} onChange={(e) => onChange(e.target.checked)} errors={errors} />;
    case 'enum':
      return (
        <SelectField
          label={label(field)}
          name={name}
          required
          value={String(value)}
          onChange={(e) => onChange(e.target.value)}
          errors={errors}
          options={[{ value: '', label: t('tasks.choose') }, ...(field.values ?? []).map((c) => ({ value: c.id, label: choice(field, c) }))]}
        />
      );
    case 'long':
      return <TextField label={label(field)} name={name} required inputMode="numeric" dir="ltr" value={String(value)} onChange={(e) => onChange(e.target.value)} errors={errors} />;
    case 'date':
      return <TextField label={label(field)} name={name} required type="date" value={String(value)} onChange={(e) => onChange(e.target.value)} errors={errors} />;
    case 'string':
      return <TextArea label={label(field)} name={name} required rows={3} value={String(value)} onChange={(e) => onChange(e.target.value)} errors={errors} />;
    default:
      return (
        <Alert kind="warning" title={label(field)}>
          {t('tasks.unsupportedField', { type: field.type })}
        </Alert>
      );
  }
}

/** A refusal the server named by its code, in the person's language; null for others. */
function refusalText(t: TFunction, body: string): string | null {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    if (typeof code !== 'string') return null;
    const text = t(refusalKeys(code), { defaultValue: '' });
    return text || null;
  } catch {
    return null;
  }
}

function TaskForm({ task }: { task: TaskDetail }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const navigate = useNavigate();
  const client = useQueryClient();
  const taskName = useTaskName();
  // Fields the server fills (the drawn treatment) are not offered in the form.
  const formFields = task.formFields.filter((field) => !SERVER_FILLED_FIELDS[task.taskDefinitionKey]?.includes(field.id));
  const [values, setValues] = useState<FormValues>(() => initialFormValues(formFields));
  const [errors, setErrors] = useState<Record<string, FormFieldError>>({});
  const [failure, setFailure] = useState<{ status: number; body: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const submittable = formFields.every(isSupportedField);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = formVariables(formFields, values, user?.time_zone ?? 'UTC');
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    setFailure(null);
    setBusy(true);
    const outcome = await submitTaskForm(task.id, result.variables);
    setBusy(false);
    if (!outcome.ok) {
      setFailure(outcome);
      return;
    }
    await refetchAfterTaskCompleted(client, task.id);
    const state: TaskListState = { completed: taskName(task) };
    void navigate('/admin/tasks', { state });
  };

  return (
    <section className="card" aria-labelledby="task-form-title">
      <h2 id="task-form-title">{t('tasks.complete')}</h2>
      <RandomizeTaskNote taskKey={task.taskDefinitionKey} />
      <AssignTherapistNote taskKey={task.taskDefinitionKey} />
      {formFields.length === 0 ? <p>{t('tasks.noForm')}</p> : null}
      <form onSubmit={(e) => void submit(e)} noValidate>
        {formFields.map((field) => (
          <FormFieldInput
            key={field.id}
            taskKey={task.taskDefinitionKey}
            field={field}
            value={values[field.id] ?? ''}
            error={errors[field.id]}
            onChange={(value) => setValues((current) => ({ ...current, [field.id]: value }))}
          />
        ))}
        {failure ? (
          <Alert kind="error" title={t('tasks.submitFailed')} focusOnShow focusKey={failure}>
            {failure.status === 0 ? t('errorCodes.network') : refusalText(t, failure.body) ?? t('tasks.submitFailedStatus', { status: failure.status })}
          </Alert>
        ) : null}
        <div className="button-row">
          <button type="submit" className="button" disabled={busy || !submittable} aria-disabled={busy || undefined}>
            {busy ? t('tasks.completing') : t('tasks.completeButton')}
          </button>
          <Link to="/admin/tasks" className="button button--secondary">
            {t('tasks.backToList')}
          </Link>
        </div>
      </form>
    </section>
  );
}

/** The process's facts in words, under translated labels; ids and plumbing stay hidden. */
function Variables({ processInstanceId }: { processInstanceId: string }) {
  const { t } = useTranslation();
  const { data, isPending: loading } = useQuery(variablesQuery(processInstanceId));
  const clock = useClock();
  const shown = shownVariables(data ?? {});
  // The process carries the patient's zone (variable timeZone): its dates name both clocks when they differ.
  const patientZone = data?.timeZone ? variableText(data.timeZone) : null;
  const valueText = (kind: VariableKind, value: unknown): string => {
    const text = variableText({ value });
    switch (kind) {
      case 'duration':
        return formatDuration(text, currentLocale()) ?? text;
      case 'date':
        return Number.isNaN(Date.parse(text)) ? text : clock.forPatient(text, patientZone);
      case 'boolean':
        return value === true || text === 'true' ? t('report.yes') : t('report.no');
      case 'outcome':
        return t(`careTeam.outcomes.${text}`, { defaultValue: text });
      case 'arm':
        return armName(t, text);
      case 'time':
        return t(`careTeam.times.${text}`, { defaultValue: text });
      case 'stage':
        return t(`caseStages.${text}`, { defaultValue: text });
      case 'codes':
        return text
          .split(/[,|]/)
          .filter(Boolean)
          .map((code) => t(`careTeam.reasons.${code}`, { defaultValue: code.replace(/_/g, ' ') }))
          .join(', ');
      case 'text':
        return text;
    }
  };
  return (
    <section className="card" aria-labelledby="task-variables-title">
      <h2 id="task-variables-title">{t('tasks.variables')}</h2>
      {loading ? <p>{t('common.loading')}</p> : null}
      {!loading && data === null ? <p>{t('tasks.variablesHidden')}</p> : null}
      {!loading && data && shown.length === 0 ? <p>{t('tasks.noVariables')}</p> : null}
      {shown.length > 0 ? (
        <dl className="facts">
          {shown.map(({ name, kind, value }) => (
            <div key={name} className="changes__row">
              <dt>{t(`careTeam.variables.${name}`)}</dt>
              <dd dir="auto">{valueText(kind, value)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </section>
  );
}

function TaskFacts({ task }: { task: TaskDetail }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const now = new Date();
  const process = task.workflowInstanceByProcessInstanceId;
  return (
    <dl className="facts card">
      <dt>{t('tasks.case')}</dt>
      <dd>
        <Link to={`/admin/cases/${task.caseId}`}>
          <TaskCaseName task={task} />
        </Link>
        {task.caseByCaseId ? (
          <>
            {' · '}
            <StageName stage={task.caseByCaseId.stage} />
          </>
        ) : null}
      </dd>
      <dt>{t('tasks.for')}</dt>
      <dd>
        <TaskGroups groups={task.candidateGroups} assignee={task.assignee} assigneePerson={task.assigneePerson} />
      </dd>
      <dt>{t('tasks.due')}</dt>
      <dd>{task.endTime ? (task.due ? dateTime(task.due) : t('tasks.noDue')) : <DueDate due={task.due} now={now} patientZone={task.caseByCaseId?.patient?.timeZone} />}</dd>
      {task.followUp ? (
        <>
          <dt>{t('tasks.followUp')}</dt>
          <dd>{dateTime(task.followUp)}</dd>
        </>
      ) : null}
      <dt>{t('tasks.priority')}</dt>
      <dd>{task.priority}</dd>
      <dt>{t('tasks.created')}</dt>
      <dd>{dateTime(task.created)}</dd>
      {process && !isSafetyTaskKey(task.taskDefinitionKey) ? (
        <>
          <dt>{t('tasks.process')}</dt>
          <dd>
            {t('careteam.processVersion', { name: processName(t, process.definitionKey), version: process.definitionVersion })}
            {' · '}
            {t(`tasks.states.${process.state}`, { defaultValue: process.state })}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

export function TaskDetailPage() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const taskName = useTaskName();
  const dateTime = useDateTime();
  const { data: task, error, isPending: loading } = useQuery(taskQuery(id));

  if (!task) {
    return (
      <Page title={t('nav.adminTask')}>
        <ErrorAlert error={error} />
        {loading ? <p>{t('common.loading')}</p> : null}
        {!loading && !error ? <Alert kind="warning">{t('tasks.notFound')}</Alert> : null}
        <Link to="/admin/tasks">{t('tasks.backToList')}</Link>
      </Page>
    );
  }
  return (
    <Page title={taskName(task)}>
      <TaskFacts task={task} />
      {task.endTime ? (
        <Alert kind="info">
          {task.deleteReason === 'completed' ? t('tasks.alreadyCompleted', { when: dateTime(task.endTime) }) : t('tasks.alreadyClosed', { when: dateTime(task.endTime) })}
        </Alert>
      ) : isSafetyTaskKey(task.taskDefinitionKey) ? null : isCounselingFeatureTask(task.taskDefinitionKey) ? (
        <CounselingTaskNote taskKey={task.taskDefinitionKey} caseId={task.caseId} />
      ) : task.mayComplete ? (
        <TaskForm task={task} />
      ) : (
        <Alert kind="info">{t('tasks.notYours')}</Alert>
      )}
      {/* Safety tasks (issue 26) show their patient, answer and calls in words, never variables. */}
      {task.taskDefinitionKey === OUTREACH_TASK ? <OutreachNote processInstanceId={task.processInstanceId} /> : null}
      {isSafetyTaskKey(task.taskDefinitionKey) ? <SafetyTaskView taskId={task.id} /> : <Variables processInstanceId={task.processInstanceId} />}
      <p>
        <Link to="/admin/tasks">{t('tasks.backToList')}</Link>
      </p>
    </Page>
  );
}
