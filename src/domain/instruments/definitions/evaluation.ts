/**
 * Treatment evaluation at the end of treatment. Spec §3 only names the collection, so this is
 * the project's own short form: three ratings (satisfaction, helpfulness, recommendation) with
 * a mean satisfaction score, a perceived change from much worse to much better, and free text.
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { endpointScale, integerScale, textScale } from '../scales';

export interface EvaluationConfig {
  readonly textMaxLength: number;
}

export const EVALUATION = defineInstrument<EvaluationConfig>({ textMaxLength: 2000 }, (config) => ({
  code: 'evaluation',
  version: 'Sanad treatment evaluation 1',
  kind: 'questionnaire',
  labels: labels('Treatment evaluation', 'Bewertung der Behandlung', 'تقييم العلاج'),
  verification: 'project',
  licence: { class: 'project', itemText: 'project', note: 'The project’s own form; labels are its wording.' },
  items: [
    { id: 'satisfaction', labels: labels('How satisfied are you with the treatment overall?', 'Wie zufrieden sind Sie insgesamt mit der Behandlung?', 'ما مدى رضاك عن العلاج بشكل عام؟'), scale: endpointScale(1, 5, labels('very dissatisfied', 'sehr unzufrieden', 'غير راضٍ إطلاقاً'), labels('very satisfied', 'sehr zufrieden', 'راضٍ جداً')), required: true },
    { id: 'helpfulness', labels: labels('How helpful was the treatment for you?', 'Wie hilfreich war die Behandlung für Sie?', 'ما مدى فائدة العلاج لك؟'), scale: endpointScale(1, 5, labels('not helpful', 'nicht hilfreich', 'غير مفيد'), labels('very helpful', 'sehr hilfreich', 'مفيد جداً')), required: true },
    { id: 'recommendation', labels: labels('Would you recommend the treatment to others?', 'Würden Sie die Behandlung weiterempfehlen?', 'هل توصي بهذا العلاج للآخرين؟'), scale: endpointScale(1, 5, labels('certainly not', 'sicher nicht', 'بالتأكيد لا'), labels('certainly', 'sicher', 'بالتأكيد')), required: true },
    {
      id: 'change',
      labels: labels('How have your problems changed since the start?', 'Wie haben sich Ihre Beschwerden seit Beginn verändert?', 'كيف تغيّرت مشكلاتك منذ البداية؟'),
      scale: integerScale(-2, 2, [anchor(-2, 'much worse', 'deutlich schlechter', 'أسوأ بكثير'), anchor(0, 'unchanged', 'unverändert', 'دون تغيير'), anchor(2, 'much better', 'deutlich besser', 'أفضل بكثير')]),
      required: true,
    },
    { id: 'helpful_parts', labels: labels('What helped you?', 'Was hat Ihnen geholfen?', 'ما الذي ساعدك؟'), scale: textScale(config.textMaxLength), required: false },
    { id: 'unhelpful_parts', labels: labels('What did not help you, or was difficult?', 'Was hat Ihnen nicht geholfen oder war schwierig?', 'ما الذي لم يساعدك أو كان صعباً عليك؟'), scale: textScale(config.textMaxLength), required: false },
    { id: 'suggestions', labels: labels('Do you have suggestions for us?', 'Haben Sie Vorschläge für uns?', 'هل لديك اقتراحات لنا؟'), scale: textScale(config.textMaxLength), required: false },
  ],
  subscales: [{ id: 'satisfaction_score', labels: labels('satisfaction (mean of three ratings)', 'Zufriedenheit (Mittel aus drei Bewertungen)', 'الرضا (متوسط ثلاثة تقييمات)'), items: ['satisfaction', 'helpfulness', 'recommendation'], aggregate: 'mean' }],
  flags: [{ code: 'reported_deterioration', kind: 'clinical', labels: labels('person reports being worse', 'Person berichtet eine Verschlechterung', 'يفيد الشخص بتدهور حالته'), when: { item: 'change', atMost: -1 } }],
  diagnoses: [],
  assumptions: [
    'Spec §3 gives no content for "evaluation": defined as the project’s own end-of-treatment evaluation (three 1–5 ratings with a mean satisfaction score, perceived change −2…+2, three optional free texts of up to 2000 characters). The follow-up feedback interview report covers the interviewer’s view separately.',
    'A reported deterioration (change ≤ −1) raises a clinical flag so staff can follow up.',
  ],
}));
