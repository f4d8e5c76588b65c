/**
 * On an outreach task (workflows/engagement.bpmn): why it opened, in words, and a suggested
 * message for that state in the reader's language. The state comes from the process's start
 * variable; the screen never shows the variable itself.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { variableText } from '../../../domain/workflow-tasks';
import { variablesQuery } from '../tasks/api';
import { ENGAGEMENT_STATES, type EngagementState } from './api';

export const OUTREACH_TASK = 'outreachTask';

export function OutreachNote({ processInstanceId }: { processInstanceId: string }) {
  const { t } = useTranslation();
  const { data } = useQuery(variablesQuery(processInstanceId));
  const raw = data?.engagementState ? variableText(data.engagementState) : '';
  const state = (ENGAGEMENT_STATES as readonly string[]).includes(raw) && raw !== 'active' ? (raw as EngagementState) : null;
  if (!state) return null;
  return (
    <section className="card" aria-labelledby="outreach-title">
      <h2 id="outreach-title">{t('engagement.outreach.title')}</h2>
      <p>{t('engagement.outreach.because', { state: t(`engagement.states.${state}`) })}</p>
      <blockquote dir="auto">{t(`engagement.outreach.template.${state}`)}</blockquote>
      <p className="muted">{t('engagement.outreach.hint')}</p>
    </section>
  );
}
