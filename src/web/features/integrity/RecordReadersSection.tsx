/**
 * On the patient's profile (issue 30): who on the care team opened their record, by name and
 * role, grouped by hour, in their own time zone.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { AccessList } from './AccessList';
import { myRecordReadersQuery } from './api';
import './integrity.css';

export function RecordReadersSection() {
  const { t } = useTranslation();
  const session = useSession();
  const isPatient = Boolean(session.user?.is_patient_account);
  const { data, error } = useQuery({ ...myRecordReadersQuery(), enabled: isPatient });
  if (!isPatient) return null;
  return (
    <section className="card" aria-labelledby="record-readers-title">
      <h2 id="record-readers-title">{t('integrity.access.patientTitle')}</h2>
      <p className="muted">{t('integrity.access.patientHint')}</p>
      <ErrorAlert error={error} />
      {data ? <AccessList rows={data.rows} showApi={false} /> : error ? null : <Spinner />}
    </section>
  );
}
