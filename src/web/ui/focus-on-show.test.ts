/**
 * The error summary that takes the focus after a failed submit (Alert/ErrorAlert focusOnShow):
 * only a focusing box is focusable, and what re-triggers the focus is stable across renders.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { ErrorAlert } from './ErrorAlert';
import { Alert, alertFocusTrigger } from './ui';

describe('ErrorAlert focusOnShow', () => {
  const failure = new ApiError(0, 'network', 'offline');

  it('renders nothing without an error', () => {
    expect(renderToStaticMarkup(createElement(ErrorAlert, { error: null, focusOnShow: true }))).toBe('');
  });

  it('makes the summary focusable only when it is a form error summary', () => {
    const summary = renderToStaticMarkup(createElement(ErrorAlert, { error: failure, focusOnShow: true }));
    expect(summary).toContain('role="alert"');
    expect(summary).toContain('tabindex="-1"');
    // A load or polling error never takes the focus, so it is not made focusable either.
    expect(renderToStaticMarkup(createElement(ErrorAlert, { error: failure }))).not.toContain('tabindex');
    expect(renderToStaticMarkup(createElement(Alert, { kind: 'error', children: 'x' }))).not.toContain('tabindex');
  });
});

describe('alertFocusTrigger', () => {
  it('prefers the failure object, so each new failure focuses again', () => {
    const first = new ApiError(500, 'unknown', 'a');
    const second = new ApiError(500, 'unknown', 'a');
    expect(alertFocusTrigger(first, 'text', undefined)).toBe(first);
    expect(alertFocusTrigger(second, 'text', undefined)).not.toBe(alertFocusTrigger(first, 'text', undefined));
  });

  it('uses a text child, which is equal from render to render', () => {
    expect(alertFocusTrigger(undefined, 'Please save first.', undefined)).toBe('Please save first.');
  });

  it('never uses an element child, which is new on every render', () => {
    const child = createElement('span', null, 'x');
    expect(alertFocusTrigger(undefined, child, 'Title')).toBe('Title');
    expect(alertFocusTrigger(undefined, child, undefined)).toBeUndefined();
  });
});
