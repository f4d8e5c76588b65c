import { describe, expect, it } from 'vitest';
import { isolateIdent, latinParts } from './bidi';
import { groupsForReader, messageHeadline } from './messages';

describe('identifiers as one left-to-right unit (issue 25: "96…d8ae5")', () => {
  it('isolates a case code that starts with digits, once', () => {
    expect(isolateIdent('96d8ae5')).toBe('\u206696d8ae5\u2069');
    expect(isolateIdent(isolateIdent('96d8ae5'))).toBe('\u206696d8ae5\u2069');
    expect(isolateIdent(null)).toBe('');
  });

  it('cuts an Arabic title into its Latin codes and the rest', () => {
    expect(latinParts('قائمة أحداث الحياة وفق DSM-5 (LEC-5)')).toEqual([
      { text: 'قائمة أحداث الحياة وفق ', latin: false },
      { text: 'DSM-5', latin: true },
      { text: ' (', latin: false },
      { text: 'LEC-5', latin: true },
      { text: ')', latin: false },
    ]);
    expect(latinParts('Life Events Checklist (LEC-5)')).toEqual([{ text: 'Life Events Checklist (LEC-5)', latin: false }]);
  });
});

describe('messages as a patient reads them', () => {
  it('lists a message without subject under the opening of its text, never "(no subject)"', () => {
    expect(messageHeadline('  Termin  ', 'x')).toBe('Termin');
    expect(messageHeadline(null, '\n  Your interview is booked.\nMore')).toBe('Your interview is booked.');
    const long = 'موعد المقابلة '.repeat(10);
    const headline = messageHeadline('', long)!;
    expect(headline.endsWith('…')).toBe(true);
    expect(headline.length).toBeLessThanOrEqual(61);
    expect(messageHeadline(null, '  ')).toBeUndefined();
  });

  it('is addressed to "you", not to "the patients"', () => {
    expect(groupsForReader(['patients', 'therapists'], true)).toEqual(['you', 'therapists']);
    expect(groupsForReader(['patients', 'therapists'], false)).toEqual(['patients', 'therapists']);
    expect(groupsForReader(['therapists'], true)).toEqual(['therapists']);
  });
});
