/**
 * Phone numbers in crisis contacts become `tel:` links (issue 25): a person in crisis taps the
 * number instead of copying it. The link text keeps the number as written; the address holds its
 * digits (and a leading +). Text already inside a Markdown link is left alone. The screen shows
 * each such link as a left-to-right isolate, so "0800 111 0 111" reads in order inside Arabic.
 */

/** A number as people write it: optional +, digits grouped by spaces, hyphens, dots or brackets; at least 3 digits. */
const PHONE = /(?<![\w/+.-])(\+?\d[\d ().-]*\d)(?![\w/])/g;
const LINK = /\[[^\]]*\]\([^)]*\)|<[^>]*>/g;

/** The digits a `tel:` address needs: a leading + and the digits. */
export function telHref(number: string): string {
  const plus = number.trim().startsWith('+') ? '+' : '';
  return `tel:${plus}${number.replace(/\D/g, '')}`;
}

function digitCount(text: string): number {
  return text.replace(/\D/g, '').length;
}

/** Looks like a phone number (3 to 15 digits, e.g. "112", "0800 111 0 111", "+49 30 1234567"), not a date or a year. */
export function isPhoneNumber(text: string): boolean {
  const digits = digitCount(text);
  if (digits < 3 || digits > 15) return false;
  if (/^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(text)) return false; // a date
  if (/^(19|20)\d\d$/.test(text)) return false; // a year
  return true;
}

/** The Markdown with every phone number outside links turned into a `tel:` link. */
export function linkPhoneNumbers(markdown: string): string {
  let out = '';
  let last = 0;
  for (const link of markdown.matchAll(LINK)) {
    out += linkIn(markdown.slice(last, link.index)) + link[0];
    last = link.index + link[0].length;
  }
  return out + linkIn(markdown.slice(last));
}

function linkIn(text: string): string {
  return text.replace(PHONE, (match) => {
    const number = match.trim();
    return isPhoneNumber(number) ? `[${number}](${telHref(number)})` : match;
  });
}
