import { useTranslation } from 'react-i18next';
import { Alert } from '../../ui/ui';

/** Task keys whose form fields the server fills (src/server/workflow/task-hooks.ts). */
export const SERVER_FILLED_FIELDS: Record<string, readonly string[]> = { randomizeTask: ['treatment'] };

export function RandomizeTaskNote({ taskKey }: { taskKey: string }) {
  const { t } = useTranslation();
  if (taskKey !== 'randomizeTask') return null;
  return <Alert kind="info">{t('trial.task.drawNote')}</Alert>;
}
