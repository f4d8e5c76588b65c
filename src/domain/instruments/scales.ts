/**
 * Response scales shared by several instruments, and builders for the config-driven ones.
 * Anchor texts are the project's own short phrasings of the response categories.
 */
import { anchor, itemLabels, labels } from './labels';
import type { AnchorDefinition, DateScale, IntegerScale, ItemDefinition, Labels, MultiScale, OptionDefinition, OptionsScale, TextScale, YesNoScale } from './types';

export function integerScale(min: number, max: number, anchors: readonly AnchorDefinition[] = []): IntegerScale {
  return { kind: 'integer', min, max, anchors };
}

export function optionsScale(options: readonly OptionDefinition[]): OptionsScale {
  return { kind: 'options', options };
}

export function multiScale(options: readonly OptionDefinition[]): MultiScale {
  return { kind: 'multi', options };
}

export function yesNo(points?: { yes: number; no: number }): YesNoScale {
  return points ? { kind: 'yesno', points } : { kind: 'yesno' };
}

export function textScale(maxLength: number, multiline = true): TextScale {
  return { kind: 'text', maxLength, multiline };
}

export const DATE: DateScale = { kind: 'date' };

/** A rating scale labelled at its two ends only (used where anchors vary or are unverified). */
export function endpointScale(min: number, max: number, low: Labels, high: Labels): IntegerScale {
  return integerScale(min, max, [
    { value: min, labels: low },
    { value: max, labels: high },
  ]);
}

/** Anchors labelled with their own number, for scales whose anchor texts are licensed. */
export function numberedAnchors(min: number, max: number, word: Labels): AnchorDefinition[] {
  const result: AnchorDefinition[] = [];
  for (let value = min; value <= max; value++) {
    result.push({ value, labels: { ar: `${word.ar} ${value}`, de: `${word.de} ${value}`, en: `${word.en} ${value}` } });
  }
  return result;
}

/** PHQ and GAD frequency over the past two weeks, 0–3. */
export const FREQUENCY_0_3 = integerScale(0, 3, [
  anchor(0, 'not at all', 'überhaupt nicht', 'إطلاقاً'),
  anchor(1, 'on several days', 'an einzelnen Tagen', 'عدة أيام'),
  anchor(2, 'on more than half the days', 'an mehr als der Hälfte der Tage', 'أكثر من نصف الأيام'),
  anchor(3, 'nearly every day', 'beinahe jeden Tag', 'كل يوم تقريباً'),
]);

/** PCL-5 and ITQ intensity, 0–4. */
export const INTENSITY_0_4 = integerScale(0, 4, [
  anchor(0, 'not at all', 'überhaupt nicht', 'إطلاقاً'),
  anchor(1, 'a little bit', 'ein wenig', 'قليلاً'),
  anchor(2, 'moderately', 'mäßig', 'بدرجة متوسطة'),
  anchor(3, 'quite a bit', 'ziemlich', 'كثيراً'),
  anchor(4, 'extremely', 'äußerst', 'بشدة بالغة'),
]);

/** Frequency 1–5 from never to always (TGI-SR+, default for several unverified scales). */
export const NEVER_ALWAYS_1_5 = integerScale(1, 5, [
  anchor(1, 'never', 'nie', 'أبداً'),
  anchor(2, 'rarely', 'selten', 'نادراً'),
  anchor(3, 'sometimes', 'manchmal', 'أحياناً'),
  anchor(4, 'often', 'oft', 'غالباً'),
  anchor(5, 'always', 'immer', 'دائماً'),
]);

/** The difficulty question after PHQ-9 and GAD-7: stored, never scored. */
export const DIFFICULTY_OPTIONS: readonly OptionDefinition[] = [
  { code: 'not_difficult', labels: labels('not difficult at all', 'überhaupt nicht erschwert', 'ليست صعبة على الإطلاق') },
  { code: 'somewhat', labels: labels('somewhat difficult', 'etwas erschwert', 'صعبة بعض الشيء') },
  { code: 'very', labels: labels('very difficult', 'relativ stark erschwert', 'صعبة جداً') },
  { code: 'extremely', labels: labels('extremely difficult', 'sehr stark erschwert', 'صعبة للغاية') },
];

export const DIFFICULTY_LABELS = labels('difficulty in daily life (not scored)', 'Erschwernis im Alltag (nicht gewertet)', 'الصعوبة في الحياة اليومية (لا تُحتسب)');

/** Items `item1`…`itemN` on one scale, labelled "Item n" or "Item n: topic". */
export function numberedItems(count: number, scale: ItemDefinition['scale'], topics: readonly Labels[] = [], required = true): ItemDefinition[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `item${index + 1}`,
    labels: itemLabels(index + 1, topics[index]),
    scale,
    required,
  }));
}

/** `item<n>` ids of item numbers, e.g. [1, 2, 5] → ['item1', 'item2', 'item5']. */
export function itemIds(numbers: readonly number[], prefix = 'item'): string[] {
  return numbers.map((n) => `${prefix}${n}`);
}

/** Item numbers from..to inclusive. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/**
 * A subscale whose item membership is configuration (unverified instruments): the trial gives
 * item numbers and, for scales of its own, labels; without labels the id is shown.
 */
export interface ConfiguredScale {
  readonly id: string;
  readonly items: readonly number[];
  readonly labels?: Labels;
  readonly reversed?: readonly number[];
}
