import { describe, expect, it } from 'vitest';
import { isolateLatin, withoutIsolates } from './bidi';

const L = (s: string) => `\u2066${s}\u2069`;

describe('isolateLatin', () => {
  it('isolates codes and names inside Arabic, leaving the parentheses outside', () => {
    expect(isolateLatin('قائمة وفق DSM-5 (PCL-5)')).toBe(`قائمة وفق ${L('DSM-5')} (${L('PCL-5')})`);
    expect(isolateLatin('مقياس BDI-II للاكتئاب')).toBe(`مقياس ${L('BDI-II')} للاكتئاب`);
    expect(isolateLatin('أهلًا بك، Demo Patient 1')).toBe(`أهلًا بك، ${L('Demo Patient 1')}`);
  });

  it('keeps an address whole and a closing full stop in the sentence', () => {
    expect(isolateLatin('مثل name@example.org.')).toBe(`مثل ${L('name@example.org')}.`);
  });

  it('leaves text without right-to-left letters alone, and never isolates twice', () => {
    expect(isolateLatin('PHQ-9 total')).toBe('PHQ-9 total');
    const once = isolateLatin('مجموع PHQ-9');
    expect(isolateLatin(once)).toBe(once);
    expect(withoutIsolates(once)).toBe('مجموع PHQ-9');
  });
});
