/**
 * A therapist of a randomized case sends a worksheet of another arm (issue 27 item 3). The sheets
 * offered are those the case does not have yet; sending asks for a reason in the confirmation,
 * which the database records and counts as contamination. Only the case's therapists see it
 * (the database refuses everyone else anyway).
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { WORKSHEET_CODES, type WorksheetCode } from '../../../domain/worksheets';
import { asApiError } from '../../api/query';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { useConfirmWithReason } from '../../ui/confirm';
import { SelectField } from '../../ui/ui';
import { caseSheetsQuery, refetchAfterArmSend, sendOutOfArmWorksheet } from './api';

export function OutOfArmSend({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const confirmWithReason = useConfirmWithReason();
  const sheets = useQuery(caseSheetsQuery(caseId));
  const [choice, setChoice] = useState<WorksheetCode | ''>('');
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<WorksheetCode | null>(null);
  if (!sheets.data) return null;
  const open = new Set(sheets.data.map((s) => s.worksheet));
  const others = WORKSHEET_CODES.filter((code) => !open.has(code));
  const outside = sheets.data.filter((s) => !s.inArm);
  // A case without an arm (not randomized, counseling) has every sheet: nothing to send.
  if (others.length === 0 && outside.length === 0) return null;

  async function send() {
    if (!choice) return;
    const reason = await confirmWithReason({
      title: t('arms.confirmTitle'),
      message: t('arms.confirmMessage', { sheet: t(`therapy.sheet.${choice}.title`) }),
      reasonLabel: t('arms.reasonLabel'),
      confirmLabel: t('arms.send'),
    });
    if (reason === null) return;
    setError(null);
    try {
      await sendOutOfArmWorksheet(caseId, choice, reason);
      setSent(choice);
      setChoice('');
    } catch (caught) {
      setError(caught);
    } finally {
      await refetchAfterArmSend(client, caseId);
    }
  }

  return (
    <div className="arms-send">
      <h3>{t('arms.sendTitle')}</h3>
      <p>{t('arms.sendIntro')}</p>
      {outside.length > 0 ? (
        <p>{t('arms.alreadySent', { sheets: outside.map((s) => t(`therapy.sheet.${s.worksheet}.title`)).join(', ') })}</p>
      ) : null}
      {sent ? <p role="status">{t('arms.sent', { sheet: t(`therapy.sheet.${sent}.title`) })}</p> : null}
      <ErrorAlert error={error ? asApiError(error) : null} />
      {others.length > 0 ? (
        <form className="button-row" onSubmit={(e) => { e.preventDefault(); void send(); }}>
          <SelectField
            label={t('arms.sheetLabel')}
            value={choice}
            onChange={(e) => setChoice(e.target.value as WorksheetCode | '')}
            options={[{ value: '', label: t('arms.choose') }, ...others.map((code) => ({ value: code, label: t(`therapy.sheet.${code}.title`) }))]}
          />
          <button type="submit" className="button button--small" disabled={!choice}>{t('arms.send')}</button>
        </form>
      ) : null}
    </div>
  );
}
