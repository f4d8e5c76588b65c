import { describe, expect, it } from 'vitest';
import { isolateLatin } from '../../domain/bidi';
import { INSTRUMENT_CODES, INSTRUMENTS } from '../../domain/instruments';
import { LOCALES } from '../../domain/locales';
import { WORKSHEET_CODES, WORKSHEETS } from '../../domain/worksheets';
import type { OwnData } from './collect';
import { renderOwnDataDocument } from './document';

const ID = '11111111-2222-4333-8444-555555555555';
const AT = '2026-03-01T22:30:00.000Z';
const TIMES = ['screening', 'pre', 'post', 'fu1', 'fu2'];

/** Every kind and state the page knows, so a missing translation or label throws. */
function everything(): OwnData {
  return {
    generated_at: AT,
    profile: { id: ID, username: 'rim_1', email: 'rim@example.org', alias: null, gender: 'FEMALE', phone: null, locale: 'ar', time_zone: 'Asia/Amman', created_at: AT, last_login: AT },
    consents: { agreed_to_terms: true, agreed_to_privacy_policy: true, agreed_to_research_use: false, agreed_to_be_contacted: false, confirmed_adult: true, anti_suicide_contract_at: AT },
    consent_records: [{ id: 'c1', case_id: 'case-1', version: 2, language_code: 'de', title: 'Einwilligung', body: 'Ich willige ein.', agreed_at: AT, identity_method: 'typed_username', identity_confirmed_at: AT }],
    case_ids: [ID],
    questionnaires: Object.fromEntries(
      INSTRUMENT_CODES.map((code, i) => [
        code,
        [{ id: ID, case_id: ID, time_of_measurement: TIMES[i % TIMES.length]!, created_at: AT, updated_at: AT, answers: {}, scores: { total: null, band: null, subscales: null, complete: null } }],
      ]),
    ),
    worksheets: Object.fromEntries(
      WORKSHEET_CODES.map((code) => [
        code,
        [
          {
            id: ID,
            case_id: ID,
            published_at: null,
            feedback: [{ id: ID, body: 'well done', published_at: AT }],
            created_at: AT,
            updated_at: AT,
            fields: Object.fromEntries(WORKSHEETS[code].fields.map((f) => [f.name, f.kind === 'scale' ? 3 : f.kind === 'choices' ? [...f.options] : 'text'])),
          },
        ],
      ]),
    ),
    letters: [{ id: ID, case_id: ID, subject: null, body: '<script>alert(1)</script>', language_code: 'ar', published_at: AT }],
    messages: [
      { id: ID, case_id: ID, subject: 'a', body: 'b', from_me: true, from_system: false, sent_at: null, created_at: AT },
      { id: ID, case_id: ID, subject: null, body: 'c', from_me: false, from_system: false, sent_at: AT, created_at: AT },
      { id: ID, case_id: ID, subject: null, body: 'd', from_me: false, from_system: true, sent_at: AT, created_at: AT },
    ],
    appointments: [
      { id: ID, case_id: ID, starts_at: AT, ends_at: AT, canceled: true, canceled_at: AT, has_taken_place: false, booked_at: AT },
      { id: ID, case_id: ID, starts_at: AT, ends_at: AT, canceled: false, canceled_at: null, has_taken_place: true, booked_at: AT },
    ],
  };
}

describe('renderOwnDataDocument', () => {
  it.each(LOCALES)('renders every kind in %s without ids, codes or unescaped text', (locale) => {
    const html = renderOwnDataDocument(everything(), locale, 'Asia/Amman');
    expect(html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
    expect(html).not.toContain(ID);
    expect(html).not.toContain('<script>');
    for (const code of [...INSTRUMENT_CODES, ...WORKSHEET_CODES]) expect(html).not.toContain(`>${code}<`);
    expect(html).toContain(isolateLatin(INSTRUMENTS.phq9.labels[locale]));
  });

  it("shows times in the patient's zone: 22:30 UTC on 1 March is 07:30 on 2 March in Tokyo", () => {
    expect(renderOwnDataDocument(everything(), 'de', 'Asia/Tokyo')).toContain('02.03.2026, 07:30');
  });
});
