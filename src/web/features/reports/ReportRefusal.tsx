/**
 * A refused save of the report, said beside the save button in the reader's language: what was
 * refused (by its code) and which fields, by their labels. What was typed stays on this device
 * (useAutosave keeps refused changes), so the line also says that nothing is lost.
 */
import { useTranslation } from "react-i18next";
import { INPUT_FIELDS } from "../../../domain/interview-report";
import type { Locale } from "../../../domain/locales";
import type { ApiError } from "../../api/client";
import { errorKey } from "../../api/error-key";
import { Alert } from "../../ui/ui";

/** The report fields a refusal names (the server lists them in its details as JSON). */
export function refusedFields(error: ApiError): string[] {
  const details = error.body?.details;
  if (typeof details !== "string") return [];
  try {
    const parsed: unknown = JSON.parse(details);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((p: unknown) =>
      p && typeof p === "object" && typeof (p as { field?: unknown }).field === "string" ? [(p as { field: string }).field] : [],
    );
  } catch {
    return [];
  }
}

export function ReportRefusal({ error, locale }: { error: ApiError; locale: Locale }) {
  const { t } = useTranslation();
  const key = error.code === "interview_not_started" ? "interview_not_started" : errorKey(error);
  const fields = refusedFields(error).map((id) => INPUT_FIELDS.find((f) => f.id === id)?.labels[locale] ?? null).filter((l): l is string => l !== null);
  return (
    <Alert kind="error">
      {t(`careTeam.report.refusal.${key}`, { defaultValue: t("careTeam.report.refusal.other") })}
      {fields.length > 0 ? ` ${t("careTeam.report.refusedFields", { fields: new Intl.ListFormat(locale, { type: "conjunction" }).format(fields) })}` : ""}{" "}
      {t("careTeam.report.keptHere")}
    </Alert>
  );
}
