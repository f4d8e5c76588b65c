/**
 * The trauma record of spec §3 (collection traumalisteneu, "trauma list"): worst event,
 * description, time since, to whom, danger of death, serious injury, sexual violence, close
 * persons, number of comparable events. A project form, not a published instrument: response
 * options are the project's own. It yields DSM-5 criterion A (death, serious injury or sexual
 * violence) and flags a trauma less than one month ago (rejection reason 2, spec §4).
 */
import { defineInstrument } from '../define';
import { labels, option } from '../labels';
import { integerScale, optionsScale, textScale, yesNo } from '../scales';
import { score } from '../score';
import type { Answers, DeriveInput, Derived } from '../types';
import type { ScreeningInputs } from '../exclusions';
import { LEC5_EVENTS } from './lec5';

export interface TraumaListConfig {
  readonly descriptionMaxLength: number;
  readonly maxComparableEvents: number;
}

const TIME_SINCE = optionsScale([
  option('lt1m', 'less than 1 month', 'weniger als 1 Monat', 'أقل من شهر'),
  option('1to3m', '1 to 3 months', '1 bis 3 Monate', 'من شهر إلى 3 أشهر'),
  option('3to12m', '3 to 12 months', '3 bis 12 Monate', 'من 3 إلى 12 شهراً'),
  option('1to5y', '1 to 5 years', '1 bis 5 Jahre', 'من سنة إلى 5 سنوات'),
  option('gt5y', 'more than 5 years', 'mehr als 5 Jahre', 'أكثر من 5 سنوات'),
]);

const TO_WHOM = optionsScale([
  option('self', 'to me', 'mir selbst', 'لي أنا'),
  option('close_person', 'to a close person', 'einer nahestehenden Person', 'لشخص مقرب'),
  option('other_person', 'to another person', 'einer anderen Person', 'لشخص آخر'),
  option('self_and_others', 'to me and others', 'mir und anderen', 'لي وللآخرين'),
]);

function criterionA({ value }: DeriveInput<TraumaListConfig>): Derived {
  const answers = ['danger_of_death', 'serious_injury', 'sexual_violence'].map((id) => value(id));
  if (answers.some((a) => a === true)) return { diagnoses: { dsm5_criterion_a: true } };
  return { diagnoses: { dsm5_criterion_a: answers.every((a) => a === false) ? false : undefined } };
}

export const TRAUMALISTENEU = defineInstrument<TraumaListConfig>({ descriptionMaxLength: 2000, maxComparableEvents: 999 }, (config) => ({
  code: 'traumalisteneu',
  version: 'Sanad trauma record 1',
  kind: 'questionnaire',
  labels: labels('Trauma record', 'Traumaliste', 'سجل الصدمة'),
  verification: 'project',
  licence: { class: 'project', itemText: 'project', note: 'The project’s own form; labels are its wording.' },
  items: [
    { id: 'worst_event', labels: labels('Which of these events was the worst for you?', 'Welches dieser Ereignisse war für Sie das schlimmste?', 'أي هذه الأحداث كان الأسوأ بالنسبة لك؟'), scale: optionsScale(LEC5_EVENTS), required: true },
    { id: 'description', labels: labels('Can you describe the event in a few words?', 'Können Sie das Ereignis in wenigen Worten beschreiben?', 'هل يمكنك وصف الحدث بكلمات قليلة؟'), scale: textScale(config.descriptionMaxLength), required: false },
    { id: 'time_since', labels: labels('How long ago did it happen to you?', 'Wie lange ist das Ereignis bei Ihnen her?', 'منذ متى حدث ذلك معك؟'), scale: TIME_SINCE, required: true },
    { id: 'to_whom', labels: labels('To whom did it happen, as you saw it?', 'Wem ist es passiert, so wie Sie es erlebt haben?', 'لمن حدث ذلك كما عشته أنت؟'), scale: TO_WHOM, required: true },
    { id: 'danger_of_death', labels: labels('Were you or someone else in danger of death?', 'Waren Sie oder jemand anderes in Lebensgefahr?', 'هل كنت أنت أو شخص آخر في خطر الموت؟'), scale: yesNo(), required: true },
    { id: 'serious_injury', labels: labels('Were you or someone else seriously injured?', 'Wurden Sie oder jemand anderes schwer verletzt?', 'هل أُصبت أنت أو شخص آخر إصابة خطيرة؟'), scale: yesNo(), required: true },
    { id: 'sexual_violence', labels: labels('Did you or someone else suffer sexual violence?', 'Haben Sie oder jemand anderes sexuelle Gewalt erlebt?', 'هل تعرضت أنت أو شخص آخر لعنف جنسي؟'), scale: yesNo(), required: true },
    { id: 'close_persons', labels: labels('Were people close to you affected?', 'Waren Ihnen nahestehende Personen betroffen?', 'هل تأثر أشخاص مقربون منك؟'), scale: yesNo(), required: false },
    { id: 'comparable_events', labels: labels('How many similar events have you been through?', 'Wie viele ähnliche Ereignisse haben Sie erlebt?', 'كم حدثاً مشابهاً مررت به؟'), scale: integerScale(0, config.maxComparableEvents), required: false },
  ],
  subscales: [],
  flags: [
    { code: 'trauma_under_one_month', kind: 'clinical', labels: labels('event less than one month ago', 'Ereignis liegt weniger als einen Monat zurück', 'وقع الحدث منذ أقل من شهر'), when: { item: 'time_since', anyOf: ['lt1m'] } },
  ],
  diagnoses: [{ code: 'dsm5_criterion_a', labels: labels('DSM-5 criterion A (death, serious injury or sexual violence)', 'DSM-5-Kriterium A (Tod, schwere Verletzung oder sexuelle Gewalt)', 'المعيار A في DSM-5 (موت أو إصابة خطيرة أو عنف جنسي)') }],
  assumptions: [
    'Spec §3 names the fields only; types and options are the project’s: worst event is one of the LEC-5 event kinds; time since is a category (less than 1 month, 1–3 months, 3–12 months, 1–5 years, more than 5 years) so the one-month rule can be applied; to whom is me / a close person / another person / me and others; danger of death, serious injury, sexual violence and close persons affected are yes/no; comparable events is a count 0–999.',
    'Required: worst event, time since, to whom and the three criterion-A questions; description, close persons and comparable events are optional.',
    'Criterion A is yes when any of danger of death, serious injury or sexual violence is yes, no when all three are no.',
  ],
  derive: criterionA,
}));

/**
 * The trauma record's answer to the screening's trauma question (spec §4 "no trauma", rejection
 * reason 1 "no trauma per diagnostic manual"): DSM-5 criterion A, undefined while undecided.
 */
export function screeningInputsFromTraumaRecord(answers: Answers): Pick<ScreeningInputs, 'hasTrauma'> {
  return { hasTrauma: score(TRAUMALISTENEU, answers).diagnoses?.dsm5_criterion_a };
}
