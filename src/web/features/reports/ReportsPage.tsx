/**
 * /interviews/reports (spec §2): an interviewer's interviews (coordinators: all) grouped as
 * report due, drafts and finalized, and, for one booking (?booking=<id>), the form
 * "Interviewbericht"; a follow-up booking of a case with a finalized report opens the feedback
 * report (?feedback=<id>). A booked interview that did not take place can be recorded as missed.
 */
import { isolateIdent } from '../../../domain/bidi';
import { dayKey } from "../../../domain/format";
import { errorText } from "../../ui/ErrorAlert";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { useClock } from "../../ui/useClock";
import { useSession } from "../../session/session";
import { useConfirm } from "../../ui/confirm";
import { Alert, Page, Spinner } from "../../ui/ui";
import { personName } from "../messages/names";
import {
  loadFinalizedCaseIds,
  loadReportBookings,
  recordMissed,
  type ReportBooking,
} from "./api";
import { FeedbackForm } from "./FeedbackForm";
import { ReportForm } from "./ReportForm";
import "./reports.css";

type Group = "due" | "drafts" | "finalized" | "followUps" | "upcoming";

export function groupOf(
  booking: ReportBooking,
  finalizedCases: ReadonlySet<string>,
  now: number,
): Group | null {
  if (booking.missedInterviewByBookingId) return null;
  const report = booking.interviewReportByBookingId;
  if (report) return report.state === "final" ? "finalized" : "drafts";
  const starts = booking.offer
    ? Date.parse(booking.offer.startsAt)
    : Number.POSITIVE_INFINITY;
  if (finalizedCases.has(booking.caseId))
    return starts <= now ? "followUps" : "upcoming";
  return starts <= now ? "due" : "upcoming";
}

const GROUPS: readonly Group[] = [
  "due",
  "drafts",
  "followUps",
  "upcoming",
  "finalized",
];

/** The interview's start in the viewer's profile time zone (one clock rule, issue 26). */
function Slot({ booking }: { booking: ReportBooking }) {
  const clock = useClock();
  if (!booking.offer) return null;
  return <time dateTime={booking.offer.startsAt}>{clock.dateTime(booking.offer.startsAt)}</time>;
}

function BookingList({ onChanged }: { onChanged(): void }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [data, setData] = useState<{
    bookings: ReportBooking[];
    finalized: Set<string>;
  } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let stale = false;
    Promise.all([loadReportBookings(), loadFinalizedCaseIds()]).then(
      ([bookings, finalized]) => !stale && setData({ bookings, finalized }),
      (caught: unknown) =>
        !stale &&
        setError(errorText(t, caught)),
    );
    return () => {
      stale = true;
    };
  }, [attempt]);
  if (error) return <Alert kind="error">{error}</Alert>;
  if (!data) return <Spinner label={t("report.loading")} />;
  const now = Date.now();
  const byGroup = new Map<Group, ReportBooking[]>();
  for (const booking of data.bookings) {
    const group = groupOf(booking, data.finalized, now);
    if (group) byGroup.set(group, [...(byGroup.get(group) ?? []), booking]);
  }
  const missed = async (booking: ReportBooking) => {
    const sure = await confirm({
      title: t("careTeam.missed.title"),
      message: t("report.list.confirmMissed"),
      confirmLabel: t("report.list.missed"),
      danger: true,
    });
    if (!sure) return;
    try {
      await recordMissed(booking.id);
      setAttempt((n) => n + 1);
      onChanged();
    } catch (caught) {
      setError(errorText(t, caught));
    }
  };
  return (
    <>
      {GROUPS.map((group) => {
        const list = (byGroup.get(group) ?? []).sort((a, b) =>
          (a.offer?.startsAt ?? "").localeCompare(b.offer?.startsAt ?? ""),
        );
        return (
          <section
            key={group}
            className="rl-group"
            aria-labelledby={`rl-${group}`}
          >
            <h2 id={`rl-${group}`}>{t(`report.list.${group}`)}</h2>
            {list.length === 0 ? (
              <p className="muted">{t("report.list.none")}</p>
            ) : (
              <ul className="rl-list">
                {list.map((booking) => (
                  <li key={booking.id}>
                    <span className="rl-who">
                      <Slot booking={booking} />
                      <bdi>
                        {personName(booking.caseByCaseId?.patient) ??
                          booking.interviewee?.username ??
                          isolateIdent(booking.caseByCaseId?.shortId)}
                      </bdi>
                    </span>
                    <span className="rl-actions">
                      {group === "followUps" ? (
                        <Link to={`/interviews/reports?feedback=${booking.id}`}>
                          {t(
                            booking.feedbackInterviewReportByBookingId
                              ? "report.list.openFeedback"
                              : "report.list.writeFeedback",
                          )}
                        </Link>
                      ) : group === "upcoming" && data.finalized.has(booking.caseId) ? null : group === "upcoming" ? (
                        // An intake report is prepared before the interview; it is signed after the start.
                        <Link to={`/interviews/reports?booking=${booking.id}`}>
                          {t(booking.interviewReportByBookingId ? "report.list.continue" : "careTeam.report.prepare")}
                        </Link>
                      ) : (
                        <Link to={`/interviews/reports?booking=${booking.id}`}>
                          {t(
                            group === "due"
                              ? "report.list.write"
                              : group === "drafts"
                                ? "report.list.continue"
                                : "report.list.open",
                          )}
                        </Link>
                      )}
                      {group === "due" ? (
                        <button
                          type="button"
                          className="button button--secondary button--small"
                          onClick={() => void missed(booking)}
                        >
                          {t("report.list.missed")}
                        </button>
                      ) : null}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </>
  );
}

export function ReportsPage() {
  const { t } = useTranslation();
  const session = useSession();
  const [params] = useSearchParams();
  const bookingId = params.get("booking");
  const feedbackId = params.get("feedback");
  const [interviewDate, setInterviewDate] = useState<string | null>(null);
  const [startsAt, setStartsAt] = useState<string | null>(null);
  const [caseId, setCaseId] = useState<string | null>(null);
  const userId = session.user?.id ?? "";
  const isCoordinator = session.user?.is_coordinator_account === true;
  const noop = useCallback(() => undefined, []);
  // The interview's day is the day on the interviewer's own clock, not in UTC (issue 26).
  const zone = useClock().zone;

  useEffect(() => {
    if (!bookingId) return;
    let stale = false;
    setInterviewDate(null);
    void loadReportBookings().then(
      (bookings) => {
        const found = bookings.find((b) => b.id === bookingId);
        if (!stale) setStartsAt(found?.offer?.startsAt ?? null);
        if (!stale) setCaseId(found?.caseId ?? null);
        if (!stale)
          setInterviewDate(
            dayKey(new Date(found?.offer?.startsAt ?? Date.now()), zone),
          );
      },
      () => !stale && setInterviewDate(dayKey(new Date(), zone)),
    );
    return () => {
      stale = true;
    };
  }, [bookingId, zone]);

  if (bookingId) {
    return (
      <Page title={t("report.title")}>
        <p>
          <Link to="/interviews/reports">{t("report.back")}</Link>
        </p>
        {interviewDate ? (
          <ReportForm
            key={bookingId}
            bookingId={bookingId}
            userId={userId}
            interviewDate={interviewDate}
            startsAt={startsAt}
            caseId={caseId}
            isCoordinator={isCoordinator}
            onFinalized={noop}
          />
        ) : (
          <Spinner label={t("report.loading")} />
        )}
      </Page>
    );
  }
  if (feedbackId) {
    return (
      <Page title={t("report.feedback.title")}>
        <p>
          <Link to="/interviews/reports">{t("report.back")}</Link>
        </p>
        <FeedbackForm key={feedbackId} bookingId={feedbackId} userId={userId} />
      </Page>
    );
  }
  return (
    <Page title={t("report.list.title")}>
      <BookingList onChanged={noop} />
    </Page>
  );
}
