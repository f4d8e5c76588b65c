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
    field('internet_access', labels('Do you have access to the internet?', 'Haben Sie Zugang zum Internet?', 'هل لديك إمكانية الوصول إلى الإنترنت؟'), yesNo(), true),
    field('email', labels('Do you have an email address?', 'Haben Sie eine E-Mail-Adresse?', 'هل لديك عنوان بريد إلكتروني؟'), yesNo(), true),
    field('age', labels('How old are you (in years)?', 'Wie alt sind Sie (in Jahren)?', 'كم عمرك (بالسنوات)؟'), integerScale(0, config.maxAge), true),
    field(
      'gender',
      labels('What is your gender?', 'Welches Geschlecht haben Sie?', 'ما جنسك؟'),
      choice([option('FEMALE', 'female', 'weiblich', 'أنثى'), option('MALE', 'male', 'männlich', 'ذكر'), option('DIVERSE', 'diverse', 'divers', 'متنوع')]),
      true,
    ),
    field('country_of_origin', labels('Which country do you come from?', 'Aus welchem Land kommen Sie?', 'من أي بلد أنت؟'), textScale(100, false), true),
    field('country_of_residence', labels('In which country do you live now?', 'In welchem Land leben Sie jetzt?', 'في أي بلد تقيم الآن؟'), textScale(100, false), true),
    field(
      'residence_kind',
      labels('Where do you live?', 'Wie wohnen Sie?', 'أين تسكن؟'),
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
      labels('What is your work situation?', 'Wie ist Ihre berufliche Situation?', 'ما وضعك المهني؟'),
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
      labels('What is your highest education?', 'Was ist Ihr höchster Bildungsabschluss?', 'ما أعلى مستوى تعليمي وصلت إليه؟'),
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
      labels('What is your family status?', 'Wie ist Ihr Familienstand?', 'ما حالتك الاجتماعية؟'),
      choice([
        option('single', 'single', 'ledig', 'أعزب أو عزباء'),
        option('relationship', 'in a relationship', 'in einer Partnerschaft', 'في علاقة'),
        option('married', 'married', 'verheiratet', 'متزوج أو متزوجة'),
        option('separated', 'separated or divorced', 'getrennt oder geschieden', 'منفصل أو مطلق'),
        option('widowed', 'widowed', 'verwitwet', 'أرمل أو أرملة'),
      ]),
      false,
    ),
    field('children', labels('How many children do you have?', 'Wie viele Kinder haben Sie?', 'كم طفلاً لديك؟'), integerScale(0, 30), false),
    field('siblings', labels('How many brothers and sisters do you have?', 'Wie viele Geschwister haben Sie?', 'كم أخاً وأختاً لديك؟'), integerScale(0, 30), false),
    field(
      'past_treatment',
      labels('Which kinds of treatment have you had before?', 'Welche Behandlungen hatten Sie früher schon?', 'ما أنواع العلاج التي تلقيتها من قبل؟'),
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
    field('fled', labels('Did you have to flee from your home country?', 'Mussten Sie aus Ihrem Heimatland fliehen?', 'هل اضطررت إلى الفرار من بلدك الأصلي؟'), yesNo(), true),
    field(
      'flight_reason',
      labels('What was the main reason you fled?', 'Was war der Hauptgrund Ihrer Flucht?', 'ما السبب الرئيسي لفرارك؟'),
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
    field('flight_months_ago', labels('How many months ago did you flee?', 'Vor wie vielen Monaten sind Sie geflohen?', 'منذ كم شهراً فررت؟'), integerScale(0, 1200), false, FLED),
    field('refugee_hostel', labels('Do you live in refugee accommodation?', 'Wohnen Sie in einer Flüchtlingsunterkunft?', 'هل تقيم في سكن للاجئين؟'), yesNo(), false, FLED),
    field('loss', labels('Have you lost a person close to you?', 'Haben Sie eine nahestehende Person verloren?', 'هل فقدت شخصاً مقرباً منك؟'), yesNo(), true),
    field(
      'loss_relationship',
      labels('Who was this person to you?', 'Wer war diese Person für Sie?', 'ما صلتك بمن فقدته؟'),
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
    field('loss_months_ago', labels('How many months ago did you lose this person?', 'Vor wie vielen Monaten haben Sie diese Person verloren?', 'منذ كم شهراً فقدت هذا الشخص؟'), integerScale(0, 1200), false, LOSS),
    field(
      'loss_cause',
      labels('What was the cause of your loss?', 'Was war die Ursache Ihres Verlusts?', 'ما سبب فقدك له؟'),
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
      labels('How reliable is your internet connection?', 'Wie zuverlässig ist Ihre Internetverbindung?', 'ما مدى موثوقية اتصالك بالإنترنت؟'),
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
      labels('How good are you with computers and the internet?', 'Wie gut kennen Sie sich mit Computer und Internet aus?', 'ما مدى مهارتك في استخدام الحاسوب والإنترنت؟'),
      endpointScale(1, 5, labels('very low', 'sehr gering', 'منخفضة جداً'), labels('very good', 'sehr gut', 'جيدة جداً')),
      false,
    ),
    field(
      'device',
      labels('Which devices do you use?', 'Welche Geräte nutzen Sie?', 'ما الأجهزة التي تستخدمها؟'),
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
      labels('What do you do most often online?', 'Was machen Sie am häufigsten im Internet?', 'ما أكثر ما تفعله على الإنترنت؟'),
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
      labels('How did you find this programme?', 'Wie sind Sie auf das Angebot gestoßen?', 'كيف تعرّفت على هذا البرنامج؟'),
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
    field('found_via_other', labels('How else did you find it?', 'Wie sonst haben Sie davon erfahren?', 'كيف تعرّفت عليه بطريقة أخرى؟'), textScale(200, false), false, { item: 'found_via', anyOf: ['other'] }),
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
