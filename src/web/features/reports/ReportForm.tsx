/**
 * The form "Interviewbericht" (spec §2): the eight sections with per-section progress, fields
 * drawn from the one definition, saved as the interviewer types (the answer outbox), a sticky
 * decision-support summary, "speichern" (save now) and "finalize". A finalize the rules refuse
 * shows the rules by name; a coordinator may override a hard rule with a reason. A finalized
 * report is shown read-only; a coordinator may amend it with a reason.
 */
import { errorText } from "../../ui/ErrorAlert";
import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type FormEvent,
} from "react";
import { useTranslation } from "react-i18next";
import {
  decisionSupport,
  emptySections,
  sectionProgress,
  GROUP_LABELS,
  INPUT_FIELDS,
  REPORT_SECTIONS,
  validateReportValues,
  type ReportSection,
  type ReportValue,
} from "../../../domain/interview-report";
import { isLocale, type Locale } from "../../../domain/locales";
import { ApiError } from "../../api/client";
import { useConfirm, useConfirmWithReason } from "../../ui/confirm";
import { Alert, Spinner } from "../../ui/ui";
import { ReportRefusal } from "./ReportRefusal";
import { ScreeningScores } from "./ScreeningScores";
import { loadScreeningDemographics } from "./api";
import {
  amendReport,
  finalizeReport,
  loadReportOfBooking,
  saveReport,
  type ReportRow,
} from "./api";
import { DecisionSummary } from "./DecisionSummary";
import { ReportField } from "./ReportField";
import { ReportView } from "./ReportView";
import { useAutosave, type Autosave, type Values } from "./useAutosave";

interface Problem {
  rule: string;
  overridable: boolean;
  message: string;
}

/** Kept here for the screen's tests; the rule lives in src/domain/interview-report/completeness.ts. */
export { sectionProgress };

function SectionFields({
  section,
  values,
  locale,
  set,
  readOnly,
}: {
  section: ReportSection;
  values: Values;
  locale: Locale;
  set: (
    field: string,
    value: ReportValue,
    options?: { typing?: boolean },
  ) => void;
  readOnly?: boolean;
}) {
  const fields = INPUT_FIELDS.filter((f) => f.section === section);
  const groups = [...new Set(fields.map((f) => f.group))];
  return (
    <>
      {groups.map((group) => (
        <div key={group} className="rp-group">
          {GROUP_LABELS[group] ? <h3>{GROUP_LABELS[group][locale]}</h3> : null}
          <div
            className={
              fields
                .filter((f) => f.group === group)
                .every((f) => f.type.kind === "bool")
                ? "rp-fields rp-compact"
                : "rp-fields"
            }
          >
            {fields
              .filter((f) => f.group === group)
              .map((f) => (
                <ReportField
                  key={f.id}
                  id={f.id}
                  label={f.labels[locale]}
                  type={f.type}
                  value={values[f.id]}
                  locale={locale}
                  readOnly={readOnly}
                  onChange={(value, options) => set(f.id, value, options)}
                />
              ))}
          </div>
        </div>
      ))}
    </>
  );
}

/**
 * Patient data the patient already gave (age and gender of the screening's baseline
 * questionnaire) fills the report's empty fields once, as if typed: saved, and changeable.
 */
function usePrefill(report: Autosave<ReportRow>, caseId: string | null): void {
  const done = useRef(false);
  const { values, set } = report;
  const final = report.row?.state === "final";
  useEffect(() => {
    if (done.current || !values || !caseId || final) return;
    done.current = true;
    void loadScreeningDemographics(caseId).then((given) => {
      if (!given) return;
      if (given.age !== null && !answeredValue(values.age)) set("age", given.age);
      if (given.gender !== null && !answeredValue(values.sex)) set("sex", given.gender);
    }, () => undefined);
  }, [values, caseId, final, set]);
}

const answeredValue = (value: ReportValue | undefined) => value !== null && value !== undefined && value !== "";

export function ReportForm({
  bookingId,
  userId,
  interviewDate,
  startsAt,
  caseId,
  isCoordinator,
  onFinalized,
}: {
  bookingId: string;
  userId: string;
  interviewDate: string;
  /** The interview's start: before it, the report is prepared; signing waits for it. */
  startsAt: string | null;
  /** The booking's case: its screening answers pre-fill the patient data and its scores are shown. */
  caseId: string | null;
  isCoordinator: boolean;
  onFinalized(): void;
}) {
  const confirm = useConfirm();
  const confirmWithReason = useConfirmWithReason();
  const { t, i18n } = useTranslation();
  const locale: Locale = isLocale(i18n.language) ? i18n.language : "ar";
  const report = useAutosave<ReportRow>(
    "report",
    bookingId,
    userId,
    loadReportOfBooking,
    saveReport,
  );
  const { values, saveState } = report;
  const support = useMemo(
    () => decisionSupport(values ?? {}, interviewDate),
    [values, interviewDate],
  );
  usePrefill(report, caseId);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [overrideReason, setOverrideReason] = useState("");
  const [busy, setBusy] = useState(false);
  const problemsRef = useRef<HTMLDivElement>(null);
  // A refusal is read at once: focus moves to the list of rules (screen readers announce it).
  useEffect(() => {
    if (problems.length > 0) problemsRef.current?.focus();
  }, [problems]);

  const finalize = useCallback(
    async (event: FormEvent) => {
      event.preventDefault();
      setError(null);
      if (startsAt && Date.parse(startsAt) > Date.now()) {
        setError(t("careTeam.report.signAfterStart"));
        return;
      }
      // Signing is final and drives the trial: it is confirmed, naming what follows; whole
      // sections left empty are listed and need a reason, which is kept with the report.
      const empty = emptySections(values ?? {});
      const question = {
        title: t("careTeam.sign.title"),
        message: t("careTeam.sign.message"),
        confirmLabel: t("report.finalize"),
        danger: true,
      };
      let emptyReason: string | undefined;
      if (empty.length > 0) {
        const given = await confirmWithReason({
          ...question,
          message: `${t("careTeam.sign.message")} ${t("careTeam.sign.emptySections", { count: empty.length })}`,
          items: empty.map((section) => t(`report.sections.${section}`)),
          reasonLabel: t("careTeam.sign.emptyReason"),
        });
        if (given === null) return;
        emptyReason = given;
      } else if (!(await confirm(question))) return;
      setBusy(true);
      try {
        if (!(await report.flush()))
          throw new ApiError(0, "network", t("report.offline"));
        const stored = await loadReportOfBooking(bookingId);
        if (!stored) throw new ApiError(400, "empty", t("report.empty"));
        await finalizeReport(stored.id, overrideReason.trim() || undefined, emptyReason);
        setProblems([]);
        onFinalized();
        report.reload();
      } catch (caught) {
        if (caught instanceof ApiError && Array.isArray(caught.body.problems))
          setProblems(caught.body.problems as Problem[]);
        else if (caught instanceof ApiError && caught.code === "interview_not_started")
          setError(t("careTeam.report.signAfterStart"));
        else
          setError(errorText(t, caught));
      } finally {
        setBusy(false);
      }
    },
    [report, bookingId, overrideReason, onFinalized, t, values, startsAt, confirm, confirmWithReason],
  );

  if (report.loadError)
    return <Alert kind="error">{errorText(t, report.loadError)}</Alert>;
  if (!values) return <Spinner label={t("report.loading")} />;
  if (report.row?.state === "final")
    return (
      <FinalReport
        report={report.row}
        isCoordinator={isCoordinator}
        onAmended={report.reload}
      />
    );

  const apply = (field: string, value: string | string[]) =>
    report.set(field, value);
  const canOverride =
    isCoordinator &&
    problems.length > 0 &&
    problems.every((p) => p.overridable);
  return (
    <div className="rp-layout">
      <nav className="rp-nav" aria-label={t("report.sectionsNav")}>
        <ol>
          {REPORT_SECTIONS.map((section, index) => {
            const { done, total } = sectionProgress(values, section);
            return (
              <li key={section}>
                <a href={`#rp-${section}`}>
                  <span>
                    {index + 1}. {t(`report.sections.${section}`)}
                  </span>
                  <span
                    className={
                      done === total ? "rp-progress rp-done" : "rp-progress"
                    }
                    dir="ltr"
                    aria-label={t("report.progress", { done, total })}
                  >
                    {done}/{total}
                  </span>
                </a>
              </li>
            );
          })}
        </ol>
      </nav>
      <form className="rp-form" onSubmit={(e) => void finalize(e)} noValidate>
        {startsAt && Date.parse(startsAt) > Date.now() ? (
          <Alert kind="info">{t("careTeam.report.preparing")}</Alert>
        ) : null}
        {REPORT_SECTIONS.map((section, index) => (
          <section
            key={section}
            id={`rp-${section}`}
            className="rp-section"
            aria-labelledby={`rp-${section}-title`}
          >
            <h2 id={`rp-${section}-title`} tabIndex={-1}>
              {index + 1}. {t(`report.sections.${section}`)}
            </h2>
            <SectionFields
              section={section}
              values={values}
              locale={locale}
              set={report.set}
            />
          </section>
        ))}
        {problems.length > 0 ? (
          <div ref={problemsRef} tabIndex={-1} className="rp-problems">
            <Alert kind="error" title={t("report.refused")}>
              <ul>
                {problems.map((p) => (
                  <li key={p.rule}>
                    {t([`report.rules.${p.rule}`, `trialRules.rules.${p.rule}`], { defaultValue: p.message })}
                  </li>
                ))}
              </ul>
              {canOverride ? (
                <div className="rf">
                  <label htmlFor="rp-override">
                    {t("report.overrideReason")}
                  </label>
                  <textarea
                    id="rp-override"
                    dir="auto"
                    rows={2}
                    value={overrideReason}
                    onChange={(e) => setOverrideReason(e.target.value)}
                  />
                </div>
              ) : problems.some((p) => p.overridable) ? (
                <p>{t("report.onlyCoordinatorOverrides")}</p>
              ) : null}
            </Alert>
          </div>
        ) : null}
        <div className="rp-actions">
          {error ? <Alert kind="error" focusOnShow>{error}</Alert> : null}
          {report.rejected ? <ReportRefusal error={report.rejected} locale={locale} /> : null}
          <span className="rp-state" role="status">
            {t(`report.saveState.${saveState}`)}
          </span>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => void report.flush()}
          >
            {t("report.save")}
          </button>
          <button type="submit" className="button" disabled={busy}>
            {canOverride ? t("report.finalizeOverride") : t("report.finalize")}
          </button>
        </div>
      </form>
      <DecisionSummary
        support={support}
        values={values}
        locale={locale}
        onApply={apply}
        readOnly={false}
        extra={caseId ? <ScreeningScores caseId={caseId} locale={locale} /> : null}
      />
    </div>
  );
}

/** A finalized report; a coordinator may amend it with a reason (the earlier version stays). */
function FinalReport({
  report,
  isCoordinator,
  onAmended,
}: {
  report: ReportRow;
  isCoordinator: boolean;
  onAmended(): void;
}) {
  const { t, i18n } = useTranslation();
  const locale: Locale = isLocale(i18n.language) ? i18n.language : "ar";
  const [editing, setEditing] = useState(false);
  const [changes, setChanges] = useState<Values>({});
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  // The hard rules the amended values break (issue 27): the coordinator gives a reason to override.
  const [ruleProblems, setRuleProblems] = useState<Problem[]>([]);
  const [overrideReason, setOverrideReason] = useState("");
  const values = { ...(report as Values), ...changes };
  if (!editing) {
    return (
      <>
        <ReportView report={report} />
        {isCoordinator ? (
          <button
            type="button"
            className="button button--secondary"
            onClick={() => setEditing(true)}
          >
            {t("report.amend")}
          </button>
        ) : null}
      </>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems = validateReportValues(changes);
    if (problems.length > 0)
      return setError(problems.map((p) => p.message).join(" "));
    try {
      await amendReport(report.id, reason.trim(), changes, overrideReason.trim() || undefined);
      setEditing(false);
      setChanges({});
      setRuleProblems([]);
      setOverrideReason("");
      onAmended();
    } catch (caught) {
      if (caught instanceof ApiError && Array.isArray(caught.body.problems)) {
        setError(null);
        return setRuleProblems(caught.body.problems as Problem[]);
      }
      setError(errorText(t, caught));
    }
  };
  return (
    <form className="rp-form rp-amend" onSubmit={(e) => void submit(e)}>
      {REPORT_SECTIONS.map((section, index) => (
        <section key={section} className="rp-section">
          <h2>
            {index + 1}. {t(`report.sections.${section}`)}
          </h2>
          <SectionFields
            section={section}
            values={values}
            locale={locale}
            set={(field, value) =>
              setChanges((c) => ({ ...c, [field]: value }))
            }
          />
        </section>
      ))}
      <div className="rf">
        <label htmlFor="rp-amend-reason">{t("report.amendReason")}</label>
        <textarea
          id="rp-amend-reason"
          dir="auto"
          rows={2}
          required
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      {ruleProblems.length > 0 ? (
        <Alert kind="error" title={t("trialRules.amendRefused")} focusOnShow>
          <ul>
            {ruleProblems.map((p) => (
              <li key={p.rule}>
                {t([`report.rules.${p.rule}`, `trialRules.rules.${p.rule}`], { defaultValue: p.message })}
              </li>
            ))}
          </ul>
          {ruleProblems.every((p) => p.overridable) ? (
            <div className="rf">
              <label htmlFor="rp-amend-override">{t("report.overrideReason")}</label>
              <textarea
                id="rp-amend-override"
                dir="auto"
                rows={2}
                value={overrideReason}
                onChange={(e) => setOverrideReason(e.target.value)}
              />
            </div>
          ) : null}
        </Alert>
      ) : null}
      {error ? <Alert kind="error" focusOnShow>{error}</Alert> : null}
      <div className="rp-actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => setEditing(false)}
        >
          {t("report.cancel")}
        </button>
        <button
          type="submit"
          className="button"
          disabled={reason.trim() === "" || Object.keys(changes).length === 0}
        >
          {t("report.saveAmendment")}
        </button>
      </div>
    </form>
  );
}
