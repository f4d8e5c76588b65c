/**
 * A finalized report, read-only, section by section; with its signature, an override or
 * amendment and (on request) the earlier versions. Used on /interviews/reports and on the case
 * detail (CaseReports).
 */
import { useState } from "react";
import { useTranslation } from "react-i18next";
import {
  GROUP_LABELS,
  REPORT_FIELDS,
  REPORT_SECTIONS,
  type ReportField,
  type ReportValue,
} from "../../../domain/interview-report";
import { isLocale, type Locale } from "../../../domain/locales";
import { useClock } from "../../ui/useClock";
import { loadReportVersions, type ReportRow } from "./api";
import { SignatureManifests } from "../signing/SignatureManifests";

export function displayValue(
  field: ReportField,
  value: ReportValue | undefined,
  locale: Locale,
  yesNo: { yes: string; no: string },
): string | null {
  if (
    value === null ||
    value === undefined ||
    (Array.isArray(value) && value.length === 0)
  )
    return null;
  const type = field.type;
  if (type.kind === "bool") return value === true ? yesNo.yes : yesNo.no;
  if (type.kind === "enum")
    return (
      type.options.find((o) => o.code === value)?.labels[locale] ??
      String(value)
    );
  if (type.kind === "enums")
    return (value as string[])
      .map(
        (code) =>
          type.options.find((o) => o.code === code)?.labels[locale] ?? code,
      )
      .join(" · ");
  return String(value);
}

export function ReportView({
  report,
  showVersions = true,
}: {
  report: ReportRow;
  showVersions?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const locale: Locale = isLocale(i18n.language) ? i18n.language : "ar";
  // Signed and amended times in the reader's profile zone, not the browser's (issue 26).
  const clock = useClock();
  const when = (value: string | null) => (value ? clock.dateTime(value) : "");
  const yesNo = { yes: t("report.yes"), no: t("report.no") };
  const [versions, setVersions] = useState<ReportRow[] | null>(null);
  return (
    <article className="rv" aria-label={t("report.title")}>
      <p className="rv-signature">
        {report.state === "final"
          ? t("report.view.signed", {
              when: when(report.finalized_at),
              version: report.version,
            })
          : t("report.view.draft")}
        {report.trial_outcome
          ? ` · ${t(`report.outcome.${report.trial_outcome}`)}`
          : ""}
      </p>
      {report.override_reason ? (
        <p className="rv-note">
          {t("report.view.override", { reason: report.override_reason })}
        </p>
      ) : null}
      {report.amendment_reason ? (
        <p className="rv-note">
          {t("report.view.amended", {
            when: when(report.amended_at),
            reason: report.amendment_reason,
          })}
        </p>
      ) : null}
      {REPORT_SECTIONS.map((section) => {
        const rows = REPORT_FIELDS.filter((f) => f.section === section)
          .map(
            (f) => [f, displayValue(f, report[f.id], locale, yesNo)] as const,
          )
          .filter(([, text]) => text !== null);
        if (rows.length === 0) return null;
        return (
          <section key={section} className="rv-section">
            <h3>{t(`report.sections.${section}`)}</h3>
            <dl className="rv-facts">
              {rows.map(([f, text]) => (
                <div key={f.id}>
                  <dt dir="auto">
                    {f.group !== section && GROUP_LABELS[f.group] ? (
                      <span className="muted">
                        {GROUP_LABELS[f.group]![locale]} ·{" "}
                      </span>
                    ) : null}
                    {f.labels[locale]}
                  </dt>
                  <dd dir="auto">{text}</dd>
                </div>
              ))}
            </dl>
          </section>
        );
      })}
      {showVersions && report.version > 1 ? (
        versions === null ? (
          <button
            type="button"
            className="button button--secondary button--small"
            onClick={() =>
              void loadReportVersions(report.id).then(setVersions, () =>
                setVersions([]),
              )
            }
          >
            {t("report.view.showVersions")}
          </button>
        ) : (
          <section className="rv-versions">
            <h3>{t("report.view.versions")}</h3>
            {versions.map((v) => (
              <details key={v.version}>
                <summary>
                  {t("report.view.version", { version: v.version })}
                </summary>
                <ReportView report={v} showVersions={false} />
              </details>
            ))}
          </section>
        )
      ) : null}
      {/* Issue 30: the e-signatures of this report (signing, amendments, rule overrides). */}
      {showVersions && report.state === "final" ? <SignatureManifests by={{ recordId: report.id }} /> : null}
    </article>
  );
}
