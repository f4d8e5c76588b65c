import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import en from '../web/i18n/en.json';
import { RAW_DATABASE_TEXT, REFUSAL_CODES, REFUSAL_MESSAGES, refusalCodeForConstraint, refusalForDatabaseError, ruleCode } from './refusals';

const translated = (code: string) =>
  Boolean((en.refusals as Record<string, string>)[code] ?? (en.errorCodes as Record<string, string>)[code]);

/** Every `hint = 'CODE'` our SQL raises a rule with. */
function ruleHints(): string[] {
  const hints = new Set<string>();
  for (const file of fs.readdirSync('db/migrations')) {
    for (const match of fs.readFileSync(`db/migrations/${file}`, 'utf8').matchAll(/hint\s*=\s*'([A-Za-z_]+)'/g)) hints.add(match[1]!);
  }
  return [...hints];
}

describe('refusals', () => {
  it('names the refusals of the issue’s examples without their database text', () => {
    const cases = [
      [{ code: '42501', message: 'new row violates row-level security policy for table "interview_reports"' }, 'forbidden', 403],
      [{ code: '23514', message: 'new row for relation "case_suicide_calls" violates check constraint "case_suicide_calls_score_range"', constraint: 'case_suicide_calls_score_range' }, 'out_of_range', 400],
      [{ code: '23514', message: 'violates check constraint "sent_is_filled"', constraint: 'sent_is_filled' }, 'sent_needs_content', 400],
      [{ code: '23514', message: 'violates check constraint "format_known"', constraint: 'format_known' }, 'not_a_choice', 400],
      [{ code: '23505', message: 'duplicate key value violates unique constraint "users_email_key"', constraint: 'users_email_key' }, 'email_taken', 409],
      [{ code: '23502', message: 'null value in column "case_id" of relation "letters" violates not-null constraint' }, 'value_required', 400],
      [{ code: '23503', message: 'insert or update on table "letters" violates foreign key constraint "letters_case_id_fkey"', constraint: 'letters_case_id_fkey' }, 'reference_missing', 409],
      [{ code: '22P02', message: 'invalid input syntax for type uuid: "x"' }, 'invalid_value', 400],
      [{ code: '23P01', message: 'conflicting key value violates exclusion constraint', constraint: 'interview_offers_no_overlap' }, 'slot_overlaps', 409],
    ] as const;
    for (const [error, code, status] of cases) {
      const refusal = refusalForDatabaseError(error);
      expect([refusal?.code, refusal?.status], error.message).toEqual([code, status]);
      expect(refusal!.message).not.toMatch(RAW_DATABASE_TEXT);
    }
  });

  it('keeps a rule of our SQL by its hint and its sentence, and a sign-in for the anonymous', () => {
    expect(refusalForDatabaseError({ code: 'P0001', message: 'Not involved in this case', hint: 'NOT_INVOLVED' })).toEqual({ code: 'not_involved', status: 400, message: 'Not involved in this case' });
    expect(refusalForDatabaseError({ code: '55000', message: 'The allocation is used up.', hint: 'allocation_exhausted' })?.status).toBe(409);
    expect(refusalForDatabaseError({ code: 'P0001', message: 'new row violates something' })?.message).toBe(REFUSAL_MESSAGES.rule_refused);
    expect(refusalForDatabaseError({ code: '42501', message: 'permission denied for table users' }, false)?.code).toBe('sign_in_required');
    expect(refusalForDatabaseError({ code: 'XX000', message: 'internal' })).toBeUndefined();
    expect(refusalForDatabaseError({ code: '42P01', message: 'relation "x" does not exist' })).toBeUndefined();
  });

  it('maps constraints by name and by suffix', () => {
    expect(refusalCodeForConstraint('item3_on_scale')).toBe('answer_out_of_range');
    expect(refusalCodeForConstraint('bdi2_one_per_time')).toBe('already_recorded');
    expect(refusalCodeForConstraint('interview_reports_audit1_check')).toBe('out_of_range');
    expect(refusalCodeForConstraint('some_new_table_column_check')).toBe('value_not_allowed');
    expect(refusalCodeForConstraint('mystery')).toBeUndefined();
  });

  it('has an English sentence without database words for every code, translated in the web app', () => {
    for (const code of REFUSAL_CODES) {
      expect(REFUSAL_MESSAGES[code]).not.toMatch(RAW_DATABASE_TEXT);
      expect(translated(code), code).toBe(true);
    }
  });

  it('translates every rule our SQL raises with a hint', () => {
    const missing = ruleHints().filter((hint) => !translated(ruleCode(hint)));
    expect(missing).toEqual([]);
  });
});
