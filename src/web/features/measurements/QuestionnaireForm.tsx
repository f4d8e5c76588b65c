/**
 * The one form renderer for every questionnaire. On phones it asks one item per screen with
 * its place in the questionnaire ("3 of 9" and a bar); on wide screens the whole questionnaire
 * is one page. Every answer is saved as it is given (see useQuestionnaire); a returning patient
 * continues at the first unanswered item. The last step is a review of all answers, with a way
 * back to each, and submitting checks that every required item is answered. Scores are never
 * shown: patients do not see them.
 */
import { TextWithIdents } from '../../ui/Ident';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { wordingFor, type AnswerValue, type InstrumentCode, type ItemDefinition } from '../../../domain/instruments';
import { isAnswered } from '../../../domain/instruments/answers';
import type { Locale } from '../../../domain/locales';
import type { MeasurementTime } from '../../../domain/measurements';
import { missingRequired, nextItemId, pageProblem, previousItemId, progressOf, resumeItemId, visibleItems } from '../../../domain/questionnaire-form';
import { Alert, Spinner } from '../../ui/ui';
import { choicesOf, ItemField, itemText } from './ItemField';
import { NARROW_SCREEN, useMediaQuery } from '../../ui/useMediaQuery';
import { useQuestionnaire, type QuestionnaireState } from './useQuestionnaire';
import { SafetyAnswerPanel } from '../safety/CrisisPanel';

export interface QuestionnaireFormProps {
  code: InstrumentCode;
  time: MeasurementTime;
  caseId: string;
  userId: string;
  /** This questionnaire's place in the time's battery. */
  position: number;
  count: number;
  onComplete(): void;
}

const REVIEW = 'review';

/** Moves focus into an item (its chosen option, else its first control) for keyboard and screen-reader users. */
function focusItem(container: HTMLElement | null, itemId: string): void {
  const item = container?.querySelector<HTMLElement>(`[data-item="${CSS.escape(itemId)}"]`);
  const control = item?.querySelector<HTMLElement>('input:checked') ?? item?.querySelector<HTMLElement>('input, textarea, select');
  control?.focus();
  item?.scrollIntoView?.({ block: 'nearest' });
}

export function QuestionnaireForm(props: QuestionnaireFormProps) {
  const { i18n } = useTranslation();
  const locale = i18n.language as Locale;
  const state = useQuestionnaire(props.code, props.time, props.caseId, props.userId, locale);
  const { t } = useTranslation();
  if (state.loadError) {
    return (
      <Alert kind="error" title={t('measurements.loadFailed')}>
        <button type="button" className="button button--secondary button--small" onClick={state.reload}>
          {t('measurements.tryAgain')}
        </button>
      </Alert>
    );
  }
  if (!state.answers) return <Spinner />;
  return <LoadedForm {...props} state={state} locale={locale} />;
}

function SaveStatus({ state }: { state: QuestionnaireState }) {
  const { t } = useTranslation();
  return (
    <p className={`save-status save-status--${state.saveState}`} role="status" aria-live="polite">
      {t(`measurements.saveState.${state.saveState}`)}
    </p>
  );
}

/** "Question x of y" from `progressOf`: it never jumps backwards as branches open (issue 25). */
function Progress({ current, total }: { current: number; total: number }) {
  const { t } = useTranslation();
  const label = t('patientForm.questionOf', { current, total });
  return (
    <div className="progress">
      <span className="progress__label">{label}</span>
      <div className="progress__bar" role="progressbar" aria-label={label} aria-valuemin={1} aria-valuemax={total} aria-valuenow={current}>
        <div className="progress__fill" style={{ inlineSize: `${Math.round((current / total) * 100)}%` }} />
      </div>
    </div>
  );
}

function LoadedForm({ code, caseId, position, count, onComplete, state, locale }: QuestionnaireFormProps & { state: QuestionnaireState; locale: Locale }) {
  const { t } = useTranslation();
  const narrow = useMediaQuery(NARROW_SCREEN);
  const { definition, wording } = state;
  const answers = state.answers ?? {};
  const [current, setCurrent] = useState<string>(() => resumeItemId(definition, answers) ?? REVIEW);
  const [showMissing, setShowMissing] = useState(false);
  // Items whose field holds typed text that is not an answer, and whether "Next" was refused.
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(() => new Set());
  const [blocked, setBlocked] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [submitFailed, setSubmitFailed] = useState(false);
  // Changing one answer from the review leads back to the review, not through every item.
  const [fromReview, setFromReview] = useState(false);
  const container = useRef<HTMLDivElement>(null);
  const focusTarget = useRef<string | null>(null);
  const items = visibleItems(definition, answers);
  const missing = missingRequired(definition, answers);
  const title = wordingFor(definition, { kind: 'title' }, locale, wording) ?? code;
  // Without installed instructions the patient still gets one in the second person; the
  // project's own questionnaires are their own wording and need none.
  const instructions = wordingFor(definition, { kind: 'instructions' }, locale, wording) ?? (definition.licence.itemText === 'project' ? undefined : t('patientForm.neutralIntro'));

  // An item hidden by a changed answer cannot stay the current one.
  const currentItem = items.find((item) => item.id === current);
  useEffect(() => {
    if (current !== REVIEW && !currentItem) setCurrent(resumeItemId(definition, answers) ?? REVIEW);
  }, [current, currentItem]);

  // After moving, focus follows: the item on phones, the review heading at the review.
  useEffect(() => {
    const target = focusTarget.current;
    focusTarget.current = null;
    if (!target) return;
    if (target === REVIEW) container.current?.querySelector<HTMLElement>('#review-heading')?.focus();
    else focusItem(container.current, target);
  }, [current, narrow]);

  function go(target: string | undefined): void {
    const next = target ?? REVIEW;
    setBlocked(false);
    if (next === REVIEW) setFromReview(false);
    focusTarget.current = next;
    setCurrent(next);
    if (next === REVIEW) void state.flush();
  }

  function setValidity(itemId: string, isInvalid: boolean): void {
    setInvalid((before) => {
      if (before.has(itemId) === isInvalid) return before;
      const after = new Set(before);
      if (isInvalid) after.add(itemId);
      else after.delete(itemId);
      return after;
    });
  }

  function goNext(event?: FormEvent): void {
    event?.preventDefault();
    // A required item left out or typed text that is not an answer keeps the patient here,
    // told why, with the focus on the item (issue 25: an age in words was dropped silently).
    const problem = currentItem ? pageProblem(narrow ? [currentItem] : items, answers, invalid) : undefined;
    if (problem) {
      setBlocked(true);
      focusItem(container.current, problem.itemId);
      return;
    }
    setBlocked(false);
    if (narrow && current !== REVIEW && !fromReview) go(nextItemId(definition, answers, current));
    else go(REVIEW);
  }

  /** Enter continues from a choice too (browsers submit only from text fields by themselves). */
  function onKeyDown(event: KeyboardEvent<HTMLFormElement>): void {
    const target = event.target as HTMLElement;
    if (event.key !== 'Enter' || target.tagName === 'TEXTAREA' || target.tagName === 'BUTTON' || target.tagName === 'A') return;
    event.preventDefault();
    goNext();
  }

  function edit(itemId: string): void {
    setShowMissing(false);
    setFromReview(true);
    focusTarget.current = itemId;
    setCurrent(itemId);
  }

  async function submit(): Promise<void> {
    if (missing.length > 0) {
      setShowMissing(true);
      requestAnimationFrame(() => container.current?.querySelector<HTMLElement>('#missing-heading')?.focus());
      return;
    }
    setSubmitting(true);
    setSubmitFailed(false);
    const saved = await state.flush();
    // Stays "sending" until the next questionnaire replaces this one, so it is sent once.
    if (saved) return onComplete();
    setSubmitting(false);
    setSubmitFailed(true);
  }

  const header = (
    <header className="questionnaire__header">
      <p className="muted questionnaire__position">{t('measurements.questionnaireOf', { current: position, total: count })}</p>
      <h2 className="questionnaire__title">
        <TextWithIdents text={title} />
      </h2>
      {instructions ? <p className="questionnaire__instructions">{instructions}</p> : null}
    </header>
  );

  if (current === REVIEW || !currentItem) {
    return (
      <div ref={container} className="questionnaire">
        {header}
        <h3 id="review-heading" tabIndex={-1}>
          {t('measurements.reviewTitle')}
        </h3>
        <p>{t('measurements.reviewIntro')}</p>
        {showMissing && missing.length > 0 ? (
          <div className="alert alert--error" role="alert">
            <h4 id="missing-heading" tabIndex={-1} className="alert__heading">
              {t('measurements.missingTitle', { count: missing.length })}
            </h4>
            <ul className="link-list">
              {missing.map((id) => {
                const item = definition.items.find((i) => i.id === id)!;
                return (
                  <li key={id}>
                    <button type="button" className="link-button" onClick={() => edit(id)}>
                      {itemText(definition, item, locale, wording)}
                    </button>
                  </li>
                );
              })}
            </ul>
          </div>
        ) : null}
        {/* Above the answers: the crisis contacts come first while an answer signals risk (issue 25). */}
        <SafetyAnswerPanel definition={definition} answers={answers} caseId={caseId} />
        <dl className="review">
          {items.map((item) => (
            <div key={item.id} className={`review__row${showMissing && missing.includes(item.id) ? ' review__row--missing' : ''}`}>
              <dt>{itemText(definition, item, locale, wording)}</dt>
              <dd>
                <span className={isAnswered(answers[item.id]) ? undefined : 'muted'}>{answerText(state, item, answers[item.id], locale, t)}</span>
                <button type="button" className="link-button" onClick={() => edit(item.id)} aria-label={t('measurements.changeItem', { item: itemText(definition, item, locale, wording) })}>
                  {t('measurements.change')}
                </button>
              </dd>
            </div>
          ))}
        </dl>
        {state.rejected ? <Alert kind="error">{t('measurements.rejected')}</Alert> : null}
        {submitFailed ? <Alert kind="warning" focusOnShow>{t('measurements.submitOffline')}</Alert> : null}
        <SaveStatus state={state} />
        <div className="button-row">
          <button type="button" className="button" onClick={() => void submit()} disabled={submitting}>
            {submitting ? t('common.sending') : t('measurements.submit')}
          </button>
          {items.length > 0 ? (
            <button type="button" className="button button--secondary" onClick={() => go(narrow ? items[items.length - 1]!.id : items[0]!.id)}>
              {t('measurements.back')}
            </button>
          ) : null}
        </div>
      </div>
    );
  }

  const progress = progressOf(definition, answers, currentItem.id);
  const shownItems = narrow ? [currentItem] : items;
  const blocking = blocked ? pageProblem(shownItems, answers, invalid) : undefined;
  const previous = previousItemId(definition, answers, currentItem.id);
  return (
    <div ref={container} className="questionnaire">
      {header}
      {narrow ? <Progress current={progress.current} total={progress.total} /> : null}
      {/* Above the question and "Next": at 360×740 the crisis contacts show the moment a risk answer is given (issue 25). */}
      <SafetyAnswerPanel definition={definition} answers={answers} caseId={caseId} />
      <form className="questionnaire__form" onSubmit={goNext} onKeyDown={onKeyDown} noValidate>
        {shownItems.map((item) => (
          <div key={item.id} data-item={item.id} className="questionnaire__item">
            <ItemField
              definition={definition}
              item={item}
              value={answers[item.id]}
              locale={locale}
              wording={wording}
              onAnswer={(value: AnswerValue | null, options) => state.answer(item.id, value, options)}
              onValidity={(isInvalid) => setValidity(item.id, isInvalid)}
              problem={blocking?.itemId === item.id && blocking.kind === 'required' ? t('patientForm.answerToGoOn') : undefined}
            />
          </div>
        ))}
        {state.rejected ? <Alert kind="error">{t('measurements.rejected')}</Alert> : null}
        <SaveStatus state={state} />
        <div className="button-row questionnaire__nav">
          <button type="submit" className="button">
            {narrow && !fromReview ? t('measurements.next') : t('measurements.toReview')}
          </button>
          {narrow && previous ? (
            <button type="button" className="button button--secondary" onClick={() => go(previous)}>
              {t('measurements.previous')}
            </button>
          ) : null}
        </div>
      </form>
    </div>
  );
}

/** An answer as the review shows it: the chosen option's text, the number, the text. */
function answerText(state: QuestionnaireState, item: ItemDefinition, value: AnswerValue | null | undefined, locale: Locale, t: (key: string) => string): string {
  if (!isAnswered(value)) return t('measurements.notAnswered');
  const choices = choicesOf(state.definition, item, locale, state.wording, { yes: t('measurements.yes'), no: t('measurements.no') });
  if (Array.isArray(value)) return value.map((code) => choices.find((c) => c.value === code)?.label ?? code).join(', ');
  const chosen = choices.find((c) => c.value === value);
  return chosen ? chosen.label : String(value);
}
