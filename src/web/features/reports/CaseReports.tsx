/**
 * The finalized interview reports of a case, read-only, for its staff (the database shows them
 * only to the case's staff, the interviewer and coordinators; for anyone else this renders
 * nothing). Mounted on the case detail page.
 */
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { loadFinalReportsOfCase, type ReportRow } from "./api";
import { ReportView } from "./ReportView";
import "./reports.css";

export function CaseReports({ caseId }: { caseId: string }) {
  const { t } = useTranslation();
  const [reports, setReports] = useState<ReportRow[] | null>(null);
  useEffect(() => {
    let stale = false;
    loadFinalReportsOfCase(caseId).then(
      (rows) => !stale && setReports(rows),
      () => !stale && setReports([]),
    );
    return () => {
      stale = true;
    };
  }, [caseId]);
  if (!reports || reports.length === 0) return null;
  return (
    <section aria-labelledby="case-reports-title" className="case-reports">
      <h2 id="case-reports-title">{t("report.title")}</h2>
      {reports.map((report) => (
        <details key={report.id} open={reports.length === 1}>
          <summary>
            {t("report.view.summary", {
              outcome: report.trial_outcome
                ? t(`report.outcome.${report.trial_outcome}`)
                : "",
            })}
          </summary>
          <ReportView report={report} />
        </details>
      ))}
    </section>
  );
}
