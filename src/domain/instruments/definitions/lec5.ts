/**
 * LEC-5 (Weathers et al. 2013), INSTRUMENTS.md §3: 17 events (16 + "other"), each with one or
 * more exposure kinds. There is no formal score: the counts of events per exposure kind and a
 * direct-exposure flag are the usual derived variables. The event list is shared with the
 * trauma record (traumalisteneu), whose worst event is one of these codes.
 */
import { defineInstrument } from '../define';
import { itemLabels, labels, option } from '../labels';
import { multiScale, range, textScale } from '../scales';
import { score } from '../score';
import type { Answers, DeriveInput, Derived, ItemDefinition, OptionDefinition } from '../types';
import type { ScreeningInputs } from '../exclusions';

/** The 17 event kinds, in LEC-5 order; codes are stable export values. */
export const LEC5_EVENTS: readonly OptionDefinition[] = [
  option('natural_disaster', 'natural disaster', 'Naturkatastrophe', 'كارثة طبيعية'),
  option('fire_explosion', 'fire or explosion', 'Feuer oder Explosion', 'حريق أو انفجار'),
  option('transport_accident', 'transport accident', 'Verkehrsunfall', 'حادث سير أو نقل'),
  option('serious_accident', 'serious accident at work, at home or in leisure', 'schwerer Unfall bei der Arbeit, zu Hause oder in der Freizeit', 'حادث خطير في العمل أو المنزل أو أثناء الترفيه'),
  option('toxic_substance', 'exposure to a toxic substance', 'Kontakt mit einem giftigen Stoff', 'التعرض لمادة سامة'),
  option('physical_assault', 'physical assault', 'körperlicher Angriff', 'اعتداء جسدي'),
  option('armed_assault', 'assault with a weapon', 'Angriff mit einer Waffe', 'اعتداء بسلاح'),
  option('sexual_assault', 'sexual assault', 'sexuelle Gewalt', 'اعتداء جنسي'),
  option('unwanted_sexual_experience', 'other unwanted sexual experience', 'andere ungewollte sexuelle Erfahrung', 'تجربة جنسية أخرى غير مرغوب فيها'),
  option('war', 'combat or being in a war zone', 'Kampfhandlungen oder Aufenthalt im Kriegsgebiet', 'القتال أو التواجد في منطقة حرب'),
  option('captivity', 'captivity', 'Gefangenschaft', 'الأسر أو الاحتجاز'),
  option('life_threatening_illness', 'life-threatening illness or injury', 'lebensbedrohliche Krankheit oder Verletzung', 'مرض أو إصابة تهدد الحياة'),
  option('human_suffering', 'severe human suffering', 'schweres menschliches Leid', 'معاناة إنسانية شديدة'),
  option('violent_death', 'sudden violent death', 'plötzlicher gewaltsamer Tod', 'موت عنيف مفاجئ'),
  option('accidental_death', 'sudden accidental death', 'plötzlicher Unfalltod', 'موت مفاجئ بحادث'),
  option('harm_caused', 'serious harm caused to someone else', 'schwerer Schaden, der jemand anderem zugefügt wurde', 'أذى خطير تسببت به لشخص آخر'),
  option('other', 'any other very stressful event', 'anderes sehr belastendes Ereignis', 'أي حدث آخر شديد الإجهاد'),
];

const EXPOSURE = multiScale([
  option('happened', 'happened to me', 'ist mir passiert', 'حدث لي'),
  option('witnessed', 'witnessed it', 'habe es beobachtet', 'شهدته'),
  option('learned', 'learned about it', 'habe davon erfahren', 'علمت به'),
  option('job', 'part of my job', 'Teil meiner Arbeit', 'جزء من عملي'),
  option('unsure', 'not sure', 'nicht sicher', 'لست متأكداً'),
  option('not_applicable', 'does not apply', 'trifft nicht zu', 'لا ينطبق', { exclusive: true }),
]);

const EXPOSURE_KINDS = ['happened', 'witnessed', 'learned', 'job', 'unsure'] as const;

const ITEMS: ItemDefinition[] = [
  ...range(1, 17).map((n) => ({ id: `item${n}`, labels: itemLabels(n, LEC5_EVENTS[n - 1]!.labels), scale: EXPOSURE, required: true })),
  {
    id: 'item17_description',
    labels: labels('Item 17: description of the other event', 'Item 17: Beschreibung des anderen Ereignisses', 'البند 17: وصف الحدث الآخر'),
    scale: textScale(500),
    required: false,
    showIf: { item: 'item17', anyOf: [...EXPOSURE_KINDS] },
  },
];

/**
 * Number of events per exposure kind, once every event is answered (a partial count would read
 * as "fewer events"); direct exposure is flagged as soon as one event shows it.
 */
function exposureCounts({ value, complete }: DeriveInput<object>): Derived {
  const selections = range(1, 17).map((n) => value(`item${n}`));
  const count = (kind: string) => selections.filter((s) => Array.isArray(s) && s.includes(kind)).length;
  const subscales = complete ? Object.fromEntries(EXPOSURE_KINDS.map((kind) => [kind, count(kind)])) : {};
  return { subscales, flags: count('happened') + count('witnessed') > 0 ? ['direct_exposure'] : [] };
}

export const LEC5 = defineInstrument({}, () => ({
  code: 'lec5',
  version: 'LEC-5 standard (2013), without the extended worst-event part',
  kind: 'questionnaire',
  labels: labels('Life Events Checklist for DSM-5 (LEC-5)', 'Checkliste belastender Lebensereignisse für DSM-5 (LEC-5)', 'قائمة أحداث الحياة وفق DSM-5 (LEC-5)'),
  verification: 'verified',
  licence: { class: 'public_domain', itemText: 'may_ship', note: 'NCPTSD (US government); English text may ship. German text exists; Arabic unknown (❓).' },
  items: ITEMS,
  subscales: [
    { id: 'happened', labels: labels('events that happened to the person', 'selbst erlebte Ereignisse', 'أحداث حدثت للشخص'), items: range(1, 17).map((n) => `item${n}`), aggregate: 'derived' },
    { id: 'witnessed', labels: labels('events witnessed', 'beobachtete Ereignisse', 'أحداث شهدها'), items: range(1, 17).map((n) => `item${n}`), aggregate: 'derived' },
    { id: 'learned', labels: labels('events learned about', 'Ereignisse, von denen erfahren wurde', 'أحداث علم بها'), items: range(1, 17).map((n) => `item${n}`), aggregate: 'derived' },
    { id: 'job', labels: labels('events as part of the job', 'Ereignisse als Teil der Arbeit', 'أحداث كجزء من العمل'), items: range(1, 17).map((n) => `item${n}`), aggregate: 'derived' },
    { id: 'unsure', labels: labels('events not sure about', 'unsichere Ereignisse', 'أحداث غير متأكد منها'), items: range(1, 17).map((n) => `item${n}`), aggregate: 'derived' },
  ],
  flags: [{ code: 'direct_exposure', kind: 'clinical', labels: labels('at least one event experienced or witnessed', 'mindestens ein Ereignis selbst erlebt oder beobachtet', 'حدث واحد على الأقل عاشه الشخص أو شهده') }],
  diagnoses: [],
  assumptions: [
    'Each event must be answered (the LEC-5 asks for at least one box per event); "does not apply" cannot be combined with another kind.',
    'Derived variables (no formal scoring exists): count of events per exposure kind, and a direct-exposure flag for any event that happened to the person or was witnessed. Whether that is "trauma" for the screening exclusion is the trial’s decision.',
  ],
  derive: exposureCounts,
}));

/**
 * The LEC-5's answer to the screening's trauma question (spec §4 "no trauma"): an event that
 * happened to the person or that they witnessed is a trauma; "does not apply" to every event
 * is none. Anything else (only learned about, part of the job, not sure) leaves the question to
 * the trauma record or the interview, because a wrong "no trauma" would exclude the person.
 */
export function screeningInputsFromLec5(answers: Answers): Pick<ScreeningInputs, 'hasTrauma'> {
  const result = score(LEC5, answers);
  if (result.flags.includes('direct_exposure')) return { hasTrauma: true };
  const nothingApplies = range(1, 17).every((n) => {
    const selected = answers[`item${n}`];
    return Array.isArray(selected) && selected.length === 1 && selected[0] === 'not_applicable';
  });
  return { hasTrauma: result.complete && nothingApplies ? false : undefined };
}
