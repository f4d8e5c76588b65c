/**
 * Letters of one case for its care team (mounted on the case page). Therapists and counselors
 * start a letter from a template (the server fills the placeholders), edit it with a preview,
 * and send it after the confirmation of spec §8; sent letters are shown as they were sent.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirm, useConfirmWithReason } from '../../ui/confirm';
import { letterOtherArmQuery, refetchAfterArmSend } from '../arms/api';
import { SelectField, Spinner, TextArea, TextField } from '../../ui/ui';
import { caseLettersQuery, letterTemplatesQuery, refetchAfterLetter, saveLetter, startLetter, type Letter } from './api';
import { LetterBody } from './WorksheetParts';
import { useClock } from '../../ui/useClock';
import './therapy.css';

export function CaseLettersSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const letters = useQuery(caseLettersQuery(caseId));
  return (
    <section className="card" aria-labelledby="case-letters">
      <h2 id="case-letters">{t('therapy.lettersTitle')}</h2>
      <NewLetter caseId={caseId} />
      {letters.error ? <ErrorAlert error={asApiError(letters.error)} /> : null}
      {letters.isPending ? <Spinner /> : null}
      {letters.data?.map((letter) =>
        letter.published_at ? <SentLetter key={letter.id} letter={letter} /> : letter.sender_id === user?.id ? <LetterEditor key={letter.id} letter={letter} /> : null,
      )}
    </section>
  );
}

function NewLetter({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const templates = useQuery(letterTemplatesQuery());
  const [templateId, setTemplateId] = useState('');
  const start = useMutation({ mutationFn: () => startLetter(caseId, templateId), onSettled: () => refetchAfterLetter(client, caseId) });
  if (!templates.data?.length) return <p>{t('therapy.noLetterTemplates')}</p>;
  const label = (x: (typeof templates.data)[number]) =>
    [x.title, x.language_code.toUpperCase(), x.treatment_code, x.reader_gender && `${t('therapy.reader')}: ${t(`therapy.gender.${x.reader_gender}`)}`, x.writer_gender && `${t('therapy.writer')}: ${t(`therapy.gender.${x.writer_gender}`)}`]
      .filter(Boolean)
      .join(' · ');
  return (
    <form className="therapy-new-letter" onSubmit={(e) => { e.preventDefault(); start.mutate(); }}>
      <SelectField
        label={t('therapy.chooseTemplate')}
        value={templateId}
        onChange={(e) => setTemplateId(e.target.value)}
        options={[{ value: '', label: '—' }, ...templates.data.map((x) => ({ value: x.id, label: label(x) }))]}
      />
      <ErrorAlert error={start.error ? asApiError(start.error) : null} />
      <button type="submit" className="button button--small" disabled={!templateId || start.isPending}>
        {t('therapy.startLetter')}
      </button>
    </form>
  );
}

function SentLetter({ letter }: { letter: Letter }) {
  const clock = useClock();
  const { t, i18n } = useTranslation();
  return (
    <article className="therapy-letter" lang={letter.language_code} dir={letter.language_code === 'ar' ? 'rtl' : 'ltr'}>
      <p className="therapy-letter__meta" lang={i18n.language} dir="auto">{t('therapy.sentOn', { date: clock.dateTime(letter.published_at!) })}</p>
      {letter.subject ? <h3>{letter.subject}</h3> : null}
      <LetterBody body={letter.body} />
    </article>
  );
}

function LetterEditor({ letter }: { letter: Letter }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const confirmWithReason = useConfirmWithReason();
  const client = useQueryClient();
  // A template of another arm (issue 27 item 3): sending needs a reason, recorded as contamination.
  const otherArm = useQuery(letterOtherArmQuery(letter.id));
  const [subject, setSubject] = useState(letter.subject ?? '');
  const [body, setBody] = useState(letter.body);
  const [preview, setPreview] = useState(false);
  const [note, setNote] = useState(false);
  const save = useMutation({
    mutationFn: ({ send, reason }: { send: boolean; reason?: string }) =>
      saveLetter({ id: letter.id, case_id: letter.case_id, subject: subject || null, body }, send, reason),
    onSuccess: (_, { send }) => setNote(!send),
    onSettled: (_, __, { reason }) =>
      Promise.all([refetchAfterLetter(client, letter.case_id), reason ? refetchAfterArmSend(client, letter.case_id) : null]),
  });
  async function send() {
    if (otherArm.data) {
      const reason = await confirmWithReason({
        title: t('trialRules.letterConfirmTitle'),
        message: t('trialRules.letterConfirmMessage'),
        reasonLabel: t('arms.reasonLabel'),
        confirmLabel: t('therapy.send'),
      });
      if (reason !== null) save.mutate({ send: true, reason });
      return;
    }
    if (await confirm({ title: t('therapy.confirmLetterTitle'), message: t('therapy.confirmLetterMessage'), confirmLabel: t('therapy.send') })) save.mutate({ send: true });
  }
  const dir = letter.language_code === 'ar' ? 'rtl' : 'ltr';
  return (
    <form className="therapy-letter-editor" onSubmit={(e) => { e.preventDefault(); void send(); }}>
      <h3>{t('therapy.letterDraft')}</h3>
      {otherArm.data ? <p className="alert alert--warning">{t('trialRules.letterOtherArm')}</p> : null}
      <TextField label={t('therapy.letterSubject')} value={subject} maxLength={300} dir={dir} onChange={(e) => { setSubject(e.target.value); setNote(false); }} />
      <TextArea label={t('therapy.letterBody')} value={body} rows={12} maxLength={50000} dir={dir} onChange={(e) => { setBody(e.target.value); setNote(false); }} />
      {preview ? (
        <article className="therapy-letter" aria-label={t('therapy.preview')} lang={letter.language_code} dir={dir}>
          {subject ? <h3>{subject}</h3> : null}
          <LetterBody body={body} />
        </article>
      ) : null}
      {note ? <p role="status">{t('therapy.letterDraftSaved')}</p> : null}
      <ErrorAlert error={save.error ? asApiError(save.error) : null} />
      <div className="button-row">
        <button type="submit" className="button button--small" disabled={save.isPending || body.trim() === ''}>
          {t('therapy.sendLetter')}
        </button>
        <button type="button" className="button button--secondary button--small" disabled={save.isPending} onClick={() => save.mutate({ send: false })}>
          {t('therapy.saveDraft')}
        </button>
        <button type="button" className="button button--secondary button--small" aria-pressed={preview} onClick={() => setPreview((p) => !p)}>
          {t('therapy.preview')}
        </button>
      </div>
    </form>
  );
}
