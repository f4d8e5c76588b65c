/**
 * The crisis entry (issue 25): while a risk answer of the patient's case is open (cases.riskOpen,
 * 0120), every patient page carries it at the top, so the crisis contacts stay one tap away after
 * the questionnaire was sent. It opens the crisis panel of the safety feature in place.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CrisisPanel } from '../safety/CrisisPanel';

export function CrisisEntry({ caseId, startOpen = false }: { caseId: string; startOpen?: boolean }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(startOpen);
  return (
    <div className="crisis-entry" role="region" aria-label={t('patientPath.crisis.region')}>
      <button type="button" className="button crisis-entry__button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? t('patientPath.crisis.hide') : t('patientPath.crisis.show')}
      </button>
      {open ? <CrisisPanel caseId={caseId} /> : null}
    </div>
  );
}
