/**
 * The trial's management on the staff case list (/admin/cases): coordinators configure the
 * allocation and see its balance, the CONSORT flow and every invoice item; therapists and
 * interviewers see their own invoice items. Mounted by CaseListPage in one line.
 */
import { useSession } from '../../session/session';
import { ConsentAdminPanel } from '../consent/ConsentAdminPanel';
import { AllocationPanel } from './AllocationPanel';
import { CommitmentPanel } from '../blinding/CommitmentPanel';
import { ConsortPanel } from './ConsortPanel';
import { ContaminationPanel } from '../arms/ContaminationPanel';
import { InvoicesPanel } from './InvoicesPanel';
import { ScreeningRulePanel } from './ScreeningRulePanel';
import './trial.css';

export function TrialSection() {
  const { user } = useSession();
  if (user?.is_coordinator_account) {
    return (
      <div className="trial-section">
        <AllocationPanel />
        <CommitmentPanel />
        <ScreeningRulePanel />
        <ConsortPanel />
        <ConsentAdminPanel />
        <ContaminationPanel />
        <InvoicesPanel />
      </div>
    );
  }
  if (user?.is_therapist_account || user?.is_interviewer_account) return <InvoicesPanel />;
  return null;
}

