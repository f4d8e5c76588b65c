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

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  hint?: string;
  errors?: FieldError[] | undefined;
}

export function TextField({ label, hint, errors = [], ...input }: FieldProps) {
  const id = useId();
  const errorText = useFieldErrorText();
  const described = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {input.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {hint ? (
        <span id={`${id}-hint`} className="field__hint">
          {hint}
        </span>
      ) : null}
      <input id={id} className="input" aria-invalid={errors.length > 0 || undefined} aria-describedby={described || undefined} {...input} />
      {errors.length > 0 ? (
        <span id={`${id}-error`} className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </div>
  );
}

interface TextAreaProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  label: string;
  hint?: string;
  errors?: FieldError[] | undefined;
}

/** A labelled multi-line field; `dir="auto"` lets Arabic and Latin text each run their way. */
export function TextArea({ label, hint, errors = [], ...textarea }: TextAreaProps) {
  const id = useId();
  const errorText = useFieldErrorText();
  const described = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {textarea.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {hint ? (
        <span id={`${id}-hint`} className="field__hint">
          {hint}
        </span>
      ) : null}
      <textarea id={id} className="input textarea" dir="auto" rows={5} aria-invalid={errors.length > 0 || undefined} aria-describedby={described || undefined} {...textarea} />
      {errors.length > 0 ? (
        <span id={`${id}-error`} className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </div>
  );
}

interface SelectProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: string;
  hint?: string;
  options: { value: string; label: string }[];
  errors?: FieldError[] | undefined;
}

export function SelectField({ label, hint, options, errors = [], ...select }: SelectProps) {
  const id = useId();
  const errorText = useFieldErrorText();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span id={`${id}-hint`} className="field__hint">
          {hint}
        </span>
      ) : null}
      <select id={id} className="select" aria-describedby={hint ? `${id}-hint` : undefined} aria-invalid={errors.length > 0 || undefined} {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {errors.length > 0 ? (
        <span className="field__error" role="alert">
          {errors.map(errorText).join(' ')}
        </span>
      ) : null}
    </div>
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

export function Alert({ kind, children, title }: { kind: 'error' | 'success' | 'info' | 'warning'; children: ReactNode; title?: string }) {
  return (
    <div className={`alert alert--${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
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
