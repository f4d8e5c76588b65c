/**
 * Helpers for the neutral labels every definition carries in ar, de and en. These are the
 * project's own short descriptions ("Item 3: sleep"), never questionnaire wording: licensed
 * wording is installed per trial (see wording.ts).
 */
import type { AnchorDefinition, Labels, OptionDefinition } from './types';

export function labels(en: string, de: string, ar: string): Labels {
  return { ar, de, en };
}

const ITEM_WORD = labels('Item', 'Item', 'البند');

/** "Item 3" or "Item 3: sleep" in each locale. */
export function itemLabels(number: number | string, topic?: Labels): Labels {
  const text = (locale: keyof Labels) => `${ITEM_WORD[locale]} ${number}${topic ? `: ${topic[locale]}` : ''}`;
  return { ar: text('ar'), de: text('de'), en: text('en') };
}

/** Joins two labels per locale, e.g. a situation number and "fear". */
export function joinLabels(first: Labels, second: Labels, separator = ': '): Labels {
  return { ar: `${first.ar}${separator}${second.ar}`, de: `${first.de}${separator}${second.de}`, en: `${first.en}${separator}${second.en}` };
}

/** A label that reads the same in every locale (codes, numbers). */
export function sameLabels(text: string): Labels {
  return { ar: text, de: text, en: text };
}

export function anchor(value: number, en: string, de: string, ar: string): AnchorDefinition {
  return { value, labels: labels(en, de, ar) };
}

export function option(code: string, en: string, de: string, ar: string, extra: Partial<Pick<OptionDefinition, 'points' | 'exclusive'>> = {}): OptionDefinition {
  return { code, labels: labels(en, de, ar), ...extra };
}

export const YES_LABELS = labels('yes', 'ja', 'نعم');
export const NO_LABELS = labels('no', 'nein', 'لا');
