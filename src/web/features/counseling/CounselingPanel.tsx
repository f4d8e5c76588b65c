/**
 * The counseling panel of a case page (issue 27 item 5): shown once a signed interview report
 * referred the patient to counseling (the case has a counseling process). It names the counselor
 * and, for coordinators, offers the one door to assign or change them; the server decides
 * whether they may (src/server/counseling/routes.ts).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { asApiError } from '../../api/query';
import { useSession } from '../../session/session';
import { useConfirm } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, SelectField } from '../../ui/ui';
import { personName } from '../messages/names';
import { assignCounselor, caseCounselingQuery, counselorAccountsQuery, refetchAfterCounseling, type CounselorAccount } from './api';

export function CounselingPanel({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const { data } = useQuery(caseCounselingQuery(caseId));
  if (!data?.process) return null;
  const names = data.counselors.map((c) => personName(c)).filter(Boolean);
  const running = data.process.state === 'ACTIVE';
  return (
    <section className="card" aria-labelledby="counseling-panel-title">
      <h2 id="counseling-panel-title">{t('counseling.panel.title')}</h2>
      <p>{t('counseling.panel.intro')}</p>
      <dl className="facts">
        <dt>{t('counseling.panel.counselor')}</dt>
        <dd>{names.length ? <bdi>{names.join(', ')}</bdi> : <span className="muted">{t('counseling.panel.none')}</span>}</dd>
      </dl>
      {!running ? <p className="muted">{t('counseling.counselor.ended')}</p> : null}
      {running && user?.is_coordinator_account ? <AssignForm caseId={caseId} hasCounselor={names.length > 0} /> : null}
    </section>
  );
}

function AssignForm({ caseId, hasCounselor }: { caseId: string; hasCounselor: boolean }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirm = useConfirm();
  const accounts = useQuery(counselorAccountsQuery());
  const [chosen, setChosen] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const assign = useMutation({
    mutationFn: (account: CounselorAccount) => assignCounselor(caseId, account.id),
    onSuccess: (_, account) => setDone(t('counseling.panel.assigned', { name: personName(account) })),
    onSettled: () => refetchAfterCounseling(client, caseId),
  });
  if (accounts.data && accounts.data.length === 0) return <p className="muted">{t('counseling.panel.noCounselors')}</p>;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const account = accounts.data?.find((a) => a.id === chosen);
    if (!account) return;
    setDone(null);
    const sure = await confirm({
      title: t('counseling.panel.confirmTitle'),
      message: t('counseling.panel.confirmMessage', { name: personName(account) }),
      confirmLabel: t('counseling.panel.assign'),
    });
    if (sure) assign.mutate(account);
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="counseling-assign">
      <SelectField
        label={hasCounselor ? t('counseling.panel.change') : t('counseling.panel.choose')}
        value={chosen}
        onChange={(e) => setChosen(e.target.value)}
        options={[{ value: '', label: '—' }, ...(accounts.data ?? []).map((a) => ({ value: a.id, label: personName(a) ?? '' }))]}
      />
      <ErrorAlert error={assign.error ? asApiError(assign.error) : accounts.error ? asApiError(accounts.error) : null} />
      {done ? <Alert kind="success">{done}</Alert> : null}
      <button type="submit" className="button button--small" disabled={!chosen || assign.isPending}>
        {t('counseling.panel.assign')}
      </button>
    </form>
  );
}
