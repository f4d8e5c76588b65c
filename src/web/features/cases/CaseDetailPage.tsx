/**
 * A case for staff (route /admin/cases/:caseId, spec §7 CaseWithMessages): its fields, the
 * patient, the members with their roles, and the messages the reader may see. Coordinators
 * edit the fields and the membership; other staff read. The database enforces the same split.
 */
import { CaseLettersSection } from '../therapy/CaseLettersSection';
import { CaseExercisesSection } from '../therapy/CaseExercisesSection';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { sortMessages } from '../../../domain/messages';
import { useSession } from '../../session/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, Spinner } from '../../ui/ui';
import { MessageItem } from '../messages/MessageItem';
import { ScoresSection } from '../scores/ScoresSection';
import { CaseTasksSection } from '../tasks/CaseTasksSection';
import { personName } from '../messages/names';
import { CaseFacts, CaseFieldsForm } from './CaseFieldsForm';
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
function MessagesSection({ detail }: { detail: CaseDetail }) {
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
      timeZone={user?.time_zone ?? 'UTC'}
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

export function CaseDetailPage() {
  const { t } = useTranslation();
  const { caseId = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { data: detail, error } = useQuery(caseDetailQuery(caseId));
  const canManage = Boolean(session.user?.is_coordinator_account);
  const reload = () => refetchAfterCaseChange(queryClient, caseId);

  const title = detail ? t('cases.caseTitle', { shortId: detail.shortId }) : t('nav.adminCase');
  const openConversation = () => {
    session.setCurrentCase(caseId);
    void navigate('/conversation');
  };

  return (
    <Page title={title}>
      <nav className="button-row toolbar" aria-label={t('cases.caseNavigation')}>
        <Link to="/admin/cases">{t('cases.backToList')}</Link>
        {detail ? <Link to={`/admin/cases/${caseId}/log`}>{t('nav.adminCaseLog')}</Link> : null}
        {detail?.myInvolvement ? (
          <button type="button" className="button button--secondary button--small" onClick={openConversation}>
            {t('cases.openConversation')}
          </button>
        ) : null}
      </nav>
      <ErrorAlert error={error} />
      {detail === undefined ? <Spinner /> : null}
      {detail === null && !error ? <Alert kind="info">{t('cases.notFound')}</Alert> : null}
      {detail ? (
        <>
          {detail.patient ? (
            <p className="muted" dir="auto">
              {personName(detail.patient)}
            </p>
          ) : null}
          <section aria-labelledby="fields-title">
            <h2 id="fields-title">{t('cases.details')}</h2>
            {canManage ? <CaseFieldsForm key={detail.id} caseId={detail.id} fields={detail} /> : <CaseFacts fields={detail} />}
          </section>
          <PatientSection patient={detail.patient} />
          <ScoresSection caseId={detail.id} />
          <CaseTasksSection caseId={detail.id} />
          <CaseExercisesSection caseId={detail.id} />
          <CaseLettersSection caseId={detail.id} />
          <MembersSection caseId={detail.id} members={detail.members} canManage={canManage} onChanged={reload} />
          <MessagesSection detail={detail} />
        </>
      ) : null}
    </Page>
  );
}
