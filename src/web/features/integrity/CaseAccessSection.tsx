/**
 * The case's access history on the case detail, for coordinators (issue 30): who read which
 * kind of the case's records, through which door, when. Folded until asked for; the list is
 * read only when opened, and that read is itself logged.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Spinner } from '../../ui/ui';
import { AccessList } from './AccessList';
import { caseAccessQuery } from './api';
import './integrity.css';

function AccessHistory({ caseId }: { caseId: string }) {
  const { data, error } = useQuery(caseAccessQuery(caseId));
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Spinner />;
  return <AccessList rows={data.rows} showApi />;
}

export function CaseAccessSection({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const session = useSession();
  const [open, setOpen] = useState(false);
  if (!session.user?.is_coordinator_account) return null;
  return (
    <details className="card" onToggle={(event) => setOpen((event.target as HTMLDetailsElement).open)}>
      <summary>
        <h2 className="case-fields__title">{t('integrity.access.caseTitle')}</h2>
      </summary>
      <p className="muted">{t('integrity.access.caseHint')}</p>
      {open ? <AccessHistory caseId={caseId} /> : null}
    </details>
  );
}
