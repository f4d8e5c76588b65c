/**
 * Who read a case's records, as sentences a person reads: "Dr. Salma (therapist) opened
 * interview reports · 3 times · last on …", in the viewer's time zone. Shared by the
 * coordinators' access history and the patient's view of their record.
 */
import { useTranslation } from 'react-i18next';
import { useClock } from '../../ui/useClock';
import type { AccessEntry } from './api';

export function AccessList({ rows, showApi }: { rows: AccessEntry[]; showApi: boolean }) {
  const clock = useClock();
  const { t } = useTranslation();
  if (rows.length === 0) return <p className="muted">{t('integrity.access.none')}</p>;
  return (
    <ul className="access-list">
      {rows.map((row, i) => (
        <li key={i} className="access-list__item">
          <span>
            <strong dir="auto">{row.readerName}</strong>
            {row.readerRoles.length > 0 ? <> ({row.readerRoles.map((role) => t(`integrity.roles.${role}`)).join(', ')})</> : null}
          </span>{' '}
          <span>{t('integrity.access.opened', { kind: t(`integrity.kinds.${row.recordKind}`) })}</span>
          <span className="muted access-list__when">
            {showApi && row.api ? <>{t(`integrity.apis.${row.api}`)} · </> : null}
            {t('integrity.access.times', { count: row.reads })} · {t('integrity.access.lastAt', { at: clock.dateTime(row.lastAt) })}
          </span>
        </li>
      ))}
    </ul>
  );
}
