/**
 * One questionnaire item, drawn from its definition: a group of choices (ratings, single
 * choice, yes/no), a group of checkboxes (multi-select with exclusive options), or a number,
 * date or text field. Texts come through `wordingFor`: a trial's installed wording, else the
 * shipped neutral label in the person's language.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { wordingFor, type AnswerValue, type InstrumentSpec, type ItemDefinition, type WordingLookup } from '../../../domain/instruments';
import { valueProblem } from '../../../domain/instruments/answers';
import type { Locale } from '../../../domain/locales';
import { integerControl, parseWholeNumber, toggleOption } from '../../../domain/questionnaire-form';
import { TextArea, TextField } from '../../ui/ui';

export interface ItemFieldProps {
  definition: InstrumentSpec<unknown>;
  item: ItemDefinition;
  value: AnswerValue | null | undefined;
  locale: Locale;
  wording: WordingLookup | undefined;
  onAnswer(value: AnswerValue | null, options?: { typing?: boolean }): void;
  /** Shown under the item, e.g. "please answer this question" at the review. */
  problem?: string | undefined;
  /** Told whether the field holds typed text that is not an answer (it blocks "Next"). */
  onValidity?(invalid: boolean): void;
}

interface Choice {
  key: string;
  value: AnswerValue;
  label: string;
}

/** The item's text, as the form and the review show it. */
export function itemText(definition: InstrumentSpec<unknown>, item: ItemDefinition, locale: Locale, wording: WordingLookup | undefined): string {
  return wordingFor(definition, { kind: 'item', itemId: item.id }, locale, wording) ?? item.id;
}

/** The choices of a single-choice item, in order, with their texts. */
export function choicesOf(definition: InstrumentSpec<unknown>, item: ItemDefinition, locale: Locale, wording: WordingLookup | undefined, yesNo: { yes: string; no: string }): Choice[] {
  const scale = item.scale;
  const option = (code: string | number) => wordingFor(definition, { kind: 'option', itemId: item.id, option: code }, locale, wording);
  switch (scale.kind) {
    case 'integer': {
      const choices: Choice[] = [];
      for (let value = scale.min; value <= scale.max; value++) {
        const text = option(value);
        choices.push({ key: String(value), value, label: text ? `${value} · ${text}` : String(value) });
      }
      return choices;
    }
    case 'options':
    case 'multi':
      return scale.options.map((o) => ({ key: o.code, value: o.code, label: option(o.code) ?? o.code }));
    case 'yesno':
      return [
        { key: 'yes', value: true, label: yesNo.yes },
        { key: 'no', value: false, label: yesNo.no },
      ];
    case 'text':
    case 'date':
      return [];
  }
}

function Legend({ text, optional }: { text: string; optional: boolean }) {
  const { t } = useTranslation();
  return (
    <legend className="question__text">
      {text}
      {optional ? <span className="question__optional"> ({t('measurements.optional')})</span> : null}
    </legend>
  );
}

function Problem({ id, text }: { id: string; text: string | undefined }): ReactNode {
  if (!text) return null;
  return (
    <p id={id} className="field__error" role="alert">
      {text}
    </p>
  );
}

export function ItemField({ definition, item, value, locale, wording, onAnswer, problem, onValidity }: ItemFieldProps) {
  const { t } = useTranslation();
  const text = itemText(definition, item, locale, wording);
  const fieldId = `q-${definition.code}-${item.id}`;
  const problemId = `${fieldId}-problem`;
  const scale = item.scale;
  const yesNo = { yes: t('measurements.yes'), no: t('measurements.no') };

  if (scale.kind === 'multi') {
    const selected = Array.isArray(value) ? (value as string[]) : [];
    return (
      <fieldset className="question" id={fieldId} aria-describedby={problem ? problemId : undefined}>
        <Legend text={text} optional={!item.required} />
        <p className="field__hint">{t('measurements.chooseAny')}</p>
        <div className="choices">
          {choicesOf(definition, item, locale, wording, yesNo).map((choice) => (
            <label key={choice.key} className="choice">
              <input
                type="checkbox"
                name={fieldId}
                value={choice.key}
                checked={selected.includes(choice.key)}
                onChange={(event) => onAnswer(toggleOption(scale, selected, choice.key, event.target.checked))}
              />
              <span>{choice.label}</span>
            </label>
          ))}
        </div>
        <Problem id={problemId} text={problem} />
      </fieldset>
    );
  }

  if (scale.kind === 'options' || scale.kind === 'yesno' || (scale.kind === 'integer' && integerControl(scale) === 'choice')) {
    const choices = choicesOf(definition, item, locale, wording, yesNo);
    const compact = scale.kind === 'integer' && choices.every((c) => c.label === String(c.value));
    return (
      <fieldset className="question" id={fieldId} aria-describedby={problem ? problemId : undefined}>
        <Legend text={text} optional={!item.required} />
        <div className={compact ? 'choices choices--row' : 'choices'}>
          {choices.map((choice) => (
            <label key={choice.key} className="choice">
              <input type="radio" name={fieldId} value={choice.key} checked={value === choice.value} onChange={() => onAnswer(choice.value)} />
              <span>{choice.label}</span>
            </label>
          ))}
        </div>
        <Problem id={problemId} text={problem} />
      </fieldset>
    );
  }

  if (scale.kind === 'integer') {
    return <NumberItem text={text} item={item} value={value} onAnswer={onAnswer} problem={problem} onValidity={onValidity} />;
  }

  const common = {
    label: item.required ? text : `${text} (${t('measurements.optional')})`,
    value: typeof value === 'string' ? value : '',
    errors: problem ? [{ field: item.id, code: 'measurement_required', message: problem }] : [],
  };
  if (scale.kind === 'date') {
    return <TextField {...common} type="date" onChange={(event) => onAnswer(event.target.value || null)} />;
  }
  if (scale.multiline) {
    return <TextArea {...common} maxLength={scale.maxLength} rows={4} onChange={(event) => onAnswer(event.target.value, { typing: true })} />;
  }
  return <TextField {...common} dir="auto" maxLength={scale.maxLength} onChange={(event) => onAnswer(event.target.value, { typing: true })} />;
}

/**
 * Counts and ages: the typed text is kept as typed, and only a whole number within the scale
 * becomes the answer; anything else says what is expected and saves nothing.
 */
function NumberItem({ text, item, value, onAnswer, problem, onValidity }: Pick<ItemFieldProps, 'item' | 'value' | 'onAnswer' | 'problem' | 'onValidity'> & { text: string }) {
  const { t } = useTranslation();
  const scale = item.scale as Extract<ItemDefinition['scale'], { kind: 'integer' }>;
  const [typed, setTyped] = useState(typeof value === 'number' ? String(value) : '');
  useEffect(() => {
    if (typeof value === 'number' && parseWholeNumber(typed) !== value) setTyped(String(value));
    // Only a new stored value replaces what is typed.
  }, [value]);
  const parsed = parseWholeNumber(typed);
  const invalid = typed.trim() !== '' && (parsed === null || valueProblem(scale, parsed) !== undefined);
  useEffect(() => onValidity?.(invalid), [invalid]);
  const errors = invalid
    ? [{ field: item.id, code: 'measurement_number', message: t('measurements.numberRange', { min: scale.min, max: scale.max }) }]
    : problem
      ? [{ field: item.id, code: 'measurement_required', message: problem }]
      : [];
  return (
    <TextField
      label={item.required ? text : `${text} (${t('measurements.optional')})`}
      errors={errors}
      type="text"
      inputMode="numeric"
      autoComplete="off"
      value={typed}
      onChange={(event) => {
        const next = event.target.value;
        setTyped(next);
        const number = parseWholeNumber(next);
        if (next.trim() === '') onAnswer(null, { typing: true });
        else if (number !== null && valueProblem(scale, number) === undefined) onAnswer(number, { typing: true });
      }}
    />
  );
}
