/**
 * The counseling tasks a person does not tick off on the task page (issue 27): "Assign a
 * counselor" closes when the coordinator assigns one on the case's counseling panel, "Send the
 * closing letter" when the counselor sends a letter. The task page shows where that happens
 * instead of a "complete" button the server would refuse (src/server/workflow/task-hooks.ts).
 */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Alert } from '../../ui/ui';

const FEATURE_TASKS = ['assignCounselorTask', 'counselingLetterTask'] as const;

/** Whether the task is completed by its feature, not on the task page. */
export function isCounselingFeatureTask(taskKey: string): boolean {
  return (FEATURE_TASKS as readonly string[]).includes(taskKey);
}

export function CounselingTaskNote({ taskKey, caseId }: { taskKey: string; caseId: string }) {
  const { t } = useTranslation();
  if (taskKey === 'assignCounselorTask') {
    return (
      <Alert kind="info">
        {t('counseling.taskNote.assign')} <Link to={`/admin/cases/${caseId}`}>{t('counseling.taskNote.openCase')}</Link>
      </Alert>
    );
  }
  if (taskKey === 'counselingLetterTask') return <Alert kind="info">{t('counseling.taskNote.letter')}</Alert>;
  return null;
}
