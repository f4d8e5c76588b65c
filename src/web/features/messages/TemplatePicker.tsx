/**
 * Inserting a message template in the composer (care team only, issue 14). The list holds the
 * MESSAGE templates the server found for this case in its patient's language; inserting asks
 * the server to fill the chosen one for this case and writer (aliases, date), then the text is
 * the writer's to edit and send like any message.
 */
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { asApiError } from '../../api/query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { SelectField } from '../../ui/ui';
import { fillMessageTemplate, messageTemplatesQuery, type FilledMessageTemplate } from './api';

export function TemplatePicker({ caseId, onInsert }: { caseId: string; onInsert(filled: FilledMessageTemplate): void }) {
  const { t } = useTranslation();
  const templates = useQuery(messageTemplatesQuery(caseId));
  const [code, setCode] = useState('');
  const fill = useMutation({ mutationFn: () => fillMessageTemplate(caseId, code), onSuccess: onInsert });
  // Without templates for this case there is nothing to offer; a failed list stays quiet too,
  // since writing the message does not depend on it.
  if (!templates.data?.templates.length) return null;
  return (
    <div className="composer-templates">
      <SelectField
        label={t('messages.template')}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        options={[{ value: '', label: '—' }, ...templates.data.templates.map((x) => ({ value: x.code, label: x.title }))]}
      />
      <button type="button" className="button button--secondary button--small" disabled={!code || fill.isPending} onClick={() => fill.mutate()}>
        {t('messages.insertTemplate')}
      </button>
      <ErrorAlert error={fill.error ? asApiError(fill.error) : null} />
    </div>
  );
}
