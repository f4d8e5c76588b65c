import { describe, expect, it } from 'vitest';
import { errorKey } from './error-key';

describe('error keys', () => {
  it('takes the server’s refusal code first, then the constraint, the rule’s own code and the SQLSTATE', () => {
    expect(errorKey({ code: '23514', message: 'x', body: { refusal: 'sent_needs_content' } })).toBe('sent_needs_content');
    expect(errorKey({ code: '23514', message: 'x', body: { constraint: 'sent_has_recipients' } })).toBe('recipients_required');
    expect(errorKey({ code: '23514', message: 'x', body: { constraint: 'case_suicide_calls_score_range' } })).toBe('out_of_range');
    expect(errorKey({ code: 'NOT_INVOLVED', message: 'Not involved in this case', body: {} })).toBe('not_involved');
    expect(errorKey({ code: 'SENT_MESSAGE_IMMUTABLE', message: 'x', body: {} })).toBe('sent_message_locked');
    expect(errorKey({ code: 'P0001', message: 'Something new', body: {} })).toBe('rule_refused');
    expect(errorKey({ code: '42501', message: 'You are not allowed to do this.', body: {} })).toBe('forbidden');
    expect(errorKey({ code: '22P02', message: 'invalid input syntax', body: {} })).toBe('invalid_value');
    expect(errorKey({ code: 'NOT_FOUND_OR_DENIED', message: '', body: {} })).toBe('NOT_FOUND_OR_DENIED');
  });
});
