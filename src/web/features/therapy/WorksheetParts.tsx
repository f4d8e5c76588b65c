/**
 * Pieces shared by the patient's worksheets and the staff's case section: a sent entry shown
 * read-only, the state badge, the feedback under an entry, and a letter's text (Markdown).
 */
import { useTranslation } from 'react-i18next';
import { WORKSHEETS, type WorksheetCode, type WorksheetState } from '../../../domain/worksheets';
import { useClock } from '../../ui/useClock';
import { Markdown } from '../content/markdown';
import type { Feedback, WorksheetEntry } from './api';

export function StateBadge({ state }: { state: WorksheetState }) {
  const { t } = useTranslation();
  return <span className={`therapy-badge therapy-badge--${state}`}>{t(`therapy.state.${state}`)}</span>;
}


/** The fields of an entry as text, in the worksheet's order; empty fields are left out. */
export function EntryFields({ code, entry }: { code: WorksheetCode; entry: WorksheetEntry }) {
  const { t, i18n } = useTranslation();
  const list = new Intl.ListFormat(i18n.language, { type: 'unit' });
  return (
    <dl className="therapy-fields">
      {WORKSHEETS[code].fields.map((field) => {
        const value = entry[field.name];
        if (value === null || value === undefined || (Array.isArray(value) && value.length === 0) || value === '') return null;
        const shown = Array.isArray(value) ? list.format(value.map((v) => t(`therapy.bias.${String(v)}`))) : String(value);
        return (
          <div key={field.name}>
            <dt>{t(`therapy.field.${field.name}`)}</dt>
            <dd dir="auto">{shown}</dd>
          </div>
        );
      })}
    </dl>
  );
}

/** A letter's text: Markdown (it usually starts from a template), line breaks as typed. */
export function LetterBody({ body }: { body: string }) {
  return (
    <div className="therapy-letter__body">
      <Markdown source={body} skipTitle={false} lineBreaks />
    </div>
  );
}

export function FeedbackList({ feedback }: { feedback: Feedback[] }) {
  const clock = useClock();
  const { t } = useTranslation();
  const sent = feedback.filter((f) => f.published_at);
  if (sent.length === 0) return null;
  return (
    <div className="therapy-feedback">
      {sent.map((f) => (
        <section key={f.id} aria-label={t('therapy.feedbackTitle')}>
          <h4>
            {t('therapy.feedbackTitle')} · {clock.dateTime(f.published_at!)}
          </h4>
          {f.format === 'markdown' ? (
            <div dir="auto">
              <Markdown source={f.body} skipTitle={false} lineBreaks />
            </div>
          ) : (
            <p dir="auto">{f.body}</p>
          )}
        </section>
      ))}
    </div>
  );
}
