/**
 * The sticky decision-support summary beside the form (src/domain/interview-report/decision.ts),
 * recomputed as the interviewer types. It proposes; the interviewer decides ("apply" buttons
 * fill the result fields, nothing is chosen silently).
 */
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import {
  FUTURE_REASONS,
  PRIMARY_PROBLEMS,
  REJECTED_REASONS,
  SUICIDALITY_RISKS,
  proposedReinviteDate,
  type DecisionSupport,
} from "../../../domain/interview-report";
import type { Locale } from "../../../domain/locales";
import type { Values } from "./useAutosave";

const labelOf = (
  list: readonly { code: string; labels: Record<Locale, string> }[],
  code: string | null | undefined,
  locale: Locale,
) => list.find((o) => o.code === code)?.labels[locale] ?? "–";

function Flag({
  on,
  label,
  alarm = true,
}: {
  on: boolean;
  label: string;
  alarm?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <li className={on && alarm ? "ds-flag ds-alarm" : "ds-flag"}>
      <span>{label}</span>
      <strong>{on ? t("report.yes") : t("report.no")}</strong>
    </li>
  );
}

export function DecisionSummary({
  support,
  values,
  locale,
  onApply,
  readOnly,
  extra,
}: {
  support: DecisionSupport;
  values: Values;
  locale: Locale;
  onApply(field: string, value: string | string[]): void;
  readOnly: boolean;
  /** Shown below the summary (the patient's screening scores on the report form). */
  extra?: ReactNode;
}) {
  const { t } = useTranslation();
  const s = support;
  const chosenFuture = Array.isArray(values.register_again_reasons)
    ? (values.register_again_reasons as string[])
    : [];
  const reinvite = proposedReinviteDate(
    chosenFuture.length > 0 ? chosenFuture : s.proposedFutureReasons,
    s,
  );
  const risk = s.suicidality.risk;
  return (
    <aside className="ds" aria-labelledby="ds-title">
      <h2 id="ds-title">{t("report.summary.title")}</h2>
      <ul className="ds-list">
        <li
          className={
            risk === "moderate" || risk === "high"
              ? "ds-flag ds-alarm"
              : "ds-flag"
          }
        >
          <span>{t("report.summary.mini")}</span>
          <strong>
            {s.suicidality.score === null
              ? "–"
              : `${s.suicidality.score} · ${labelOf(SUICIDALITY_RISKS, risk, locale)}`}
          </strong>
        </li>
        <li className={s.audit.exceeded ? "ds-flag ds-alarm" : "ds-flag"}>
          <span>{t("report.summary.audit", { cutOff: s.audit.cutOff })}</span>
          <strong>
            {s.audit.total === null
              ? "–"
              : `${s.audit.total}${s.audit.zone ? ` · ${t(`report.summary.zone.${s.audit.zone}`)}` : ""}`}
          </strong>
        </li>
        <li className={s.dast.atLeastCutOff ? "ds-flag ds-alarm" : "ds-flag"}>
          <span>{t("report.summary.dast")}</span>
          <strong>{s.dast.total ?? "–"}</strong>
        </li>
        <li className="ds-flag">
          <span>{t("report.summary.ptsd")}</span>
          <strong className="ds-clusters" dir="ltr">
            {(Object.entries(s.ptsd.groups) as [string, boolean][]).map(
              ([group, met]) => (
                <span
                  key={group}
                  className={met ? "ds-met" : "ds-unmet"}
                  title={
                    met ? t("report.summary.met") : t("report.summary.notMet")
                  }
                >
                  {group.toUpperCase()}
                  {met ? "✓" : "·"}
                </span>
              ),
            )}
          </strong>
        </li>
        <Flag
          on={s.mde.criterionA}
          label={t("report.summary.mdeA")}
          alarm={false}
        />
        <Flag on={s.psychosis} label={t("report.summary.psychosis")} />
        <Flag
          on={Object.values(s.bipolar).some(Boolean)}
          label={t("report.summary.bipolar")}
        />
        <Flag on={s.minor} label={t("report.summary.minor")} />
        <Flag on={s.traumaRecent} label={t("report.summary.traumaRecent")} />
        <Flag
          on={s.medicationUnstableBefore || s.medicationUnstableAfter}
          label={t("report.summary.medication")}
        />
        <Flag
          on={s.earlierTreatmentRecent}
          label={t("report.summary.earlierTreatment")}
        />
      </ul>
      <h3>{t("report.summary.proposal")}</h3>
      <p className="ds-proposal">
        <span dir="auto">
          {labelOf(PRIMARY_PROBLEMS, s.proposedPrimaryProblem, locale)}
        </span>
        {!readOnly && values.primary_problem !== s.proposedPrimaryProblem ? (
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => onApply("primary_problem", s.proposedPrimaryProblem)}
          >
            {t("report.summary.apply")}
          </button>
        ) : null}
      </p>
      {s.proposedRejectedReasons.length > 0 ? (
        <>
          <h3>{t("report.summary.rejectedReasons")}</h3>
          <ul className="ds-reasons">
            {s.proposedRejectedReasons.map((r) => (
              <li key={r} dir="auto">
                {labelOf(REJECTED_REASONS, r, locale)}
              </li>
            ))}
          </ul>
          {!readOnly ? (
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() =>
                onApply("rejected_reasons", [...s.proposedRejectedReasons])
              }
            >
              {t("report.summary.applyRejected")}
            </button>
          ) : null}
        </>
      ) : null}
      {s.proposedFutureReasons.length > 0 ? (
        <>
          <h3>{t("report.summary.futureReasons")}</h3>
          <ul className="ds-reasons">
            {s.proposedFutureReasons.map((r) => (
              <li key={r} dir="auto">
                {labelOf(FUTURE_REASONS, r, locale)}
                {s.futureReasonExpiry[r] ? (
                  <span dir="ltr"> · {s.futureReasonExpiry[r]}</span>
                ) : null}
              </li>
            ))}
          </ul>
          {!readOnly ? (
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() =>
                onApply("register_again_reasons", [...s.proposedFutureReasons])
              }
            >
              {t("report.summary.applyFuture")}
            </button>
          ) : null}
        </>
      ) : null}
      {reinvite &&
      !readOnly &&
      values.register_again === true &&
      values.register_again_on !== reinvite ? (
        <p>
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() => onApply("register_again_on", reinvite)}
          >
            {t("report.summary.applyDate", { date: reinvite })}
          </button>
        </p>
      ) : null}
      {extra}
    </aside>
  );
}
