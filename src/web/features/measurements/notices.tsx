/**
 * What the measurement screens say instead of a form: to a signed-out visitor (the open routes
 * /messungen/pre and /frageboegen), to someone without a patient case, and to a patient the
 * screening excluded: a kind explanation and where to find help, never a score or a reason
 * that reads like a verdict.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { useSession } from '../../session/session';
import { patientPathQuery } from '../patient/api';

/** Records belong to a case, so answering needs the patient's account; sign-in returns here. */
export function SignInPrompt() {
  const { t } = useTranslation();
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}`;
  return (
    <div className="card">
      <p>{t('measurements.signedOut.body')}</p>
      <div className="button-row">
        <Link className="button" to={`/login?returnTo=${encodeURIComponent(returnTo)}`}>
          {t('measurements.signedOut.signIn')}
        </Link>
        <Link className="button button--secondary" to="/register">
          {t('measurements.signedOut.register')}
        </Link>
      </div>
    </div>
  );
}

export function NoPatientCase({ patient }: { patient: boolean }) {
  const { t } = useTranslation();
  return <p className="alert alert--info">{patient ? t('measurements.noCase') : t('measurements.notPatient')}</p>;
}

export function ExcludedNotice() {
  const { t } = useTranslation();
  const { currentCaseId } = useSession();
  // The words follow the real reason (issue 25): only a screening exclusion is about answers.
  const kind = useQuery({ ...patientPathQuery(currentCaseId ?? ''), enabled: Boolean(currentCaseId) }).data?.stopKind;
  const screening = !kind || kind === 'screening';
  return (
    <section className="card excluded" aria-labelledby="excluded-heading">
      <h2 id="excluded-heading">{screening ? t('measurements.excluded.title') : t('patientPath.phase.excluded.title')}</h2>
      {screening ? (
        <>
          <p>{t('measurements.excluded.body')}</p>
          <p>{t('measurements.excluded.notYou')}</p>
          <p>{t('measurements.excluded.next')}</p>
        </>
      ) : (
        <p>{t(`patientPath.stopped.${String(kind)}`)}</p>
      )}
      <div className="crisis-note" role="note">
        <strong>{t('measurements.excluded.crisisTitle')}</strong> {t('measurements.excluded.crisis')}
      </div>
      <div className="button-row">
        <Link className="button" to="/faq">
          {t('measurements.excluded.help')}
        </Link>
      </div>
    </section>
  );
}
