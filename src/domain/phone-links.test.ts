import { describe, expect, it } from 'vitest';
import { isPhoneNumber, linkPhoneNumbers, telHref } from './phone-links';

describe('phone numbers in crisis contacts', () => {
  it.each([
    ['Telefonseelsorge: 0800 111 0 111', 'Telefonseelsorge: [0800 111 0 111](tel:08001110111)'],
    ['اتصل بالرقم 0800 111 0 111 الآن', 'اتصل بالرقم [0800 111 0 111](tel:08001110111) الآن'],
    ['Emergency: 112.', 'Emergency: [112](tel:112).'],
    ['Clinic +49 (30) 1234-567', 'Clinic [+49 (30) 1234-567](tel:+49301234567)'],
    ['Already [call us](tel:123456) and <https://example.org/1234567>', 'Already [call us](tel:123456) and <https://example.org/1234567>'],
  ])('%s', (source, expected) => {
    expect(linkPhoneNumbers(source)).toBe(expected);
  });

  it('leaves dates, years and short counts alone', () => {
    expect(isPhoneNumber('2026-11-28')).toBe(false);
    expect(isPhoneNumber('2027')).toBe(false);
    expect(isPhoneNumber('24')).toBe(false);
    expect(linkPhoneNumbers('open 24/7 since 2019')).toBe('open 24/7 since 2019');
  });

  it('dials the digits with a leading +', () => {
    expect(telHref(' +49 30 123 ')).toBe('tel:+4930123');
  });
});
