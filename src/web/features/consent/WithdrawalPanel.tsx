/**
 * Withdrawal with levels on the case detail (issue 31 item 3): the case's people see whether
 * and how the participant withdrew; coordinators record a level (each confirmed with a reason,
 * the erasure after its dry run), and set or lift a legal hold that blocks erasure.
 */
import { useState } from 'react';
import { SignatureManifests } from '../signing/SignatureManifests';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useClock } from '../../ui/useClock';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { useConfirmWithReason } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { erasurePreviewQuery, refetchWithdrawal, setLegalHold, withdraw, withdrawalQuery, WITHDRAWAL_LEVELS, type WithdrawalLevel } from './api';
import './consent.css';

interface ErasureLine {
  recordKind: string;
  field: string;
  records: number;
}

/** Lines with the same shown name become one, their counts added. */
function mergeByName(lines: ErasureLine[], name: (kind: string, field: string) => string): ErasureLine[] {
  const byName = new Map<string, ErasureLine>();
  for (const line of lines) {
    const key = name(line.recordKind, line.field);
    const seen = byName.get(key);
    if (seen) seen.records += line.records;
    else byName.set(key, { ...line });
  }
  return [...byName.values()];
}

export function WithdrawalPanel({ caseId }: { caseId: string }) {
  const clock = useClock();
  const { t } = useTranslation();
  const { user } = useSession();
  const coordinator = Boolean(user?.is_coordinator_account);
  const queryClient = useQueryClient();
  const state = useQuery(withdrawalQuery(caseId));
  const preview = useQuery({ ...erasurePreviewQuery(caseId), enabled: coordinator });
  const confirmWithReason = useConfirmWithReason();
  const [error, setError] = useState<ApiError | null>(null);
  const data = state.data;
  if (!data || (!coordinator && data.withdrawals.length === 0)) return null;
  const done = new Set(data.withdrawals.map((w) => w.level));
  const when = (iso: string) => clock.dateTime(iso);
  // The account's fields by name; every other record kind as one line (fields summed).
  const fieldName = (kind: string, field: string) => (kind === 'users' ? t(`withdrawal.fields.${field}`) : t(`withdrawal.kinds.${kind}`));
  const toErase = mergeByName((preview.data ?? []).filter((f) => f.records > 0), fieldName);

  const act = async (level: WithdrawalLevel) => {
    setError(null);
    const reason = await confirmWithReason({
      title: t(`withdrawal.confirm.${level}.title`),
      message: t(`withdrawal.confirm.${level}.message`),
      items: level === 'erasure' ? toErase.map((f) => `${fieldName(f.recordKind, f.field)}: ${f.records}`) : [],
      reasonLabel: t('withdrawal.reason'),
      confirmLabel: t(`withdrawal.levels.${level}`),
      danger: true,
    });
    if (reason === null) return;
    try {
      await withdraw(caseId, level, reason);
    } catch (caught) {
      setError(caught as ApiError);
    }
    void refetchWithdrawal(queryClient, caseId);
  };
  const hold = async (on: boolean) => {
    setError(null);
    const reason = await confirmWithReason({
      title: t(on ? 'withdrawal.hold.setTitle' : 'withdrawal.hold.liftTitle'),
      message: t(on ? 'withdrawal.hold.setMessage' : 'withdrawal.hold.liftMessage'),
      reasonLabel: t('withdrawal.reason'),
      confirmLabel: t(on ? 'withdrawal.hold.set' : 'withdrawal.hold.lift'),
    });
    if (reason === null) return;
    try {
      await setLegalHold(caseId, on, reason);
    } catch (caught) {
      setError(caught as ApiError);
    }
    void refetchWithdrawal(queryClient, caseId);
  };

  return (
    <section className="card" aria-labelledby={`withdrawal-${caseId}`}>
      <h2 id={`withdrawal-${caseId}`}>{t('withdrawal.title')}</h2>
      <ErrorAlert error={error} focusOnShow />
      {data.withdrawals.length === 0 ? <p className="muted">{t('withdrawal.none')}</p> : null}
      <ul className="link-list">
        {data.withdrawals.map((w) => (
          <li key={w.id}>
            <strong>{t(`withdrawal.levels.${w.level}`)}</strong> · {when(w.decidedAt)} — <span dir="auto">{w.reason}</span>
          </li>
        ))}
        {data.erasures.map((e) => (
          <li key={e.erasedAt}>{t('withdrawal.erasedAt', { time: when(e.erasedAt) })}</li>
        ))}
      </ul>
      {/* Issue 30: the withdrawal's and the hold's e-signatures (a patient sees the withdrawal's). */}
      <SignatureManifests by={{ caseId }} acts={['withdraw', 'legal_hold']} />
      {data.legalHold ? (
        <p>
          <strong>{t('withdrawal.hold.active')}</strong> <span dir="auto">{data.legalHold.reason}</span>
        </p>
      ) : null}
      {coordinator ? (
        <>
          <p className="muted">{t('withdrawal.intro')}</p>
          <div className="withdrawal-levels">
            {WITHDRAWAL_LEVELS.filter((level) => !done.has(level)).map((level) => (
              <button
                key={level}
                type="button"
                className={level === 'erasure' ? 'button button--danger' : 'button button--secondary'}
                disabled={level === 'erasure' && data.legalHold !== null}
                onClick={() => void act(level)}
              >
                {t(`withdrawal.levels.${level}`)}
              </button>
            ))}
            <button type="button" className="button button--secondary" onClick={() => void hold(data.legalHold === null)}>
              {t(data.legalHold ? 'withdrawal.hold.lift' : 'withdrawal.hold.set')}
            </button>
          </div>
          {!done.has('erasure') && toErase.length > 0 ? (
            <details>
              <summary>{t('withdrawal.previewTitle')}</summary>
              <ul>
                {toErase.map((f) => (
                  <li key={`${f.recordKind}.${f.field}`}>
                    {fieldName(f.recordKind, f.field)}: {f.records}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
