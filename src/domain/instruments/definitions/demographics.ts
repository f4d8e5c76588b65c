/**
 * The baseline questionnaire of spec §3 ("demographics"): internet access, email, age, gender,
 * countries of origin and residence, kind of residence, employment, education, family status,
 * children, siblings, past treatment by kind, flight with its reason and months before, refugee
 * hostel, loss and related details, internet reliability, knowledge, device, most frequent
 * activity and how the person found the product. Its answers feed the screening exclusions
 * (no email, no internet access, minor age).
 */
import { defineInstrument } from '../define';
import { labels, option } from '../labels';
import { endpointScale, integerScale, multiScale, optionsScale, textScale, yesNo } from '../scales';
import type { Answers, ItemDefinition, Labels, OptionDefinition } from '../types';
import type { ScreeningInputs } from '../exclusions';

export interface DemographicsConfig {
  readonly minimumAge: number;
  readonly maxAge: number;
}

const OTHER = option('other', 'other', 'andere', 'غير ذلك');

function field(id: string, fieldLabels: Labels, scale: ItemDefinition['scale'], required: boolean, showIf?: ItemDefinition['showIf']): ItemDefinition {
  return { id, labels: fieldLabels, scale, required, ...(showIf ? { showIf } : {}) };
}

function choice(options: readonly OptionDefinition[]) {
  return optionsScale(options);
}

const FLED = { item: 'fled', anyOf: [true] } as const;
const LOSS = { item: 'loss', anyOf: [true] } as const;
const ONLINE = { item: 'internet_access', anyOf: [true] } as const;

export const DEMOGRAPHICS = defineInstrument<DemographicsConfig>({ minimumAge: 18, maxAge: 120 }, (config) => ({
  code: 'demographics',
  version: 'Sanad baseline questionnaire 1',
  kind: 'questionnaire',
  labels: labels('Baseline questionnaire', 'Fragebogen zu Beginn', 'الاستبيان الأساسي'),
  verification: 'project',
  licence: { class: 'project', itemText: 'project', note: 'The project’s own questions; labels are its wording.' },
  items: [
    field('internet_access', labels('has internet access', 'hat Internetzugang', 'لديه إمكانية الوصول إلى الإنترنت'), yesNo(), true),
    field('email', labels('has an email address', 'hat eine E-Mail-Adresse', 'لديه عنوان بريد إلكتروني'), yesNo(), true),
    field('age', labels('age in years', 'Alter in Jahren', 'العمر بالسنوات'), integerScale(0, config.maxAge), true),
    field(
      'gender',
      labels('gender', 'Geschlecht', 'الجنس'),
      choice([option('FEMALE', 'female', 'weiblich', 'أنثى'), option('MALE', 'male', 'männlich', 'ذكر'), option('DIVERSE', 'diverse', 'divers', 'متنوع')]),
      true,
    ),
    field('country_of_origin', labels('country of origin', 'Herkunftsland', 'بلد المنشأ'), textScale(100, false), true),
    field('country_of_residence', labels('country of residence', 'Wohnsitzland', 'بلد الإقامة'), textScale(100, false), true),
    field(
      'residence_kind',
      labels('kind of residence', 'Art der Unterkunft', 'نوع السكن'),
      choice([
        option('own_home', 'own flat or house', 'eigene Wohnung oder eigenes Haus', 'شقة أو منزل خاص'),
        option('shared', 'shared flat', 'Wohngemeinschaft', 'سكن مشترك'),
        option('family', 'with family or relatives', 'bei Familie oder Verwandten', 'مع العائلة أو الأقارب'),
        option('collective', 'camp or collective shelter', 'Lager oder Sammelunterkunft', 'مخيم أو مأوى جماعي'),
        option('no_fixed', 'no fixed home', 'keine feste Unterkunft', 'بلا مسكن ثابت'),
        OTHER,
      ]),
      false,
    ),
    field(
      'employment',
      labels('employment', 'Beschäftigung', 'العمل'),
      choice([
        option('full_time', 'employed full-time', 'Vollzeit beschäftigt', 'موظف بدوام كامل'),
        option('part_time', 'employed part-time', 'Teilzeit beschäftigt', 'موظف بدوام جزئي'),
        option('self_employed', 'self-employed', 'selbstständig', 'عمل حر'),
        option('in_education', 'in school, training or studies', 'in Schule, Ausbildung oder Studium', 'في الدراسة أو التدريب'),
        option('unemployed', 'unemployed', 'arbeitslos', 'عاطل عن العمل'),
        option('homemaker', 'homemaker', 'im Haushalt tätig', 'أعمال المنزل'),
        option('retired', 'retired', 'in Rente', 'متقاعد'),
        option('unable', 'unable to work', 'arbeitsunfähig', 'غير قادر على العمل'),
        OTHER,
      ]),
      false,
    ),
    field(
      'education',
      labels('highest education', 'höchster Bildungsabschluss', 'أعلى مستوى تعليمي'),
      choice([
        option('none', 'no formal education', 'keine formale Bildung', 'بدون تعليم رسمي'),
        option('primary', 'primary school', 'Grundschule', 'المرحلة الابتدائية'),
        option('secondary', 'secondary school', 'weiterführende Schule', 'المرحلة الثانوية'),
        option('vocational', 'vocational training', 'Berufsausbildung', 'تدريب مهني'),
        option('university', 'university degree', 'Hochschulabschluss', 'شهادة جامعية'),
        OTHER,
      ]),
      false,
    ),
    field(
      'family_status',
      labels('family status', 'Familienstand', 'الحالة الاجتماعية'),
      choice([
        option('single', 'single', 'ledig', 'أعزب أو عزباء'),
        option('relationship', 'in a relationship', 'in einer Partnerschaft', 'في علاقة'),
        option('married', 'married', 'verheiratet', 'متزوج أو متزوجة'),
        option('separated', 'separated or divorced', 'getrennt oder geschieden', 'منفصل أو مطلق'),
        option('widowed', 'widowed', 'verwitwet', 'أرمل أو أرملة'),
      ]),
      false,
    ),
    field('children', labels('number of children', 'Anzahl der Kinder', 'عدد الأطفال'), integerScale(0, 30), false),
    field('siblings', labels('number of siblings', 'Anzahl der Geschwister', 'عدد الإخوة والأخوات'), integerScale(0, 30), false),
    field(
      'past_treatment',
      labels('earlier treatment, by kind', 'frühere Behandlung, nach Art', 'العلاج السابق حسب النوع'),
      multiScale([
        option('none', 'no earlier treatment', 'keine frühere Behandlung', 'لا يوجد علاج سابق', { exclusive: true }),
        option('psychotherapy', 'psychotherapy', 'Psychotherapie', 'علاج نفسي'),
        option('medication', 'psychiatric medication', 'Psychopharmaka', 'أدوية نفسية'),
        option('inpatient', 'inpatient psychiatric treatment', 'stationäre psychiatrische Behandlung', 'علاج نفسي داخل المستشفى'),
        option('counseling', 'counselling', 'Beratung', 'إرشاد نفسي'),
        option('online', 'online treatment', 'Online-Behandlung', 'علاج عبر الإنترنت'),
        OTHER,
      ]),
      false,
    ),
    field('fled', labels('fled from the home country', 'aus dem Heimatland geflohen', 'الفرار من البلد الأصلي'), yesNo(), true),
    field(
      'flight_reason',
      labels('main reason for the flight', 'Hauptgrund der Flucht', 'السبب الرئيسي للفرار'),
      choice([
        option('war', 'war or armed conflict', 'Krieg oder bewaffneter Konflikt', 'الحرب أو النزاع المسلح'),
        option('persecution', 'persecution', 'Verfolgung', 'الاضطهاد'),
        option('violence', 'violence or threats', 'Gewalt oder Bedrohung', 'العنف أو التهديد'),
        option('economic', 'economic hardship', 'wirtschaftliche Not', 'الضائقة الاقتصادية'),
        option('family', 'family reasons', 'familiäre Gründe', 'أسباب عائلية'),
        OTHER,
      ]),
      false,
      FLED,
    ),
    field('flight_months_ago', labels('months since the flight', 'Monate seit der Flucht', 'الأشهر منذ الفرار'), integerScale(0, 1200), false, FLED),
    field('refugee_hostel', labels('lives in refugee accommodation', 'wohnt in einer Flüchtlingsunterkunft', 'يقيم في سكن للاجئين'), yesNo(), false, FLED),
    field('loss', labels('loss of a close person', 'Verlust einer nahestehenden Person', 'فقدان شخص مقرب'), yesNo(), true),
    field(
      'loss_relationship',
      labels('relationship to the person lost', 'Beziehung zur verlorenen Person', 'صلة القرابة بالشخص المفقود'),
      choice([
        option('partner', 'partner', 'Partner oder Partnerin', 'الشريك أو الشريكة'),
        option('child', 'child', 'Kind', 'طفل'),
        option('parent', 'parent', 'Elternteil', 'أحد الوالدين'),
        option('sibling', 'sibling', 'Geschwister', 'أخ أو أخت'),
        option('relative', 'other relative', 'andere Verwandte', 'قريب آخر'),
        option('friend', 'friend', 'Freund oder Freundin', 'صديق أو صديقة'),
        OTHER,
      ]),
      false,
      LOSS,
    ),
    field('loss_months_ago', labels('months since the loss', 'Monate seit dem Verlust', 'الأشهر منذ الفقد'), integerScale(0, 1200), false, LOSS),
    field(
      'loss_cause',
      labels('cause of the loss', 'Ursache des Verlusts', 'سبب الفقد'),
      choice([
        option('illness', 'illness or natural causes', 'Krankheit oder natürliche Ursache', 'مرض أو أسباب طبيعية'),
        option('accident', 'accident', 'Unfall', 'حادث'),
        option('violence', 'violence or war', 'Gewalt oder Krieg', 'عنف أو حرب'),
        option('suicide', 'suicide', 'Suizid', 'انتحار'),
        option('missing', 'missing, fate unknown', 'vermisst, Schicksal unbekannt', 'مفقود ومصيره مجهول'),
        OTHER,
      ]),
      false,
      LOSS,
    ),
    field(
      'internet_reliability',
      labels('how reliable the internet connection is', 'wie zuverlässig die Internetverbindung ist', 'مدى موثوقية الاتصال بالإنترنت'),
      choice([
        option('always', 'always works', 'funktioniert immer', 'يعمل دائماً'),
        option('mostly', 'mostly works', 'funktioniert meistens', 'يعمل غالباً'),
        option('sometimes', 'sometimes works', 'funktioniert manchmal', 'يعمل أحياناً'),
        option('rarely', 'rarely works', 'funktioniert selten', 'نادراً ما يعمل'),
      ]),
      false,
      ONLINE,
    ),
    field(
      'knowledge',
      labels('skill with computers and the internet', 'Kenntnisse im Umgang mit Computer und Internet', 'المهارة في استخدام الحاسوب والإنترنت'),
      endpointScale(1, 5, labels('very low', 'sehr gering', 'منخفضة جداً'), labels('very good', 'sehr gut', 'جيدة جداً')),
      false,
    ),
    field(
      'device',
      labels('devices used', 'genutzte Geräte', 'الأجهزة المستخدمة'),
      multiScale([
        option('smartphone', 'smartphone', 'Smartphone', 'هاتف ذكي'),
        option('tablet', 'tablet', 'Tablet', 'جهاز لوحي'),
        option('computer', 'laptop or desktop computer', 'Laptop oder Computer', 'حاسوب محمول أو مكتبي'),
        OTHER,
      ]),
      false,
      ONLINE,
    ),
    field(
      'most_frequent_activity',
      labels('most frequent activity online', 'häufigste Tätigkeit im Internet', 'النشاط الأكثر تكراراً على الإنترنت'),
      choice([
        option('messaging', 'chat and messengers', 'Chatten und Messenger', 'الدردشة وتطبيقات المراسلة'),
        option('social_media', 'social media', 'soziale Medien', 'وسائل التواصل الاجتماعي'),
        option('video', 'videos', 'Videos', 'مقاطع الفيديو'),
        option('news', 'news and information', 'Nachrichten und Informationen', 'الأخبار والمعلومات'),
        option('email', 'email', 'E-Mail', 'البريد الإلكتروني'),
        option('learning', 'learning', 'Lernen', 'التعلم'),
        option('games', 'games', 'Spiele', 'الألعاب'),
        OTHER,
      ]),
      false,
      ONLINE,
    ),
    field(
      'found_via',
      labels('how the person found the programme', 'wie die Person auf das Angebot gestoßen ist', 'كيف تعرّف الشخص على البرنامج'),
      choice([
        option('search_engine', 'search engine', 'Suchmaschine', 'محرك بحث'),
        option('social_media', 'social media', 'soziale Medien', 'وسائل التواصل الاجتماعي'),
        option('friends_family', 'friends or family', 'Freunde oder Familie', 'الأصدقاء أو العائلة'),
        option('organisation', 'aid organisation', 'Hilfsorganisation', 'منظمة إغاثة'),
        option('health_professional', 'doctor or therapist', 'Arzt, Ärztin oder Therapeut, Therapeutin', 'طبيب أو معالج'),
        option('media', 'press, radio or TV', 'Presse, Radio oder Fernsehen', 'الصحافة أو الإذاعة أو التلفزيون'),
        option('flyer', 'flyer or poster', 'Flyer oder Plakat', 'منشور أو ملصق'),
        OTHER,
      ]),
      false,
    ),
    field('found_via_other', labels('how found: other', 'wie gefunden: andere', 'طريقة التعرف: غير ذلك'), textScale(200, false), false, { item: 'found_via', anyOf: ['other'] }),
  ],
  subscales: [],
  flags: [
    { code: 'no_internet_access', kind: 'clinical', labels: labels('no internet access (exclusion)', 'kein Internetzugang (Ausschluss)', 'لا يوجد وصول إلى الإنترنت (استبعاد)'), when: { item: 'internet_access', anyOf: [false] } },
    { code: 'no_email', kind: 'clinical', labels: labels('no email address (exclusion)', 'keine E-Mail-Adresse (Ausschluss)', 'لا يوجد بريد إلكتروني (استبعاد)'), when: { item: 'email', anyOf: [false] } },
    { code: 'minor', kind: 'clinical', labels: labels('younger than the minimum age (exclusion)', 'jünger als das Mindestalter (Ausschluss)', 'أصغر من الحد الأدنى للعمر (استبعاد)'), when: { item: 'age', atMost: config.minimumAge - 1 } },
  ],
  diagnoses: [],
  assumptions: [
    'Spec §3 names the fields only; types, options and labels are the project’s. "email" and "internet access" are yes/no (the address itself lives on the account); "knowledge" is read as self-rated skill with computers and the internet (1–5); "device" is a multi-select; "past treatment by kind" is a multi-select where "none" excludes the rest; "flight" is a yes/no with reason, months since and refugee accommodation shown only after a flight; "loss" is the loss of a close person with relationship, months since and cause shown only after a loss.',
    'Countries are free text (up to 100 characters) rather than a country list, so no country names need translating; the export may normalise them.',
    'Required: internet access, email, age, gender, countries of origin and residence, flight and loss; everything else may be skipped.',
    'Gender uses the account enumeration FEMALE, MALE, DIVERSE (spec §3, §9).',
  ],
}));

/** The screening inputs the baseline questionnaire answers (spec §4 exclusions). */
export function screeningInputsFromDemographics(answers: Answers): Pick<ScreeningInputs, 'hasEmail' | 'hasInternetAccess' | 'age'> {
  const bool = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
  const age = answers.age;
  return {
    hasEmail: bool(answers.email),
    hasInternetAccess: bool(answers.internet_access),
    age: typeof age === 'number' && Number.isInteger(age) ? age : undefined,
  };
}
