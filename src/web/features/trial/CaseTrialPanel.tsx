/**
 * The trial on the case detail (/admin/cases/{id}): the treatment assignment (coordinators
 * randomize an accepted case here or from the task), the exclusion and dropout flags with their
 * history (coordinators set and clear them with a reason), and for the case's therapists the
 * record of a held or cancelled therapy session (it becomes an invoice item).
 */
import { useState, type FormEvent } from 'react';
import { SignatureManifests } from '../signing/SignatureManifests';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useClock } from '../../ui/useClock';
import { ApiError } from '../../api/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { Alert, Checkbox, SelectField, TextArea, TextField } from '../../ui/ui';
import { caseTrialQuery, changeExclusion, randomizeCase, recordSession, refetchAfterTrialChange, type CaseTrialFacts, type RandomizationCheck } from './api';
import { armName } from './arm-name';
import { TrialError } from './TrialError';

export const EXCLUSION_FLAGS = [
  'excluded', 'excluded_for_bdi_gte45', 'excluded_for_lack_of_email', 'excluded_for_lack_of_internet_access', 'excluded_during_interview',
  'excluded_for_missing_interview', 'excluded_for_minor_age', 'excluded_for_no_trauma_or_low_bdi', 'excluded_for_upcoming_treatment',
  'exclude_from_analysis', 'is_dropout',
] as const;

function flagValue(facts: CaseTrialFacts, flag: string): boolean {
  if (flag === 'exclude_from_analysis') return facts.excludeFromAnalysis;
  if (flag === 'is_dropout') return facts.isDropout;
  return (facts.exclusionFlags as Record<string, boolean> | null)?.[flag] ?? false;
}

function ExclusionForm({ caseId, facts, onChanged }: { caseId: string; facts: CaseTrialFacts; onChanged(): void }) {
  const { t } = useTranslation();
  const [flag, setFlag] = useState<string>('excluded');
  const [reason, setReason] = useState('');
  const [askForPost, setAskForPost] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const confirm = useConfirm();
  const current = flagValue(facts, flag);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    // Setting a flag ends tasks and moves the stage: it is asked first, naming what follows.
    if (!current && reason.trim()) {
      const kind = flag === 'is_dropout' ? 'dropout' : flag === 'exclude_from_analysis' ? 'analysis' : 'exclude';
      const sure = await confirm({
        title: t(`careTeam.confirm.${kind}Title`, { flag: t(`trial.flags.${flag}`) }),
        message: t(`careTeam.confirm.${kind}Message`),
        items: [t('careTeam.confirm.reasonGiven', { reason: reason.trim() })],
        confirmLabel: t(`careTeam.confirm.${kind}Confirm`),
        danger: true,
      });
      if (!sure) return;
    }
    try {
      await changeExclusion(caseId, { flag, value: !current, reason, ...(flag === 'is_dropout' ? { askForPost } : {}) });
      setReason('');
      onChanged();
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="exclusion-form-title">
      <h3 id="exclusion-form-title">{t('trial.exclusion.change')}</h3>
      <SelectField
        label={t('trial.exclusion.flag')}
        name="flag"
        value={flag}
        onChange={(e) => setFlag(e.target.value)}
        options={EXCLUSION_FLAGS.map((f) => ({ value: f, label: `${t(`trial.flags.${f}`)} (${flagValue(facts, f) ? t('trial.exclusion.on') : t('trial.exclusion.off')})` }))}
      />
      <TextArea label={t('trial.exclusion.reason')} name="reason" dir="auto" rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
      {flag === 'is_dropout' && !current ? <Checkbox label={t('trial.exclusion.askForPost')} name="askForPost" checked={askForPost} onChange={(e) => setAskForPost(e.target.checked)} /> : null}
      {!current && flag !== 'exclude_from_analysis' ? <p className="muted">{t(flag === 'is_dropout' ? 'trial.exclusion.dropoutEffect' : 'trial.exclusion.excludeEffect')}</p> : null}
      <TrialError error={error} />
      <button type="submit" className="button button--small">
        {current ? t('trial.exclusion.clear') : t('trial.exclusion.set')}
      </button>
    </form>
  );
}

function SessionForm({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const [when, setWhen] = useState('');
  const [held, setHeld] = useState('held');
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setDone(null);
    const at = new Date(when);
    if (!when || Number.isNaN(at.getTime())) {
      setError(new ApiError(400, 'session_date', ''));
      return;
    }
    try {
      const result = await recordSession({
        caseId,
        sessionAt: at.toISOString(),
        held: held === 'held',
        ...(held === 'held' ? {} : { canceledAt: new Date().toISOString(), canceledByTherapist: held === 'canceledByTherapist' }),
      });
      setDone(result.canceledShortTerm ? t('trial.session.savedShortTerm') : t('trial.session.saved'));
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="session-form-title">
      <h3 id="session-form-title">{t('trial.session.title')}</h3>
      <TextField label={t('trial.session.when')} type="datetime-local" name="sessionAt" value={when} onChange={(e) => setWhen(e.target.value)} />
      <SelectField
        label={t('trial.session.status')}
        name="held"
        value={held}
        onChange={(e) => setHeld(e.target.value)}
        options={['held', 'canceledByPatient', 'canceledByTherapist'].map((v) => ({ value: v, label: t(`trial.session.statuses.${v}`) }))}
      />
      <TrialError error={error} />
      {done ? <p role="status">{done}</p> : null}
      <button type="submit" className="button button--small">
        {t('trial.session.record')}
      </button>
    </form>
  );
}

/** The records disagree on gender: what each says, and which one the stratum uses (0216). */
function genderMismatchText(t: TFunction, check: RandomizationCheck): string {
  const genders = check.genders ?? { registration: check.registeredGender, report: check.reportedGender };
  const records = (Object.entries(genders) as [string, string | null | undefined][])
    .filter(([, gender]) => gender)
    .map(([source, gender]) => `${t(`careTeam.stratum.sources.${source}`)}: ${t(`gender.${gender!}`, { defaultValue: gender! })}`)
    .join('; ');
  return t('careTeam.stratum.mismatch', { records, source: t(`careTeam.stratum.sources.${check.genderSource ?? 'registration'}`) });
}

export function CaseTrialPanel({ caseId, isTherapist }: { caseId: string; isTherapist: boolean }) {
  const clock = useClock();
  const { t } = useTranslation();
  const { user } = useSession();
  const coordinator = Boolean(user?.is_coordinator_account);
  const client = useQueryClient();
  const { data, error } = useQuery(caseTrialQuery(caseId));
  const [drawError, setDrawError] = useState<ApiError | null>(null);
  const confirm = useConfirm();
  const reload = () => void refetchAfterTrialChange(client);
  const draw = async (check: RandomizationCheck | null) => {
    setDrawError(null);
    const sure = await confirm({
      title: t('careTeam.confirm.randomizeTitle'),
      message: t('careTeam.confirm.randomizeMessage'),
      items: check?.genderMismatch ? [genderMismatchText(t, check)] : [],
      confirmLabel: t('trial.case.randomize'),
      danger: true,
    });
    if (!sure) return;
    try {
      await randomizeCase(caseId);
      reload();
    } catch (caught) {
      setDrawError(caught as ApiError);
    }
  };
  if (!data) return <TrialError error={error ? asApiError(error) : null} />;
  const assignment = data.treatmentAssignmentsByCaseIdList[0];
  const check = (data.randomizationCheck ?? null) as RandomizationCheck | null;
  return (
    <section className="trial-panel" aria-labelledby="case-trial-title">
      <h2 id="case-trial-title">{t('trial.case.title')}</h2>
      <dl className="facts">
        <dt>{t('trial.case.treatment')}</dt>
        <dd>
          {assignment ? (
            <>
              <strong>{armName(t, assignment.treatment)}</strong> <span className="muted">({clock.dateTime(assignment.assignedAt)})</span>
            </>
          ) : (
            t('trial.case.notRandomized')
          )}
        </dd>
        {data.isDropout ? (
          <>
            <dt>{t('trial.flags.is_dropout')}</dt>
            <dd dir="auto">{data.dropoutReason}</dd>
          </>
        ) : null}
        {data.excludeFromAnalysis ? (
          <>
            <dt>{t('trial.flags.exclude_from_analysis')}</dt>
            <dd dir="auto">{data.reasonForExclusion}</dd>
          </>
        ) : null}
      </dl>
      {coordinator && !assignment && check?.genderMismatch ? <Alert kind="warning">{genderMismatchText(t, check)}</Alert> : null}
      {coordinator && !assignment && check?.refusal ? <p className="muted">{t(`careTeam.randomize.${check.refusal}`)}</p> : null}
      {coordinator && !assignment && check && !check.refusal ? (
        <div className="button-row">
          <button type="button" className="button" onClick={() => void draw(check)}>
            {t('trial.case.randomize')}
          </button>
        </div>
      ) : null}
      <TrialError error={drawError} />
      {coordinator ? <ExclusionForm caseId={caseId} facts={data} onChanged={reload} /> : null}
      {data.exclusionChangesByCaseIdList.length > 0 ? (
        <>
          <h3>{t('trial.exclusion.history')}</h3>
          <ul className="trial-history">
            {data.exclusionChangesByCaseIdList.map((change) => (
              <li key={change.id}>
                {clock.dateTime(change.changedAt)}: {t(`trial.flags.${change.flag}`)} {change.value ? t('trial.exclusion.on') : t('trial.exclusion.off')} — <span dir="auto">{change.reason}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {/* Issue 30: the signed decisions of the case (randomization, exclusion, dropout). */}
      <SignatureManifests by={{ caseId }} acts={['randomize', 'exclude']} />
      {isTherapist ? <SessionForm caseId={caseId} /> : null}
    </section>
  );
}
