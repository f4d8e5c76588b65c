/**
 * The form of "assign a therapist" (workflows/therapist-assignment.bpmn, issue 26): the
 * therapist is chosen by name from the therapist accounts, never typed as an id. Completing the
 * task assigns them through the one command (app_hidden.assign_therapist, via the task's hook).
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Alert, SelectField } from '../../ui/ui';
import { staffAccountsQuery } from '../cases/api';
import { personName } from '../messages/names';

export const ASSIGN_THERAPIST_TASK = 'assignTherapistTask';

export function AssignTherapistNote({ taskKey }: { taskKey: string }) {
  const { t } = useTranslation();
  if (taskKey !== ASSIGN_THERAPIST_TASK) return null;
  return <Alert kind="info">{t('careTeam.assignTherapist.note')}</Alert>;
}

export function TherapistChoice({ value, onChange, errors }: { value: string; onChange(value: string): void; errors: { code: string; message: string }[] }) {
  const { t } = useTranslation();
  const staff = useQuery(staffAccountsQuery());
  const therapists = (staff.data ?? []).filter((account) => account.isTherapistAccount);
  if (staff.isSuccess && therapists.length === 0) return <Alert kind="warning">{t('careTeam.assignTherapist.noTherapists')}</Alert>;
  return (
    <SelectField
      label={t('careTeam.assignTherapist.choose')}
      name="field-therapist"
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
      errors={errors}
      options={[
        { value: '', label: t('careTeam.assignTherapist.choosePerson') },
        ...therapists.map((account) => ({ value: account.id, label: personName(account) ?? account.username })),
      ]}
    />
  );
}
