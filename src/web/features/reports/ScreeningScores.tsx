/**
 * Beside the decision support: what the patient already answered at screening, so the
 * interviewer sees it while deciding. Each screening instrument's total with its band and the
 * cut-offs it is read against (the instrument's configured cut-off, else its band limits).
 */
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { isolateLatin } from "../../../domain/bidi";
import { INSTRUMENTS, type InstrumentDefinition } from "../../../domain/instruments";
import type { Locale } from "../../../domain/locales";
import { caseScoresQuery } from "../scores/api";

/** The cut-offs of an instrument: its configured cut-off, else the lower limits of its bands above the first. */
export function cutOffs(definition: InstrumentDefinition): number[] {
  const configured = (definition.config as { cutOff?: unknown }).cutOff;
  if (typeof configured === "number") return [configured];
  return (definition.bands ?? []).slice(1).map((b) => b.min);
}

export function ScreeningScores({ caseId, locale }: { caseId: string; locale: Locale }) {
  const { t } = useTranslation();
  const { data } = useQuery(caseScoresQuery(caseId));
  const rows = (data ?? []).filter((r) => r.timeOfMeasurement === "screening" && r.total !== null);
  const number = new Intl.NumberFormat(locale);
  return (
    <section className="ds-scores" aria-labelledby="ds-scores-title">
      <h3 id="ds-scores-title">{t("careTeam.report.screeningScores")}</h3>
      {rows.length === 0 ? (
        <p className="muted">{t("careTeam.report.noScreeningScores")}</p>
      ) : (
        <ul className="plain-list">
          {rows.map((row) => {
            const definition = (INSTRUMENTS as Record<string, InstrumentDefinition | undefined>)[row.instrument];
            if (!definition) return null;
            const band = definition.bands?.find((b) => b.code === row.band);
            const limits = cutOffs(definition);
            return (
              <li key={`${row.instrument}-${row.createdAt}`} className="ds-flag">
                <span>
                  {isolateLatin(definition.labels[locale])}
                  {band ? ` · ${isolateLatin(band.labels[locale])}` : ""}
                  {limits.length > 0 ? (
                    <span className="muted"> ({t("careTeam.report.cutOffs", { values: limits.map((v) => number.format(v)).join(" · ") })})</span>
                  ) : null}
                </span>
                <strong>{number.format(row.total ?? 0)}</strong>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
