/**
 * The patient's home (issue 25): it follows the stage of their case (src/domain/patient-path.ts).
 * First the crisis entry while a risk answer is open, then where they are and what comes next
 * (with the button to the place where it is done, and the date it is due), then who their care
 * team is (their chosen names, never sign-in names). In treatment: the worksheets due and
 * returned with feedback, the letters (new ones marked) and the next questionnaire.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { careTeam, displayName, nextTask, ownName, patientPhase, treatmentStarted, type PatientPhase } from '../../../domain/patient-path';
import { dueTaskPath } from '../../../domain/workflow-tasks';
import type { Profile } from '../../session/profile';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Page, Spinner } from '../../ui/ui';
import { dueTasksQuery, type TaskRow } from '../tasks/api';
import { DueDate, useDateTime, useTaskName } from '../tasks/labels';
import { caseWorksheetsQuery, worksheetTasksQuery } from '../therapy/api';
import { patientPathQuery, type PatientPathCase } from './api';
import { CrisisEntry } from './CrisisEntry';
import { ReconsentCard } from '../consent/PatientConsent';
import { Ident } from '../../ui/Ident';
import './patient-path.css';

/** The measurement tasks: "the next questionnaire" in treatment and after. */
const MEASUREMENT_TASKS = new Set(['preTask', 'postTask', 'fu1Task', 'fu2Task']);

export function PatientHome({ user, caseId }: { user: Profile; caseId: string }) {
  const { t } = useTranslation();
  const path = useQuery(patientPathQuery(caseId));
  const due = useQuery(dueTasksQuery());
  const c = path.data;
  const tasks = (due.data ?? []).filter((task) => task.caseId === caseId);
  const booking = c?.interviewBookingsByCaseIdList?.[0]?.offer ?? null;
  const bookingStartsAt = booking?.startsAt ? String(booking.startsAt) : null;
  const phase: PatientPhase | null = c
    ? patientPhase({
        stage: c.stage,
        excluded: user.excluded,
        dropout: c.isDropout,
        openTasks: tasks.map((task) => ({ key: task.taskDefinitionKey, due: task.due })),
        bookingStartsAt,
        now: new Date(),
      })
    : null;

  return (
    <Page title={t('home.greeting', { name: ownName(user) })}>
      {c?.riskOpen ? <CrisisEntry caseId={caseId} /> : null}
      <ReconsentCard />
      <ErrorAlert error={path.error ?? due.error} />
      {!c && (path.isPending || due.isPending) ? <Spinner /> : null}
      {c && phase ? (
        <>
          <p className="muted patient-path__case">
            {t('patientPath.yourCase')} <Ident>{c.shortId ?? ''}</Ident>
          </p>
          <PhaseCard phase={phase} stopKind={c.stopKind ? String(c.stopKind) : null} tasks={tasks} bookingStartsAt={bookingStartsAt} />
          <CareTeam phase={phase} members={c.othersList ?? []} />
          {treatmentStarted(c.stage, phase) || phase === 'droppedOut' ? <Treatment caseId={caseId} letters={c.lettersByCaseIdList ?? []} tasks={tasks} /> : null}
        </>
      ) : null}
      <nav className="grid patient-path__links" aria-label={t('patientPath.moreTitle')}>
        <Link className="tile" to="/conversation">
          <span className="tile__title">{t('nav.conversation')}</span>
          <span className="muted">{t('home.tiles.conversation')}</span>
        </Link>
        <Link className="tile" to="/frageboegen">
          <span className="tile__title">{t('nav.surveys')}</span>
          <span className="muted">{t('patientPath.surveysTile')}</span>
        </Link>
        <Link className="tile" to="/profile">
          <span className="tile__title">{t('nav.profile')}</span>
          <span className="muted">{t('home.tiles.profile')}</span>
        </Link>
        <Link className="tile" to="/faq">
          <span className="tile__title">{t('nav.faq')}</span>
          <span className="muted">{t('home.tiles.faq')}</span>
        </Link>
      </nav>
    </Page>
  );
}

/** Where the patient is, and what comes next: their next task with its place, or what they wait for. */
function PhaseCard({ phase, stopKind, tasks, bookingStartsAt }: { phase: PatientPhase; stopKind: string | null; tasks: TaskRow[]; bookingStartsAt: string | null }) {
  const { t } = useTranslation();
  const taskName = useTaskName();
  const dateTime = useDateTime();
  const next = nextTask(tasks.map((task) => ({ ...task, key: task.taskDefinitionKey })));
  const nextPath = next ? dueTaskPath(next, false) : null;
  const stopped = phase === 'excluded' || phase === 'droppedOut';
  return (
    <section className="card patient-path__phase" aria-labelledby="phase-title">
      <p className="patient-path__kicker">{t('patientPath.whereYouAre')}</p>
      <h2 id="phase-title">{t(`patientPath.phase.${phase}.title`)}</h2>
      <p>{stopped ? t(`patientPath.stopped.${stopKind ?? (phase === 'droppedOut' ? 'dropout' : 'team')}`) : t(`patientPath.phase.${phase}.body`)}</p>
      {phase === 'awaitingInterview' && bookingStartsAt ? (
        <p>
          <strong>{t('patientPath.interviewAt', { when: dateTime(bookingStartsAt) })}</strong>
        </p>
      ) : null}
      {next ? (
        <div className="patient-path__next">
          <h3>{t('patientPath.nextStep')}</h3>
          <p>{taskName({ taskDefinitionKey: next.taskDefinitionKey, name: null })}</p>
          <p className="muted">
            {t('patientPath.dueBy')} <DueDate due={next.due} now={new Date()} />
          </p>
          {nextPath ? (
            <Link className="button" to={nextPath}>
              {t(`tasks.actions.${next.taskDefinitionKey}`, { defaultValue: t('tasks.actions.open') })}
            </Link>
          ) : null}
        </div>
      ) : !stopped ? (
        <p className="muted">{t(`patientPath.phase.${phase}.waiting`)}</p>
      ) : null}
      {tasks.length > 1 ? (
        <p>
          <Link to="/due">{t('patientPath.allDue', { count: tasks.length })}</Link>
        </p>
      ) : null}
    </section>
  );
}

function CareTeam({ phase, members }: { phase: PatientPhase; members: NonNullable<PatientPathCase['othersList']> }) {
  const { t } = useTranslation();
  const team = careTeam(members, phase);
  if (team.length === 0) return null;
  return (
    <section className="card card--flat" aria-labelledby="team-title">
      <h2 id="team-title">{t('patientPath.teamTitle')}</h2>
      <ul className="plain-list">
        {team.map((member, i) => (
          <li key={i}>
            <span className="muted">{t(`patientPath.role.${member.role}`)}: </span>
            <bdi>{displayName(member.person, t(`patientPath.yourRole.${member.role}`))}</bdi>
          </li>
        ))}
      </ul>
      <Link to="/conversation">{t('patientPath.writeToTeam')}</Link>
    </section>
  );
}

/** The treatment at a glance: worksheets due and returned, letters, the next questionnaire. */
function Treatment({ caseId, letters, tasks }: { caseId: string; letters: NonNullable<PatientPathCase['lettersByCaseIdList']>; tasks: TaskRow[] }) {
  const { t } = useTranslation();
  const dateTime = useDateTime();
  const sheetTasks = useQuery(worksheetTasksQuery(caseId));
  const sheets = useQuery(caseWorksheetsQuery(caseId));
  const open = (sheetTasks.data ?? []).filter((task) => task.status === 'due' || task.status === 'overdue');
  const feedback = (sheets.data?.feedback ?? []).filter((f) => f.published_at);
  const sent = letters.filter((l) => l.publishedAt);
  const unread = sent.filter((l) => l.isUnread).length;
  const measurement = tasks.find((task) => MEASUREMENT_TASKS.has(task.taskDefinitionKey));
  return (
    <section className="card card--flat patient-path__treatment" aria-labelledby="treatment-title">
      <h2 id="treatment-title">{t('patientPath.treatmentTitle')}</h2>
      <ErrorAlert error={sheetTasks.error ?? sheets.error} />
      <h3>{t('patientPath.worksheetsTitle')}</h3>
      {open.length === 0 ? <p className="muted">{t('patientPath.noWorksheetsDue')}</p> : null}
      <ul className="plain-list">
        {open.map((task) => (
          <li key={task.id}>
            {t(`therapy.sheet.${task.worksheet}.title`)} · <DueDate due={task.due} now={new Date()} />
          </li>
        ))}
      </ul>
      {feedback.length > 0 ? <p>{t('patientPath.feedbackReturned', { count: feedback.length })}</p> : null}
      <Link className="button button--secondary" to="/all-exercises">
        {t('patientPath.openWorksheets')}
      </Link>
      <h3>{t('patientPath.lettersTitle')}</h3>
      {sent.length === 0 ? (
        <p className="muted">{t('patientPath.noLetters')}</p>
      ) : (
        <ul className="plain-list">
          {sent.slice(0, 3).map((letter) => (
            <li key={letter.id}>
              {letter.isUnread ? <span className="badge badge--inline">{t('patientPath.new')}</span> : null} <bdi>{letter.subject || t('patientPath.letterNoSubject')}</bdi>{' '}
              <span className="muted">· {dateTime(letter.publishedAt!)}</span>
            </li>
          ))}
        </ul>
      )}
      {sent.length > 0 ? (
        <Link className="button button--secondary" to="/treatment/past-letters">
          {unread > 0 ? t('patientPath.readNewLetters', { count: unread }) : t('patientPath.openLetters')}
        </Link>
      ) : null}
      <h3>{t('patientPath.nextQuestionnaire')}</h3>
      {measurement ? (
        <p>
          {t(`tasks.names.${measurement.taskDefinitionKey}`)} · <DueDate due={measurement.due} now={new Date()} />{' '}
          <Link to={dueTaskPath(measurement, false) ?? '/frageboegen'}>{t('patientPath.answerNow')}</Link>
        </p>
      ) : (
        <p className="muted">{t('patientPath.noQuestionnaireDue')}</p>
      )}
    </section>
  );
}
