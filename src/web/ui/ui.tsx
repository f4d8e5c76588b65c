/**
 * The small component library: labelled fields with hints and errors, alerts, a spinner and
 * a page frame that names the page for screen readers. Every text arrives translated.
 */
import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { FieldError } from '../../domain/accounts';

/** Translates a server field error by its code, falling back to the server's English sentence. */
export function useFieldErrorText(): (error: FieldError) => string {
  const { t } = useTranslation();
  return (error) => t(`fieldErrors.${error.code}`, { defaultValue: error.message });
}

/** What a labelled control needs from its field: its id and the accessible descriptions. */
interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface FieldFrameProps {
  label: string;
  hint?: string | undefined;
  errors: FieldError[];
  required?: boolean | undefined;
  control: (props: ControlProps) => ReactNode;
}

/** The shared frame of every field: label (with * when required), hint, control, errors. */
function FieldFrame({ label, hint, errors, required, control }: FieldFrameProps) {
  const id = useId();
  const errorText = useFieldErrorText();
  const described = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {hint ? (
        <span id={`${id}-hint`} className="field__hint">
          {hint}
        </span>
      ) : null}
      {control({ id, 'aria-invalid': errors.length > 0 || undefined, 'aria-describedby': described || undefined })}
      {errors.length > 0 ? (
        <span id={`${id}-error`} className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </div>
  );
}

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  hint?: string;
  errors?: FieldError[] | undefined;
}

export function TextField({ label, hint, errors = [], ...input }: FieldProps) {
  return <FieldFrame label={label} hint={hint} errors={errors} required={input.required} control={(props) => <input className="input" {...props} {...input} />} />;
}

interface TextAreaProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  label: string;
  hint?: string;
  errors?: FieldError[] | undefined;
}

/** A labelled multi-line field; `dir="auto"` lets Arabic and Latin text each run their way. */
export function TextArea({ label, hint, errors = [], ...textarea }: TextAreaProps) {
  return (
    <FieldFrame
      label={label}
      hint={hint}
      errors={errors}
      required={textarea.required}
      control={(props) => <textarea className="input textarea" dir="auto" rows={5} {...props} {...textarea} />}
    />
  );
}

interface SelectProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: string;
  hint?: string;
  options: { value: string; label: string }[];
  errors?: FieldError[] | undefined;
}

export function SelectField({ label, hint, options, errors = [], ...select }: SelectProps) {
  return (
    <FieldFrame
      label={label}
      hint={hint}
      errors={errors}
      required={select.required}
      control={(props) => (
        <select className="select" {...props} {...select}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

interface CheckboxProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'type'> {
  label: ReactNode;
  errors?: FieldError[] | undefined;
}

export function Checkbox({ label, errors = [], ...input }: CheckboxProps) {
  const id = useId();
  const errorText = useFieldErrorText();
  return (
    <div className="field">
      <div className="checkbox">
        <input id={id} type="checkbox" aria-invalid={errors.length > 0 || undefined} aria-describedby={errors.length ? `${id}-error` : undefined} {...input} />
        <label htmlFor={id}>{label}</label>
      </div>
      {errors.length > 0 ? (
        <span id={`${id}-error`} className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </div>
  );
}

/**
 * What makes a focusing Alert take the focus again. A string child keeps its identity across
 * renders; an element child does not, so it never counts (otherwise every render would pull
 * the focus back): such callers pass a focusKey, e.g. the failure object.
 */
export function alertFocusTrigger(focusKey: unknown, children: ReactNode, title: string | undefined): unknown {
  return focusKey ?? (typeof children === 'string' ? children : title);
}

/**
 * A message box. `focusOnShow`: the box takes the focus when it appears and again whenever
 * `focusKey` changes (a new failure of the same form), so after a failed submit keyboard and
 * screen-reader users land on what went wrong. Without `focusKey` the text is the key.
 */
export function Alert({
  kind,
  children,
  title,
  focusOnShow = false,
  focusKey,
}: {
  kind: 'error' | 'success' | 'info' | 'warning';
  children: ReactNode;
  title?: string;
  focusOnShow?: boolean;
  focusKey?: unknown;
}) {
  const box = useRef<HTMLDivElement>(null);
  const trigger = alertFocusTrigger(focusKey, children, title);
  useEffect(() => {
    if (focusOnShow) box.current?.focus();
  }, [focusOnShow, trigger]);
  return (
    <div ref={box} className={`alert alert--${kind}`} role={kind === 'error' ? 'alert' : 'status'} {...(focusOnShow ? { tabIndex: -1 } : {})}>
      {title ? <strong>{title} </strong> : null}
      {children}
    </div>
  );
}

export function Spinner({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="spinner" role="status">
      <span className="spinner__dot" aria-hidden="true" />
      <span className="visually-hidden">{label ?? t('common.loading')}</span>
    </div>
  );
}

/** A page: sets the document title and moves focus to the heading after navigation. */
export function Page({ title, children, width = 'wide' }: { title: string; children: ReactNode; width?: 'wide' | 'narrow' | 'reading' }) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
  }, [title, t]);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className={width === 'wide' ? undefined : `app-main--${width}`} style={width === 'wide' ? undefined : { marginInline: 'auto' }}>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </div>
  );
}
