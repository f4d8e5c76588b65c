import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { FieldError, FieldErrors } from '../../../domain/accounts';
import { addressableGroups, flagsFor, isCareTeam, type Involvement, type RecipientGroup } from '../../../domain/messages';
import { ApiError } from '../../api/client';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useDiscardPrompt } from '../../ui/useDiscardPrompt';
import { Alert, Checkbox, TextArea, TextField, useFieldErrorText } from '../../ui/ui';
import { createMessage, updateMessage, type FilledMessageTemplate } from './api';
import { TemplatePicker } from './TemplatePicker';
import './messages.css';

/** Sending makes a message final: ask first (spec §8 "send final"). */
export function confirmSendFinal(confirm: ReturnType<typeof useConfirm>, t: TFunction): Promise<boolean> {
  return confirm({ title: t('confirmPrompts.sendFinalTitle'), message: t('confirmPrompts.sendFinalMessage'), confirmLabel: t('common.send') });
}

/** What the composer starts from: a new message, an answer, or one of my drafts. */
export interface ComposerStart {
  draftId: string | null;
  subject: string;
  body: string;
  groups: RecipientGroup[];
}

interface ComposerProps {
  caseId: string;
  involvement: Involvement;
  start: ComposerStart;
  onClose(): void;
  /** A draft was stored (its id); the lists should show it. */
  onSaved(draftId: string): void;
  onSent(): void;
  onDirtyChange(dirty: boolean): void;
}

const SUBJECT_MAX = 300;

function sameGroups(a: readonly RecipientGroup[], b: readonly RecipientGroup[]): boolean {
  return a.length === b.length && a.every((g) => b.includes(g));
}

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'unknown', String(error));
}

/** Client-side checks that spare a round trip; the database enforces the same rules. */
function problemsOf(body: string, groups: readonly RecipientGroup[], send: boolean): FieldErrors {
  const problems: FieldErrors = {};
  if (!body.trim()) problems.body = [{ code: 'message_body_required', message: '' }];
  if (send && groups.length === 0) problems.recipients = [{ code: 'message_recipients_required', message: '' }];
  return problems;
}

function RecipientChoice({ allowed, chosen, errors, onChange }: { allowed: RecipientGroup[]; chosen: RecipientGroup[]; errors: FieldError[] | undefined; onChange(groups: RecipientGroup[]): void }) {
  const { t } = useTranslation();
  const errorText = useFieldErrorText();
  const errorId = useId();
  const toggle = (group: RecipientGroup, on: boolean) => onChange(on ? [...chosen, group] : chosen.filter((g) => g !== group));
  return (
    <fieldset className="field" aria-describedby={errors?.length ? errorId : undefined}>
      <legend>{t('messages.to')}</legend>
      <div className="checkbox-group">
        {allowed.map((group) => (
          <Checkbox key={group} name={`to-${group}`} label={t(`messages.groups.${group}`)} checked={chosen.includes(group)} onChange={(e) => toggle(group, e.target.checked)} />
        ))}
      </div>
      {errors?.length ? (
        <span id={errorId} className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </fieldset>
  );
}

/**
 * Writing a message: subject, text and the recipient groups the writer's roles may address
 * (addressableGroups). Saving keeps a draft only the writer sees; sending makes it part of the
 * case record. Typed text survives every error, and leaving with text asks first (spec §8).
 */
export function Composer({ caseId, involvement, start, onClose, onSaved, onSent, onDirtyChange }: ComposerProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const heading = useRef<HTMLHeadingElement>(null);
  const [draftId, setDraftId] = useState(start.draftId);
  const [baseline, setBaseline] = useState(start);
  const [subject, setSubject] = useState(start.subject);
  const [body, setBody] = useState(start.body);
  const [groups, setGroups] = useState<RecipientGroup[]>(start.groups);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [fields, setFields] = useState<FieldErrors>({});
  const [savedNotice, setSavedNotice] = useState(false);
  const [insertedNotice, setInsertedNotice] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const allowed = addressableGroups(involvement);
  const dirty = subject !== baseline.subject || body !== baseline.body || !sameGroups(groups, baseline.groups);

  useDiscardPrompt(dirty);
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);
  // Moving focus into the composer tells screen-reader users where they are.
  useEffect(() => heading.current?.focus(), []);

  const save = async (send: boolean) => {
    const problems = problemsOf(body, groups, send);
    setFields(problems);
    setSavedNotice(false);
    if (Object.keys(problems).length > 0) return;
    // A sent message is part of the case record and can no longer be changed (spec §8).
    if (send && !(await confirmSendFinal(confirm, t))) return;
    setBusy(true);
    setError(null);
    const message = { subject: subject.trim() || null, body, ...flagsFor(groups) };
    try {
      let savedId = draftId;
      if (draftId) await updateMessage(draftId, message, send);
      else {
        const created = await createMessage(caseId, message, send);
        savedId = created.id;
        if (!send) setDraftId(created.id);
      }
      if (send) {
        onDirtyChange(false);
        onSent();
        return;
      }
      setBaseline({ draftId: savedId, subject, body, groups });
      setSavedNotice(true);
      if (savedId) onSaved(savedId);
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  /** A filled template joins the text (after a blank line) and, when it has none yet, the subject. */
  const insertTemplate = (filled: FilledMessageTemplate) => {
    setBody((current) => (current.trim() ? `${current.trimEnd()}\n\n${filled.body}` : filled.body));
    if (filled.subject && !subject.trim()) setSubject(filled.subject);
    setInsertedNotice(true);
    setSavedNotice(false);
    // The writer goes on in the text, which they should read before sending.
    (form.current?.elements.namedItem('body') as HTMLTextAreaElement | null)?.focus();
  };

  const close = async () => {
    if (dirty && !(await confirm({ title: t('confirmPrompts.closeWithoutSavingTitle'), message: t('confirmPrompts.closeWithoutSavingMessage'), confirmLabel: t('messages.closeAnyway'), danger: true }))) return;
    onDirtyChange(false);
    onClose();
  };

  return (
    <section className="card composer" aria-labelledby="composer-title">
      <h2 id="composer-title" ref={heading} tabIndex={-1}>
        {draftId ? t('messages.editDraftTitle') : t('messages.newMessage')}
      </h2>
      {savedNotice && !dirty ? <Alert kind="success">{t('messages.draftSaved')}</Alert> : null}
      <ErrorAlert error={error} focusOnShow />
      <form
        ref={form}
        className="form"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void save(true);
        }}
      >
        <RecipientChoice allowed={allowed} chosen={groups} errors={fields.recipients} onChange={setGroups} />
        <TextField label={t('messages.subject')} name="subject" dir="auto" maxLength={SUBJECT_MAX} value={subject} onChange={(e) => setSubject(e.target.value)} />
        {isCareTeam(involvement) ? <TemplatePicker caseId={caseId} onInsert={insertTemplate} /> : null}
        <TextArea label={t('messages.body')} name="body" required rows={8} value={body} errors={fields.body} onChange={(e) => { setBody(e.target.value); setInsertedNotice(false); }} />
        {insertedNotice ? <p role="status">{t('messages.templateInserted')}</p> : null}
        <div className="button-row">
          <button type="submit" className="button" disabled={busy}>
            {busy ? t('common.sending') : t('common.send')}
          </button>
          <button type="button" className="button button--secondary" disabled={busy} onClick={() => void save(false)}>
            {t('messages.saveDraft')}
          </button>
          <button type="button" className="button button--secondary" disabled={busy} onClick={() => void close()}>
            {t('messages.close')}
          </button>
        </div>
      </form>
    </section>
  );
}
