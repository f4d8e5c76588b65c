/**
 * Disclosure of the trauma: how far a person holds back from, or wishes to, talk about the
 * event and how talking feels. Spec §3 only names the collection, so this is the project's
 * own short scale, modelled on the three scales of the Disclosure of Trauma Questionnaire
 * (reluctance to talk, urge to talk, emotional reactions) without its items.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { configuredItems, configuredSubscales, type ConfiguredScalesConfig } from './configured';

const TOPICS = [
  labels('holding back from talking about the event', 'Zurückhaltung, über das Ereignis zu sprechen', 'التحفظ في الحديث عن الحدث'),
  labels('keeping the event to oneself', 'das Ereignis für sich behalten', 'إبقاء الحدث لنفسي'),
  labels('wish to talk about the event', 'Wunsch, über das Ereignis zu sprechen', 'الرغبة في الحديث عن الحدث'),
  labels('relief after talking', 'Erleichterung nach dem Sprechen', 'الشعور بالارتياح بعد الحديث'),
  labels('distress while talking', 'Belastung beim Sprechen', 'الضيق أثناء الحديث'),
  labels('shame while talking', 'Scham beim Sprechen', 'الخجل أثناء الحديث'),
];

export const DISCLOSURE = defineInstrument<ConfiguredScalesConfig>(
  {
    itemCount: 6,
    min: 0,
    max: 4,
    aggregate: 'mean',
    scales: [
      { id: 'reluctance', items: [1, 2], labels: labels('reluctance to talk', 'Redehemmung', 'التردد في الحديث') },
      { id: 'urge', items: [3, 4], labels: labels('urge to talk', 'Mitteilungsbedürfnis', 'الحاجة إلى الحديث') },
      { id: 'emotional_reactions', items: [5, 6], labels: labels('emotional reactions', 'emotionale Reaktionen', 'ردود الفعل العاطفية') },
    ],
  },
  (config) => ({
    code: 'disclosure',
    version: 'Sanad disclosure short scale 1',
    kind: 'questionnaire',
    labels: labels('Talking about the trauma', 'Über das Trauma sprechen', 'الحديث عن الصدمة'),
    verification: 'project',
    licence: { class: 'project', itemText: 'project', note: 'The project’s own short scale; labels are its wording.' },
    items: configuredItems(config, labels('not at all', 'überhaupt nicht', 'إطلاقاً'), labels('very much', 'sehr stark', 'كثيراً جداً'), TOPICS),
    subscales: configuredSubscales(config),
    flags: [],
    diagnoses: [],
    assumptions: [
      'Spec §3 gives no content for "disclosure": it is read as disclosure of the traumatic event and defined as the project’s own 6-item scale (0 not at all … 4 very much) with three 2-item mean scales (reluctance, urge, emotional reactions) named after the Disclosure of Trauma Questionnaire (Müller et al. 2000). A trial using the DTQ itself sets itemCount, range and scales (config) and installs its wording.',
      'No total: the scales point in different directions.',
    ],
  }),
);
