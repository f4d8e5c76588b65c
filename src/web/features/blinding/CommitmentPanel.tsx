/**
 * The verifiable allocation for coordinators (issue 30 item 5): the parameters and commitment to
 * publish in the trial registry, go-live (fixes the allocation; confirmed, irreversible), and
 * unblinding with a reason (confirmed, logged), after which the seed is shown for the monitor's
 * `npm run sanad -- verify-allocation --seed … --commitment …`. Also the blinding exports:
 * every blinded assessment with the assessor's guess, and Bang's blinding index per arm.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import type { ApiError } from '../../api/client';
import { useConfirm, useConfirmWithReason } from '../../ui/confirm';
import { Alert } from '../../ui/ui';
import { downloadFile } from '../trial/api';
import { BlindingError } from './BlindingError';
import { blindingKeys, commitmentQuery, fixAllocation, indexQuery, unblindAllocation } from './api';

export function CommitmentPanel() {
  const clock = useClock();
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirm = useConfirm();
  const confirmWithReason = useConfirmWithReason();
  const { data, error: loadError } = useQuery(commitmentQuery());
  const index = useQuery(indexQuery());
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const at = (iso: string) => clock.dateTime(iso);
  const allocation = data?.allocation;

  const act = async (fn: () => Promise<unknown>, done: string) => {
    setError(null);
    setSaved(null);
    try {
      await fn();
      setSaved(done);
      await client.invalidateQueries({ queryKey: blindingKeys.commitment });
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  const goLive = async () => {
    const ok = await confirm({ title: t('blinding.commitment.goLiveTitle'), message: t('blinding.commitment.goLiveMessage'), confirmLabel: t('blinding.commitment.goLive'), danger: true });
    if (ok) await act(fixAllocation, t('blinding.commitment.fixedNow'));
  };
  const unblind = async () => {
    const reason = await confirmWithReason({
      title: t('blinding.commitment.unblindTitle'),
      message: t('blinding.commitment.unblindMessage'),
      confirmLabel: t('blinding.commitment.unblind'),
      reasonLabel: t('blinding.commitment.reason'),
      danger: true,
    });
    if (reason) await act(() => unblindAllocation(reason), t('blinding.commitment.unblindedNow'));
  };
  const download = (path: string, name: string) => act(() => downloadFile(path, name), t('blinding.exports.saved'));

  return (
    <section className="trial-panel" aria-labelledby="commitment-title">
      <h2 id="commitment-title">{t('blinding.commitment.title')}</h2>
      <BlindingError error={loadError as ApiError | null} />
      {allocation === null ? <p className="muted">{t('blinding.commitment.none')}</p> : null}
      {allocation?.commitment ? (
        <>
          <p>{t(allocation.fixedAt ? 'blinding.commitment.publish' : 'blinding.commitment.beforeGoLive')}</p>
          <dl className="facts">
            <dt>{t('blinding.commitment.hash')}</dt>
            <dd>
              <code dir="ltr" className="blinding-code">{allocation.commitment}</code>
            </dd>
            <dt>{t('blinding.commitment.parameters')}</dt>
            <dd>
              <code dir="ltr" className="blinding-code">{allocation.parameters}</code>
            </dd>
            <dt>{t('blinding.commitment.fixed')}</dt>
            <dd>{allocation.fixedAt ? t('blinding.commitment.byAt', { name: allocation.fixedBy ?? '—', at: at(allocation.fixedAt) }) : t('blinding.commitment.notYet')}</dd>
            <dt>{t('blinding.commitment.unblinded')}</dt>
            <dd>{allocation.revealedAt ? t('blinding.commitment.byAt', { name: allocation.revealedBy ?? '—', at: at(allocation.revealedAt) }) : t('blinding.commitment.notYet')}</dd>
            {allocation.seed ? (
              <>
                <dt>{t('blinding.commitment.seed')}</dt>
                <dd>
                  <code dir="ltr" className="blinding-code">{allocation.seed}</code>
                </dd>
              </>
            ) : null}
          </dl>
          {allocation.seed ? <p className="muted">{t('blinding.commitment.verifyHint')}</p> : null}
          <div className="button-row">
            {!allocation.fixedAt ? (
              <button type="button" className="button" onClick={() => void goLive()}>
                {t('blinding.commitment.goLive')}
              </button>
            ) : null}
            {allocation.fixedAt && !allocation.revealedAt ? (
              <button type="button" className="button button--danger" onClick={() => void unblind()}>
                {t('blinding.commitment.unblind')}
              </button>
            ) : null}
          </div>
        </>
      ) : null}
      {allocation && !allocation.commitment ? <p className="muted">{t('blinding.commitment.legacy')}</p> : null}
      <h3>{t('blinding.exports.title')}</h3>
      {index.data && index.data.arms.length > 0 ? (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t('blinding.exports.index')}>
          <table className="data-table">
            <caption>{t('blinding.exports.index')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('blinding.exports.arm')}</th>
                <th scope="col">{t('blinding.exports.guesses')}</th>
                <th scope="col">{t('blinding.exports.correct')}</th>
                <th scope="col">{t('blinding.exports.incorrect')}</th>
                <th scope="col">{t('blinding.exports.dontKnow')}</th>
                <th scope="col">{t('blinding.exports.bang')}</th>
              </tr>
            </thead>
            <tbody>
              {index.data.arms.map((arm) => (
                <tr key={arm.treatment}>
                  <th scope="row">{t(`careTeam.arms.${arm.treatment}`, { defaultValue: arm.treatment })}</th>
                  <td>{arm.guesses}</td>
                  <td>{arm.correct}</td>
                  <td>{arm.incorrect}</td>
                  <td>{arm.dontKnow}</td>
                  <td dir="ltr">{arm.bangIndex.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">{t('blinding.exports.noGuesses')}</p>
      )}
      <div className="button-row">
        <button type="button" className="button button--secondary" onClick={() => void download('/api/blinding/assessments.csv', 'sanad-blinded-assessments.csv')}>
          {t('blinding.exports.assessments')}
        </button>
        <button type="button" className="button button--secondary" onClick={() => void download('/api/blinding/index.csv', 'sanad-blinding-index.csv')}>
          {t('blinding.exports.indexCsv')}
        </button>
      </div>
      <BlindingError error={error} />
      {saved ? <Alert kind="success">{saved}</Alert> : null}
    </section>
  );
}
