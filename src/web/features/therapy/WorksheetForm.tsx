/**
 * The patient's form for one worksheet entry. Every change is kept on the device and saved as
 * they type; a lost connection only delays the save. Sending asks for confirmation (spec §8: it
 * can no longer be changed) and needs every change saved first.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { WORKSHEETS, isReadyToSend, type WorksheetCode } from '../../../domain/worksheets';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import { asApiError } from '../../api/query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirm } from '../../ui/confirm';
import { Alert, Checkbox, Spinner, TextArea, TextField } from '../../ui/ui';
import { refetchAfterWorksheet, sendEntry, type Feedback } from './api';
import { useWorksheetEntry } from './useWorksheetEntry';
import { EntryFields, FeedbackList } from './WorksheetParts';

interface Props {
  code: WorksheetCode;
  entryId: string;
  caseId: string;
  userId: string;
  feedback: Feedback[];
  onDone(): void;
}

export function WorksheetForm({ code, entryId, caseId, userId, feedback, onDone }: Props) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const client = useQueryClient();
  const state = useWorksheetEntry(code, entryId, caseId, userId);
  const [sendError, setSendError] = useState<unknown>(null);
  const [notSaved, setNotSaved] = useState(false);
  const [sending, setSending] = useState(false);
  const definition = WORKSHEETS[code];

  if (state.loadError) return <ErrorAlert error={state.loadError} />;
  if (!state.values) return <Spinner />;
  if (state.stored?.published_at) {
    return (
      <div className="therapy-entry">
        <Alert kind="info">{t('therapy.sentNote')}</Alert>
        <EntryFields code={code} entry={state.stored} />
        <FeedbackList feedback={feedback.filter((f) => f.worksheet_id === entryId)} />
        <button type="button" className="button button--secondary" onClick={onDone}>
          {t('therapy.back')}
        </button>
      </div>
    );
  }
  const values = state.values;

  async function send() {
    setSendError(null);
    setNotSaved(false);
    if (!(await state.flush())) {
      setNotSaved(true);
      return;
    }
    const ok = await confirm({ title: t('therapy.confirmSendTitle'), message: t('therapy.confirmSendMessage'), confirmLabel: t('therapy.send') });
    if (!ok) return;
    setSending(true);
    try {
      await sendEntry(code, entryId, caseId, values);
      await refetchAfterWorksheet(client, caseId);
      state.reload();
    } catch (error) {
      setSendError(error);
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="therapy-entry" onSubmit={(e) => { e.preventDefault(); void send(); }}>
      <p className="therapy-intro">{t(`therapy.sheet.${code}.intro`)}</p>
      {definition.fields.map((field) => {
        const label = t(`therapy.field.${field.name}`);
        if (field.kind === 'text') {
          const value = typeof values[field.name] === 'string' ? (values[field.name] as string) : '';
          return field.maxLength <= 300 ? (
            <TextField key={field.name} label={label} value={value} maxLength={field.maxLength} dir="auto" onChange={(e) => state.change(field.name, e.target.value, true)} />
          ) : (
            <TextArea key={field.name} label={label} value={value} maxLength={field.maxLength} onChange={(e) => state.change(field.name, e.target.value, true)} />
          );
        }
        if (field.kind === 'scale') {
          const value = typeof values[field.name] === 'number' ? String(values[field.name]) : '';
          return (
            <TextField
              key={field.name}
              label={label}
              hint={t('therapy.scaleHint', { min: field.min, max: field.max })}
              type="number"
              inputMode="numeric"
              min={field.min}
              max={field.max}
              value={value}
              onChange={(e) => {
                const n = e.target.value === '' ? null : Math.max(field.min, Math.min(field.max, Math.round(Number(e.target.value))));
                state.change(field.name, n);
              }}
            />
          );
        }
        const chosen = Array.isArray(values[field.name]) ? (values[field.name] as string[]) : [];
        return (
          <fieldset key={field.name} className="therapy-choices">
            <legend>{label}</legend>
            {field.options.map((option) => (
              <Checkbox
                key={option}
                label={t(`therapy.bias.${option}`)}
                checked={chosen.includes(option)}
                onChange={(e) => state.change(field.name, (e.target.checked ? [...chosen, option] : chosen.filter((c) => c !== option)) as AnswerChanges[string])}
              />
            ))}
          </fieldset>
        );
      })}
      <p className={`save-status save-status--${state.saveState}`} role="status" aria-live="polite">
        {t(`therapy.saveState.${state.saveState}`)}
      </p>
      {notSaved ? <Alert kind="warning">{t('therapy.notSavedYet')}</Alert> : null}
      <ErrorAlert error={state.rejected ?? (sendError ? asApiError(sendError) : null)} />
      <div className="button-row">
        <button type="submit" className="button" disabled={sending || !isReadyToSend(definition, values)}>
          {sending ? t('common.sending') : t('therapy.send')}
        </button>
        <button type="button" className="button button--secondary" onClick={onDone}>
          {t('therapy.back')}
        </button>
      </div>
      {!isReadyToSend(definition, values) ? <p className="field__hint">{t('therapy.fillRequired', { field: t(`therapy.field.${definition.required}`) })}</p> : null}
    </form>
  );
}
