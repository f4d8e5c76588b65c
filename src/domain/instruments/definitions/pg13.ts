/**
 * PG-13, Prolonged Grief (Prigerson et al. 2009), INSTRUMENTS.md §4, or its revision PG-13-R
 * (Prigerson et al. 2021), chosen by config `version` and pinned per trial. Both store
 * `item1`…`item13` but the items differ: the definition is rebuilt for the version.
 *   PG-13:   items 1–2 separation distress (1–5), 3 duration ≥ 6 months (yes/no), 4–12 symptoms
 *            (1–5), 13 impairment (yes/no); symptom total items 1, 2, 4–12 (11–55).
 *   PG-13-R: item 1 loss (yes/no) gates the rest, 2 months since the death, 3–12 symptoms (1–5),
 *            13 impairment (yes/no); total items 3–12 (10–50), ≥30 probable PGD.
 */
import { defineInstrument, InstrumentDefinitionError } from '../define';
import { itemLabels, labels } from '../labels';
import { endpointScale, integerScale, itemIds, range, yesNo } from '../scales';
import type { DeriveInput, Derived, InstrumentSpec, ItemDefinition, Labels } from '../types';

export interface Pg13Config {
  readonly version: 'PG-13' | 'PG-13-R';
  /** Points at which a symptom counts as present (4: at least daily / quite a bit). */
  readonly symptomAt: number;
  /** PG-13: symptoms of items 4–12 needed. */
  readonly pg13MinSymptoms: number;
  /** PG-13-R: symptoms of items 5–12 needed, months since the death, total cut-off. */
  readonly pg13rMinSymptoms: number;
  readonly pg13rMinMonths: number;
  readonly pg13rCutOff: number;
}

const SYMPTOM = endpointScale(1, 5, labels('not at all', 'überhaupt nicht', 'إطلاقاً'), labels('overwhelmingly', 'überwältigend', 'بشكل طاغٍ'));
const FREQUENCY = integerScale(1, 5, [
  { value: 1, labels: labels('not at all', 'überhaupt nicht', 'إطلاقاً') },
  { value: 2, labels: labels('at least once', 'mindestens einmal', 'مرة واحدة على الأقل') },
  { value: 3, labels: labels('at least once a week', 'mindestens einmal pro Woche', 'مرة في الأسبوع على الأقل') },
  { value: 4, labels: labels('at least once a day', 'mindestens einmal am Tag', 'مرة في اليوم على الأقل') },
  { value: 5, labels: labels('several times a day', 'mehrmals am Tag', 'عدة مرات في اليوم') },
]);

function item(n: number, topic: Labels, scale: ItemDefinition['scale'], showIf?: ItemDefinition['showIf']): ItemDefinition {
  return { id: `item${n}`, labels: itemLabels(n, topic), scale, required: true, ...(showIf ? { showIf } : {}) };
}

const PGD = { code: 'pgd', labels: labels('prolonged grief disorder (questionnaire algorithm)', 'anhaltende Trauerstörung (Fragebogen-Algorithmus)', 'اضطراب الحزن المطول (خوارزمية الاستبيان)') };
const TITLE = labels('Prolonged Grief questionnaire (PG-13)', 'Fragebogen zur anhaltenden Trauer (PG-13)', 'استبيان الحزن المطول (PG-13)');
const LICENCE = { class: 'permission_unclear', itemText: 'ask', note: '© Prigerson ⚠️; free for research? Ask before shipping text. German and Arabic versions ⚠️.' } as const;

function present(points: (id: string) => number | undefined, numbers: readonly number[], at: number): number {
  return numbers.filter((n) => (points(`item${n}`) ?? 0) >= at).length;
}

function pg13(config: Pg13Config): InstrumentSpec<Pg13Config> {
  const derive = ({ points, value, complete }: DeriveInput<Pg13Config>): Derived => {
    if (!complete) return { diagnoses: {} };
    const distress = present(points, [1, 2], config.symptomAt) > 0;
    const symptoms = present(points, range(4, 12), config.symptomAt) >= config.pg13MinSymptoms;
    return { diagnoses: { pgd: distress && value('item3') === true && symptoms && value('item13') === true } };
  };
  return {
    code: 'pg13',
    version: 'PG-13 (2009)',
    kind: 'questionnaire',
    labels: TITLE,
    verification: 'unverified',
    licence: LICENCE,
    items: [
      item(1, labels('yearning for the deceased', 'Sehnsucht nach der verstorbenen Person', 'الحنين إلى المتوفى'), FREQUENCY),
      item(2, labels('intense emotional pain about the loss', 'intensiver seelischer Schmerz über den Verlust', 'ألم عاطفي شديد بسبب الفقد'), FREQUENCY),
      item(3, labels('these feelings for at least six months', 'diese Gefühle seit mindestens sechs Monaten', 'هذه المشاعر منذ ستة أشهر على الأقل'), yesNo()),
      item(4, labels('avoiding reminders of the loss', 'Vermeiden von Erinnerungen an den Verlust', 'تجنب ما يذكّر بالفقد'), SYMPTOM),
      item(5, labels('feeling stunned or dazed', 'sich wie betäubt fühlen', 'الشعور بالذهول'), SYMPTOM),
      item(6, labels('confusion about one’s role in life', 'Unsicherheit über die eigene Rolle im Leben', 'الارتباك بشأن الدور في الحياة'), SYMPTOM),
      item(7, labels('difficulty accepting the loss', 'Schwierigkeit, den Verlust zu akzeptieren', 'صعوبة تقبل الفقد'), SYMPTOM),
      item(8, labels('difficulty trusting others', 'Schwierigkeit, anderen zu vertrauen', 'صعوبة الثقة بالآخرين'), SYMPTOM),
      item(9, labels('bitterness about the loss', 'Verbitterung über den Verlust', 'المرارة بسبب الفقد'), SYMPTOM),
      item(10, labels('difficulty moving on', 'Schwierigkeit, weiterzumachen', 'صعوبة المضي قدماً'), SYMPTOM),
      item(11, labels('emotional numbness', 'Gefühlstaubheit', 'الخدر العاطفي'), SYMPTOM),
      item(12, labels('life feels empty or meaningless', 'Leben fühlt sich leer oder sinnlos an', 'الحياة تبدو فارغة أو بلا معنى'), SYMPTOM),
      item(13, labels('marked reduction in functioning', 'deutliche Beeinträchtigung im Alltag', 'انخفاض ملحوظ في الأداء اليومي'), yesNo()),
    ],
    subscales: [],
    total: { labels: labels('PG-13 symptom total (11–55)', 'PG-13 Symptomsumme (11–55)', 'مجموع أعراض PG-13 (11–55)'), items: itemIds([1, 2, ...range(4, 12)]), aggregate: 'sum' },
    flags: [],
    diagnoses: [PGD],
    assumptions: [
      'Version PG-13 (original, ⚠️) by default; PG-13-R ✅ via config version. The spec annotates pg13 as a "15-item agreement and attribution scale with negative and positive scores", which fits the INEP, not a grief measure: the collection is read as PG-13 per INSTRUMENTS.md.',
      'PG-13 diagnosis ⚠️: item 1 or 2 at ≥4 (at least daily), item 3 yes (≥6 months), ≥5 of items 4–12 at ≥4, item 13 yes (config symptomAt, pg13MinSymptoms).',
      'Response anchors are the project’s own: items 1–2 frequency, items 4–12 labelled at the ends only (not at all … overwhelmingly) ⚠️.',
    ],
    derive,
  };
}

function pg13r(config: Pg13Config): InstrumentSpec<Pg13Config> {
  const afterLoss = { item: 'item1', anyOf: [true] } as const;
  const derive = ({ points, value, complete }: DeriveInput<Pg13Config>): Derived => {
    if (!complete) return { diagnoses: {} };
    if (value('item1') === false) return { diagnoses: { pgd: false } };
    const months = points('item2') ?? 0;
    const core = present(points, [3, 4], config.symptomAt) > 0;
    const symptoms = present(points, range(5, 12), config.symptomAt) >= config.pg13rMinSymptoms;
    return { diagnoses: { pgd: months >= config.pg13rMinMonths && core && symptoms && value('item13') === true } };
  };
  return {
    code: 'pg13',
    version: 'PG-13-R (2021)',
    kind: 'questionnaire',
    labels: labels('Prolonged Grief questionnaire, revised (PG-13-R)', 'Fragebogen zur anhaltenden Trauer, revidiert (PG-13-R)', 'استبيان الحزن المطول المنقح (PG-13-R)'),
    verification: 'partly_verified',
    licence: LICENCE,
    items: [
      item(1, labels('loss of a significant person', 'Verlust einer wichtigen Person', 'فقدان شخص مهم'), yesNo()),
      item(2, labels('months since the death', 'Monate seit dem Tod', 'الأشهر منذ الوفاة'), integerScale(0, 1200), afterLoss),
      item(3, labels('yearning for the deceased', 'Sehnsucht nach der verstorbenen Person', 'الحنين إلى المتوفى'), SYMPTOM, afterLoss),
      item(4, labels('preoccupation with the deceased', 'gedankliche Beschäftigung mit der verstorbenen Person', 'الانشغال بالمتوفى'), SYMPTOM, afterLoss),
      item(5, labels('identity disruption', 'gestörtes Identitätsgefühl', 'اضطراب الهوية'), SYMPTOM, afterLoss),
      item(6, labels('disbelief about the death', 'Nicht-wahrhaben-Wollen des Todes', 'عدم تصديق الوفاة'), SYMPTOM, afterLoss),
      item(7, labels('avoiding reminders', 'Vermeiden von Erinnerungen', 'تجنب ما يذكّر بالفقد'), SYMPTOM, afterLoss),
      item(8, labels('intense emotional pain', 'intensiver seelischer Schmerz', 'ألم عاطفي شديد'), SYMPTOM, afterLoss),
      item(9, labels('difficulty re-engaging in life', 'Schwierigkeit, wieder am Leben teilzunehmen', 'صعوبة العودة إلى الحياة'), SYMPTOM, afterLoss),
      item(10, labels('emotional numbness', 'Gefühlstaubheit', 'الخدر العاطفي'), SYMPTOM, afterLoss),
      item(11, labels('life feels meaningless', 'Leben erscheint sinnlos', 'الحياة تبدو بلا معنى'), SYMPTOM, afterLoss),
      item(12, labels('intense loneliness', 'intensive Einsamkeit', 'وحدة شديدة'), SYMPTOM, afterLoss),
      item(13, labels('marked reduction in functioning', 'deutliche Beeinträchtigung im Alltag', 'انخفاض ملحوظ في الأداء اليومي'), yesNo(), afterLoss),
    ],
    subscales: [],
    total: { labels: labels('PG-13-R total (10–50)', 'PG-13-R Summenwert (10–50)', 'مجموع PG-13-R (10–50)'), items: itemIds(range(3, 12)), aggregate: 'sum' },
    flags: [{ code: 'probable_pgd', kind: 'clinical', labels: labels('total at or above 30 (probable prolonged grief disorder)', 'Summenwert ab 30 (wahrscheinliche anhaltende Trauerstörung)', 'المجموع 30 أو أكثر (اضطراب حزن مطول محتمل)'), when: { score: 'total', atLeast: config.pg13rCutOff } }],
    diagnoses: [PGD],
    assumptions: [
      'Version PG-13-R selected by config. The spec’s pg13 annotation fits the INEP, not a grief measure (see the PG-13 definition).',
      'Item 2 is stored as months since the death (0–1200) ⚠️; the gate is ≥12 months (config pg13rMinMonths). Item 13 (impairment) is yes/no ⚠️.',
      'Items 2–13 are shown only after a loss (item 1 yes); without a loss there is no total and the diagnosis is no.',
      'DSM-5-TR rule ⚠️: item 3 or 4 at ≥4, ≥3 of items 5–12 at ≥4, impairment yes, ≥12 months (config symptomAt, pg13rMinSymptoms).',
    ],
    derive,
  };
}

export const PG13 = defineInstrument<Pg13Config>(
  { version: 'PG-13', symptomAt: 4, pg13MinSymptoms: 5, pg13rMinSymptoms: 3, pg13rMinMonths: 12, pg13rCutOff: 30 },
  (config) => {
    if (config.version === 'PG-13-R') return pg13r(config);
    if (config.version === 'PG-13') return pg13(config);
    throw new InstrumentDefinitionError('pg13', [`unknown version ${String(config.version)}`]);
  },
);
