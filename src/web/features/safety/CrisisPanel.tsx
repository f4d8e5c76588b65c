/**
 * The patient's side of clinical safety (issue 13). When an answer signals risk (the
 * instrument's safety flags, src/domain/safety.ts) the questionnaire shows at once a calm panel:
 * the trial's crisis contacts in the patient's language (content template "crisis_help"; a
 * plain fallback while none is configured), a request for an emergency contact when the case
 * has none, and the anti-suicide contract to confirm. The server raised the signal for the care
 * team in the same transaction as the answer; this panel is for the patient.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Answers, InstrumentDefinition } from '../../../domain/instruments';
import { useClock } from '../../ui/useClock';
import { safetyFlags } from '../../../domain/safety';
import { linkPhoneNumbers } from '../../../domain/phone-links';
import { useEffect } from 'react';
import { refetchPatientPath } from '../patient/api';
import type { ApiError } from '../../api/client';
import { asApiError } from '../../api/query';
import { Spinner, TextArea } from '../../ui/ui';
import { Markdown } from '../content/markdown';
import { confirmAntiSuicideContract, patientSafetyQuery, refetchAfterSafetyChange, saveEmergencyContact } from './api';
import { SafetyError } from './SafetyError';
import './safety.css';

/** Mounted in the questionnaire form: shows the crisis panel while the answers signal risk. */
export function SafetyAnswerPanel({ definition, answers, caseId }: { definition: InstrumentDefinition; answers: Answers; caseId: string }) {
  if (safetyFlags(definition, answers).length === 0) return null;
  return <CrisisPanel caseId={caseId} />;
}

export function CrisisPanel({ caseId }: { caseId: string }) {
  const { t, i18n } = useTranslation();
  const { data: state, error } = useQuery(patientSafetyQuery(caseId, i18n.language));
  const client = useQueryClient();
  // The risk answer was stored with its signal: the crisis entry of every patient page follows (issue 25).
  useEffect(() => {
    void refetchPatientPath(client);
  }, [client]);

  return (
    <section className="crisis-panel" aria-labelledby="crisis-panel-title" role="region">
      <h3 id="crisis-panel-title" className="crisis-panel__title">
        {t('safety.crisis.title')}
      </h3>
      <p>{t('safety.crisis.intro')}</p>
      <p>
        <strong>{t('safety.crisis.emergency')}</strong>
      </p>
      {!state && !error ? <Spinner /> : null}
      {state?.crisisHelp ? (
        // The contacts in their own language and direction; each phone number a tel: link, shown as a
        // left-to-right isolate (safety.css), so "0800 111 0 111" reads in order inside Arabic.
        <div className="crisis-panel__contacts" lang={state.crisisHelp.languageCode} dir={state.crisisHelp.languageCode === 'ar' ? 'rtl' : 'ltr'}>
          <h4>{state.crisisHelp.title}</h4>
          <Markdown source={linkPhoneNumbers(state.crisisHelp.content)} />
        </div>
      ) : null}
      {state && !state.crisisHelp ? <p className="crisis-panel__fallback">{t('safety.crisis.noContacts')}</p> : null}
      <p className="muted">{t('safety.crisis.teamInformed')}</p>
      {error ? <SafetyError error={error} /> : null}
      {state && !state.emergencyContact ? <EmergencyContactForm caseId={caseId} /> : null}
      {state ? <ContractConfirmation caseId={caseId} confirmedAt={state.antiSuicideContractAt} /> : null}
    </section>
  );
}

function EmergencyContactForm({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [value, setValue] = useState('');
  const save = useMutation({ mutationFn: (contact: string) => saveEmergencyContact(caseId, contact), onSettled: () => refetchAfterSafetyChange(client) });
  const error = save.error ? asApiError(save.error) : null;
  const busy = save.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(value);
  };
  return (
    <form className="crisis-panel__form" onSubmit={submit}>
      <h4>{t('safety.emergencyContact.title')}</h4>
      <TextArea
        label={t('safety.emergencyContact.label')}
        hint={t('safety.emergencyContact.hint')}
        name="emergencyContact"
        rows={2}
        maxLength={2000}
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      {error ? <SafetyError error={error} /> : null}
      <button type="submit" className="button button--secondary" disabled={busy || !value.trim()}>
        {busy ? t('common.sending') : t('safety.emergencyContact.save')}
      </button>
    </form>
  );
}

/** The anti-suicide contract: the patient confirms it here; its time is stored on the account. */
export function ContractConfirmation({ caseId, confirmedAt, onBehalf = false }: { caseId: string; confirmedAt: string | null; onBehalf?: boolean }) {
  const clock = useClock();
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirmation = useMutation({ mutationFn: () => confirmAntiSuicideContract(caseId), onSettled: () => refetchAfterSafetyChange(client) });
  const error: ApiError | null = confirmation.error ? asApiError(confirmation.error) : null;
  const busy = confirmation.isPending;
  if (confirmedAt) {
    return (
      <p className="crisis-panel__contract">
        {t('safety.contract.confirmedAt', { time: clock.dateTime(confirmedAt) })}
      </p>
    );
  }
  return (
    <div className="crisis-panel__contract">
      <h4>{t('safety.contract.title')}</h4>
      <p>{onBehalf ? t('safety.contract.textStaff') : t('safety.contract.text')}</p>
      {error ? <SafetyError error={error} /> : null}
      <button type="button" className="button button--secondary" onClick={() => confirmation.mutate()} disabled={busy}>
        {onBehalf ? t('safety.contract.record') : t('safety.contract.confirm')}
      </button>
    </div>
  );
}
