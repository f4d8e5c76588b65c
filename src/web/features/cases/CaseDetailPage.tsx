/**
 * A case for staff (route /admin/cases/:caseId, spec §7 CaseWithMessages). It leads with what a
 * clinician needs (CaseSummary: patient, stage, risk flags, next dates, open tasks, unread
 * messages), then the sections in two columns where the width allows. The case fields are
 * folded away and open on demand; coordinators edit them and the membership, other staff read.
 *
 * Sections are listed once in CASE_SECTIONS (main column) and CASE_SIDE_SECTIONS (side column):
 * a feature adds its section to the case page with one line there. Each section receives the
 * loaded case and reads whatever else it needs through its own feature's queries.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { conversationPath, sortMessages } from '../../../domain/messages';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, Spinner } from '../../ui/ui';
import { MessageItem } from '../messages/MessageItem';
import { ScoresSection } from '../scores/ScoresSection';
import { CaseTasksSection } from '../tasks/CaseTasksSection';
import { CaseReports } from '../reports/CaseReports';
import { SafetySection } from '../safety/SafetySection';
import { CaseTrialPanel } from '../trial/CaseTrialPanel';
import { CounselingPanel } from '../counseling/CounselingPanel';
import { WithdrawalPanel } from '../consent/WithdrawalPanel';
import { CaseLettersSection } from '../therapy/CaseLettersSection';
import { CaseExercisesSection } from '../therapy/CaseExercisesSection';
import { CaseFacts, CaseFieldsForm } from './CaseFieldsForm';
import { CaseSummary } from './CaseSummary';
import { CaseAccessSection } from '../integrity/CaseAccessSection';
import { MembersSection } from './MembersSection';
import { caseDetailQuery, PATIENT_FLAGS, refetchAfterCaseChange, type CaseDetail, type CasePatient } from './api';

function PatientSection({ patient }: { patient: CasePatient | null }) {
  const { t } = useTranslation();
  if (!patient) {
    return (
      <section aria-labelledby="patient-title">
        <h2 id="patient-title">{t('cases.patient')}</h2>
        <p className="muted">{t('cases.noPatient')}</p>
      </section>
    );
  }
  const flags = PATIENT_FLAGS.filter((flag) => patient[flag]);
  return (
    <section aria-labelledby="patient-title">
      <h2 id="patient-title">{t('cases.patient')}</h2>
      <dl className="facts">
        <dt>{t('cases.alias')}</dt>
        <dd dir="auto">{patient.alias?.trim() || <span className="muted">{t('cases.empty')}</span>}</dd>
        <dt>{t('cases.username')}</dt>
        <dd dir="ltr">{patient.username}</dd>
        <dt>{t('cases.phone')}</dt>
        <dd dir="ltr">{patient.phone ?? <span className="muted">{t('cases.empty')}</span>}</dd>
        <dt>{t('cases.gender')}</dt>
        <dd>{patient.gender ? t(`gender.${patient.gender}`) : <span className="muted">{t('cases.empty')}</span>}</dd>
        <dt>{t('cases.patientFlags')}</dt>
        <dd>
          {flags.length === 0 ? (
            <span className="muted">{t('cases.noFlags')}</span>
          ) : (
            <ul className="plain-list">
              {flags.map((flag) => (
                <li key={flag}>{t(`patientFlags.${flag}`)}</li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}

/** The case's messages as the reader may see them: their own drafts, then sent messages. */
function MessagesSection({ detail }: CaseSectionProps) {
  const { t } = useTranslation();
  const { user } = useSession();
  const [openId, setOpenId] = useState<string | null>(null);
  const { drafts, sent } = sortMessages([...(detail.unsentMessagesList ?? []), ...(detail.sentMessagesList ?? [])]);
  const item = (message: (typeof sent)[number]) => (
    <MessageItem
      key={message.id}
      message={message}
      open={openId === message.id}
      myId={user?.id}
      onToggle={() => setOpenId(openId === message.id ? null : message.id)}
    />
  );
  return (
    <section aria-labelledby="case-messages-title">
      <h2 id="case-messages-title">{t('cases.messages')}</h2>
      {drafts.length > 0 ? (
        <>
          <h3>{t('messages.drafts')}</h3>
          <ul className="message-list">{drafts.map(item)}</ul>
        </>
      ) : null}
      <h3>{t('messages.sentTitle')}</h3>
      {sent.length === 0 ? <p className="muted">{t('messages.none')}</p> : <ul className="message-list">{sent.map(item)}</ul>}
    </section>
  );
}

/** The case's fields: read-only facts, or the coordinator's form; folded until asked for. */
function FieldsSection({ detail }: CaseSectionProps) {
  const { t } = useTranslation();
  const session = useSession();
  const canManage = Boolean(session.user?.is_coordinator_account);
  return (
    <details className="card case-fields">
      <summary>
        <h2 id="fields-title" className="case-fields__title">
          {canManage ? t('caseDetail.editFields') : t('cases.details')}
        </h2>
      </summary>
      {canManage ? <CaseFieldsForm key={detail.id} caseId={detail.id} fields={detail} /> : <CaseFacts fields={detail} />}
    </details>
  );
}

function MembersOfCase({ detail }: CaseSectionProps) {
  const session = useSession();
  const queryClient = useQueryClient();
  return (
    <MembersSection
      caseId={detail.id}
      members={detail.members}
      canManage={Boolean(session.user?.is_coordinator_account)}
      onChanged={() => refetchAfterCaseChange(queryClient, detail.id)}
    />
  );
}

export interface CaseSectionProps {
  detail: CaseDetail;
}

/** The main column, in reading order. Add a feature's case section here (one line). */
export const CASE_SECTIONS: readonly ComponentType<CaseSectionProps>[] = [
  ({ detail }) => <SafetySection caseId={detail.id} />,
  ({ detail }) => <ScoresSection caseId={detail.id} />,
  ({ detail }) => <CaseTasksSection caseId={detail.id} />,
  ({ detail }) => <CaseReports caseId={detail.id} />,
  ({ detail }) => <CaseTrialPanel caseId={detail.id} isTherapist={Boolean(detail.myInvolvement?.actsAsTherapist)} />,
  ({ detail }) => <CounselingPanel caseId={detail.id} />,
  ({ detail }) => <WithdrawalPanel caseId={detail.id} />,
  ({ detail }) => <CaseExercisesSection caseId={detail.id} />,
  ({ detail }) => <CaseLettersSection caseId={detail.id} />,
  MessagesSection,
];

/** The side column (below the main one on phones). */
export const CASE_SIDE_SECTIONS: readonly ComponentType<CaseSectionProps>[] = [
  ({ detail }) => <PatientSection patient={detail.patient} />,
  MembersOfCase,
  FieldsSection,
  ({ detail }) => <CaseAccessSection caseId={detail.id} />,
];

export function CaseDetailPage() {
  const { t } = useTranslation();
  const { caseId = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const { data: detail, error } = useQuery(caseDetailQuery(caseId));

  const title = detail ? t('cases.caseTitle', { shortId: detail.shortId }) : t('nav.adminCase');
  const openConversation = () => {
    session.setCurrentCase(caseId);
    void navigate(conversationPath(caseId));
  };

  return (
    <Page title={title}>
      <nav className="button-row toolbar" aria-label={t('cases.caseNavigation')}>
        <Link to="/admin/cases">{t('cases.backToList')}</Link>
        {detail ? <Link to={`/admin/cases/${caseId}/log`}>{t('nav.adminCaseLog')}</Link> : null}
        {detail ? (
          <button type="button" className="button button--secondary button--small" onClick={openConversation}>
            {t('cases.openConversation')}
          </button>
        ) : null}
      </nav>
      <ErrorAlert error={error} />
      {detail === undefined && !error ? <Spinner /> : null}
      {detail === null && !error ? <Alert kind="info">{t('cases.notFound')}</Alert> : null}
      {detail ? (
        <>
          <CaseSummary detail={detail} />
          <div className="case-columns">
            <div className="case-columns__main">
              {CASE_SECTIONS.map((Section, i) => (
                <Section key={i} detail={detail} />
              ))}
            </div>
            <div className="case-columns__side">
              {CASE_SIDE_SECTIONS.map((Section, i) => (
                <Section key={i} detail={detail} />
              ))}
            </div>
          </div>
        </>
      ) : null}
    </Page>
  );
}
