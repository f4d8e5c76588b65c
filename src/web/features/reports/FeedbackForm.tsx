/** The follow-up feedback report (spec §3 FeedbackInterviewReport): eight fields, saved as typed. */
import { errorText } from "../../ui/ErrorAlert";
import { useTranslation } from "react-i18next";
import { FEEDBACK_FIELDS } from "../../../domain/interview-report";
import { isLocale, type Locale } from "../../../domain/locales";
import { Alert, Spinner } from "../../ui/ui";
import { loadFeedbackOfBooking, saveFeedback } from "./api";
import { ReportField } from "./ReportField";
import { useAutosave, type Values } from "./useAutosave";

export function FeedbackForm({
  bookingId,
  userId,
}: {
  bookingId: string;
  userId: string;
}) {
  const { t, i18n } = useTranslation();
  const locale: Locale = isLocale(i18n.language) ? i18n.language : "ar";
  const feedback = useAutosave<Values>(
    "feedback",
    bookingId,
    userId,
    loadFeedbackOfBooking,
    saveFeedback,
  );
  if (feedback.loadError)
    return <Alert kind="error">{errorText(t, feedback.loadError)}</Alert>;
  if (!feedback.values) return <Spinner label={t("report.loading")} />;
  const values = feedback.values;
  return (
    <form
      className="rp-form rp-feedback"
      onSubmit={(e) => (e.preventDefault(), void feedback.flush())}
    >
      <h2>{t("report.feedback.title")}</h2>
      {FEEDBACK_FIELDS.map((f) => (
        <ReportField
          key={f.id}
          id={f.id}
          label={f.labels[locale]}
          type={f.type}
          value={values[f.id]}
          locale={locale}
          onChange={(value, options) => feedback.set(f.id, value, options)}
        />
      ))}
      {feedback.rejected ? (
        <Alert kind="error">{errorText(t, feedback.rejected)}</Alert>
      ) : null}
      <div className="rp-actions">
        <span className="rp-state" role="status">
          {t(`report.saveState.${feedback.saveState}`)}
        </span>
        <button type="submit" className="button">
          {t("report.save")}
        </button>
      </div>
    </form>
  );
}
