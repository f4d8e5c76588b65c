/**
 * Record or update a suicide-risk call (spec §3 CaseSuicideCall). One column on phones; the
 * follow-up date shows only with a follow-up contact and the exclusion reason only with
 * "exclude patient", so the form cannot send what the database would refuse; the same rules
 * (src/domain/safety.ts) are checked before sending and by the database after.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { fromLocalInput, toLocalInput } from '../../../domain/format';
import { callProblems, RISK_VALUES, SUICIDE_SCORE_MAX, type RiskValue } from '../../../domain/safety';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { useDiscardPrompt } from '../../ui/useDiscardPrompt';
import { Alert, Checkbox, SelectField, TextArea, TextField } from '../../ui/ui';
import { createCall, refetchAfterSafetyChange, updateCall, type CallInput, type SuicideCall } from './api';
import { SafetyError } from './SafetyError';

interface Values {
  callDate: string;
  patientReached: boolean;
  riskOfSuicide: string;
  suicideScore: string;
  detailedDescription: string;
  followUpContact: boolean;
  followUpDescription: string;
  followUpDate: string;
  informCoordinator: boolean;
  excludePatient: boolean;
  exclusionReason: string;
}

function valuesOf(call: SuicideCall | null, zone: string): Values {
  return {
    callDate: toLocalInput(call ? new Date(call.callDate) : new Date(), zone),
    patientReached: call?.patientReached ?? false,
    riskOfSuicide: call?.riskOfSuicide ?? '',
    suicideScore: call?.suicideScore === null || call?.suicideScore === undefined ? '' : String(call.suicideScore),
    detailedDescription: call?.detailedDescription ?? '',
    followUpContact: call?.followUpContact ?? false,
    followUpDescription: call?.followUpDescription ?? '',
    followUpDate: call?.followUpDate ? toLocalInput(new Date(call.followUpDate), zone) : '',
    informCoordinator: call?.informCoordinator ?? false,
    excludePatient: call?.excludePatient ?? false,
    exclusionReason: call?.exclusionReason ?? '',
  };
}

function inputOf(values: Values, zone: string): CallInput {
  const followUpDate = values.followUpContact && values.followUpDate ? fromLocalInput(values.followUpDate, zone) : null;
  const callDate = fromLocalInput(values.callDate, zone) ?? new Date();
  return {
    callDate: callDate.toISOString(),
    patientReached: values.patientReached,
    riskOfSuicide: (values.riskOfSuicide || null) as RiskValue | null,
    suicideScore: values.suicideScore.trim() === '' ? null : Number(values.suicideScore),
    detailedDescription: values.detailedDescription.trim() || null,
    followUpContact: values.followUpContact,
    followUpDescription: values.followUpContact ? values.followUpDescription.trim() || null : null,
    followUpDate: followUpDate ? followUpDate.toISOString() : null,
    informCoordinator: values.informCoordinator,
    excludePatient: values.excludePatient,
    exclusionReason: values.excludePatient ? values.exclusionReason.trim() || null : null,
  };
}

export function CallForm({
  caseId,
  call,
  safetySignalId,
  onSaved,
  onCancel,
}: {
  caseId: string;
  call: SuicideCall | null;
  /** A new call recorded from a risk task answers its risk answer (issue 26). */
  safetySignalId?: string;
  onSaved(call: SuicideCall): void;
  onCancel(): void;
}) {
  const { t } = useTranslation();
  const { user } = useSession();
  const zone = user?.time_zone ?? 'UTC';
  const [saved] = useState(() => valuesOf(call, zone));
  const [values, setValues] = useState(saved);
  const client = useQueryClient();
  const saveCall = useMutation({
    mutationFn: (input: CallInput) => (call ? updateCall(call.id, input) : createCall(caseId, safetySignalId ? { ...input, safetySignalId } : input)),
    onSuccess: (saved) => onSaved(saved),
    onSettled: () => refetchAfterSafetyChange(client),
  });
  const busy = saveCall.isPending;
  const error = saveCall.error ? asApiError(saveCall.error) : null;
  const [problems, setProblems] = useState<string[]>([]);
  const dirty = JSON.stringify(values) !== JSON.stringify(saved);
  useDiscardPrompt(dirty);
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((v) => ({ ...v, [key]: value }));
  const lockedInform = Boolean(call?.informCoordinator);
  const lockedExclude = Boolean(call?.excludePatient);

  const save = (event: FormEvent) => {
    event.preventDefault();
    const input = inputOf(values, zone);
    const found = callProblems(input);
    setProblems(found);
    if (found.length === 0) saveCall.mutate(input);
  };

  const riskOptions = [{ value: '', label: t('safety.call.riskUnknown') }, ...RISK_VALUES.map((r) => ({ value: r, label: t(`safety.risk.${r}`) }))];
  return (
    <form className="safety-call-form" onSubmit={save} noValidate aria-labelledby="safety-call-form-title">
      <h3 id="safety-call-form-title">{call ? t('safety.call.editTitle') : t('safety.call.newTitle')}</h3>
      <TextField label={t('safety.call.callDate')} type="datetime-local" name="callDate" required value={values.callDate} onChange={(e) => set('callDate', e.target.value)} />
      <Checkbox label={t('safety.call.patientReached')} name="patientReached" checked={values.patientReached} onChange={(e) => set('patientReached', e.target.checked)} />
      <SelectField label={t('safety.call.riskOfSuicide')} name="riskOfSuicide" options={riskOptions} value={values.riskOfSuicide} onChange={(e) => set('riskOfSuicide', e.target.value)} />
      <TextField
        label={t('safety.call.suicideScore')}
        hint={t('safety.call.suicideScoreHint', { max: SUICIDE_SCORE_MAX })}
        type="number"
        inputMode="numeric"
        min={0}
        max={SUICIDE_SCORE_MAX}
        name="suicideScore"
        value={values.suicideScore}
        onChange={(e) => set('suicideScore', e.target.value)}
      />
      <TextArea label={t('safety.call.detailedDescription')} name="detailedDescription" rows={4} maxLength={10000} value={values.detailedDescription} onChange={(e) => set('detailedDescription', e.target.value)} />
      <Checkbox label={t('safety.call.followUpContact')} name="followUpContact" checked={values.followUpContact} onChange={(e) => set('followUpContact', e.target.checked)} />
      {values.followUpContact ? (
        <>
          <TextField label={t('safety.call.followUpDate')} hint={t('safety.call.followUpDateHint')} type="datetime-local" name="followUpDate" value={values.followUpDate} onChange={(e) => set('followUpDate', e.target.value)} />
          <TextArea label={t('safety.call.followUpDescription')} name="followUpDescription" rows={2} maxLength={4000} value={values.followUpDescription} onChange={(e) => set('followUpDescription', e.target.value)} />
        </>
      ) : null}
      <Checkbox
        label={t('safety.call.informCoordinator')}
        name="informCoordinator"
        checked={values.informCoordinator}
        disabled={lockedInform}
        onChange={(e) => set('informCoordinator', e.target.checked)}
      />
      <Checkbox label={t('safety.call.excludePatient')} name="excludePatient" checked={values.excludePatient} disabled={lockedExclude} onChange={(e) => set('excludePatient', e.target.checked)} />
      {values.excludePatient ? (
        <>
          {!lockedExclude ? <Alert kind="warning">{t('safety.call.excludeWarning')}</Alert> : null}
          <TextArea label={t('safety.call.exclusionReason')} name="exclusionReason" rows={2} maxLength={2000} required value={values.exclusionReason} onChange={(e) => set('exclusionReason', e.target.value)} />
        </>
      ) : null}
      {problems.length > 0 ? (
        <Alert kind="error" focusOnShow focusKey={problems}>
          {problems.map((p) => (
            <span key={p} className="safety-problem">
              {t(`safety.errors.${p}`)}
            </span>
          ))}
        </Alert>
      ) : null}
      {error ? <SafetyError error={error} focusOnShow /> : null}
      <div className="button-row">
        <button type="submit" className="button" disabled={busy}>
          {busy ? t('common.sending') : t('safety.call.save')}
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          {t('safety.call.cancel')}
        </button>
      </div>
    </form>
  );
}
