/**
 * The blinded outcome assessor's home (issue 30 item 6): the cases a coordinator assigned, by
 * case code and the patient's alias only, which assessments are done, a form for the next one
 * (post, then follow-ups) and, after the post assessment, the guess of the arm. The server gives
 * this screen nothing that names an arm (GET /api/blinding/my-cases); the arms appear only as the
 * choices of the guess, which are the trial's public design.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import type { ApiError } from '../../api/client';
import { useConfirm } from '../../ui/confirm';
import { Alert, Page, SelectField, Spinner, TextArea, TextField } from '../../ui/ui';
import { BlindingError } from './BlindingError';
import { blindingKeys, guessOptionsQuery, myAssessmentCasesQuery, recordAssessment, recordGuess, type AssessmentCase } from './api';
import './blinding.css';

const TIMES = ['post', 'fu1', 'fu2'] as const;

function nextTime(c: AssessmentCase): (typeof TIMES)[number] | null {
  if (!c.postAt) return 'post';
  if (!c.fu1At) return 'fu1';
  if (!c.fu2At) return 'fu2';
  return null;
}

function score(text: string): number | null {
  return text.trim() === '' ? null : Number(text);
}

function AssessmentForm({ item, time }: { item: AssessmentCase; time: (typeof TIMES)[number] }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [ptsd, setPtsd] = useState('');
  const [depression, setDepression] = useState('');
  const [notes, setNotes] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await recordAssessment(item.caseId, { timeOfMeasurement: time, ptsdSeverity: score(ptsd), depressionSeverity: score(depression), notes });
      await client.invalidateQueries({ queryKey: blindingKeys.myCases });
    } catch (caught) {
      setError(caught as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const id = `assess-${item.caseId}`;
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby={id}>
      <h4 id={id}>{t('blinding.assessor.enter', { time: t(`blinding.times.${time}`) })}</h4>
      <TextField label={t('blinding.assessor.ptsd')} hint={t('blinding.assessor.ptsdHint')} inputMode="numeric" name="ptsd" value={ptsd} onChange={(e) => setPtsd(e.target.value)} />
      <TextField label={t('blinding.assessor.depression')} hint={t('blinding.assessor.depressionHint')} inputMode="numeric" name="depression" value={depression} onChange={(e) => setDepression(e.target.value)} />
      <TextArea label={t('blinding.assessor.notes')} name="notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
      <BlindingError error={error} />
      <div className="button-row">
        <button type="submit" className="button" disabled={busy} aria-disabled={busy || undefined}>
          {t('blinding.assessor.save')}
        </button>
      </div>
    </form>
  );
}

function GuessForm({ item }: { item: AssessmentCase }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirm = useConfirm();
  const [open, setOpen] = useState(false);
  const options = useQuery({ ...guessOptionsQuery(), enabled: open });
  const [guess, setGuess] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const label = (code: string) => (code === 'dont_know' ? t('blinding.assessor.dontKnow') : t(`careTeam.arms.${code}`, { defaultValue: code }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!guess) return setError({ code: 'guess_unknown' } as ApiError);
    if (!(await confirm({ title: t('blinding.assessor.guessTitle'), message: t('blinding.assessor.guessConfirm', { arm: label(guess) }), confirmLabel: t('blinding.assessor.guessSave') }))) return;
    try {
      await recordGuess(item.caseId, guess);
      await client.invalidateQueries({ queryKey: blindingKeys.myCases });
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  if (!open) {
    return (
      <button type="button" className="button button--secondary" onClick={() => setOpen(true)}>
        {t('blinding.assessor.guessOpen')}
      </button>
    );
  }
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <p className="muted">{t('blinding.assessor.guessIntro')}</p>
      {options.isPending ? <Spinner /> : null}
      {options.data ? (
        <SelectField
          label={t('blinding.assessor.guessLabel')}
          name="guess"
          value={guess}
          onChange={(e) => setGuess(e.target.value)}
          options={[{ value: '', label: t('blinding.assessor.choose') }, ...options.data.options.map((code) => ({ value: code, label: label(code) }))]}
        />
      ) : null}
      <BlindingError error={error} />
      <div className="button-row">
        <button type="submit" className="button">
          {t('blinding.assessor.guessSave')}
        </button>
      </div>
    </form>
  );
}

function CaseCard({ item }: { item: AssessmentCase }) {
  const clock = useClock();
  const { t } = useTranslation();
  const time = nextTime(item);
  const done = TIMES.filter((x) => item[`${x}At`]).map((x) => t('blinding.assessor.doneAt', { time: t(`blinding.times.${x}`), at: clock.dateTime(item[`${x}At`]!) }));
  return (
    <li className="card assessment-case">
      <h3>
        {t('blinding.assessor.caseLabel', { code: item.caseCode })} · <bdi>{item.patientName}</bdi>
      </h3>
      <p className="assessment-case__status muted">{done.length ? done.join(' · ') : t('blinding.assessor.noneYet')}</p>
      {item.unblindedArm ? <Alert kind="warning">{t('blinding.assessor.unblinded', { arm: t(`careTeam.arms.${item.unblindedArm}`, { defaultValue: item.unblindedArm }) })}</Alert> : null}
      {item.postAt && !item.guessed && !item.unblindedArm ? <GuessForm item={item} /> : null}
      {item.guessed ? <p className="muted">{t('blinding.assessor.guessed')}</p> : null}
      {time ? <AssessmentForm item={item} time={time} /> : <p className="muted">{t('blinding.assessor.allDone')}</p>}
    </li>
  );
}

export function AssessorHome({ name }: { name: string }) {
  const { t } = useTranslation();
  const { data, error, isPending } = useQuery(myAssessmentCasesQuery());
  return (
    <Page title={t('home.greeting', { name })}>
      <p>{t('blinding.assessor.intro')}</p>
      <BlindingError error={error as ApiError | null} />
      {isPending ? <Spinner /> : null}
      {data && data.cases.length === 0 ? <p className="muted">{t('blinding.assessor.noCases')}</p> : null}
      <ul className="plain-list">
        {data?.cases.map((item) => (
          <CaseCard key={item.caseId} item={item} />
        ))}
      </ul>
    </Page>
  );
}
