/**
 * EUROHIS-QOL 8 (Schmidt, Mühlan & Power 2006), INSTRUMENTS.md §5: 8 items 1–5, higher is
 * better, unidimensional; the score is the sum (8–40), the mean (1–5) is reported too.
 */
import { defineInstrument } from '../define';
import { labels } from '../labels';
import { endpointScale, itemIds, numberedItems, range } from '../scales';

const SCALE = endpointScale(1, 5, labels('lowest rating', 'niedrigste Stufe', 'أدنى درجة'), labels('highest rating', 'höchste Stufe', 'أعلى درجة'));

const TOPICS = [
  labels('overall quality of life', 'Lebensqualität insgesamt', 'جودة الحياة عموماً'),
  labels('satisfaction with health', 'Zufriedenheit mit der Gesundheit', 'الرضا عن الصحة'),
  labels('energy for everyday life', 'Energie für den Alltag', 'الطاقة للحياة اليومية'),
  labels('daily activities', 'alltägliche Aktivitäten', 'الأنشطة اليومية'),
  labels('satisfaction with oneself', 'Zufriedenheit mit sich selbst', 'الرضا عن النفس'),
  labels('personal relationships', 'persönliche Beziehungen', 'العلاقات الشخصية'),
  labels('enough money for one’s needs', 'genug Geld für die eigenen Bedürfnisse', 'المال الكافي للاحتياجات'),
  labels('living conditions', 'Wohnbedingungen', 'ظروف السكن'),
];

export const EUROHIS = defineInstrument({}, () => ({
  code: 'eurohis',
  version: 'EUROHIS-QOL 8 (2006)',
  kind: 'questionnaire',
  labels: labels('EUROHIS quality-of-life index (EUROHIS-QOL 8)', 'EUROHIS-Lebensqualitätsindex (EUROHIS-QOL 8)', 'مؤشر جودة الحياة (EUROHIS-QOL 8)'),
  verification: 'partly_verified',
  licence: { class: 'permission_unclear', itemText: 'ask', note: 'WHO/WHOQOL group; permission unclear (⚠️). German norms: Brähler 2007, Hettich 2022; Arabic version unknown (❓).' },
  items: numberedItems(8, SCALE, TOPICS),
  subscales: [{ id: 'mean', labels: labels('mean item score (1–5)', 'mittlerer Itemwert (1–5)', 'متوسط درجة البند (1–5)'), items: itemIds(range(1, 8)), aggregate: 'mean' }],
  total: { labels: labels('EUROHIS-QOL total (8–40)', 'EUROHIS-QOL Summenwert (8–40)', 'مجموع EUROHIS-QOL (8–40)'), items: itemIds(range(1, 8)), aggregate: 'sum' },
  flags: [],
  diagnoses: [],
  assumptions: [
    'Anchor wording varies per item (very poor…very good, very dissatisfied…very satisfied, not at all…completely) ⚠️; the form labels only the ends ("lowest"/"highest rating") until the licensed wording is installed.',
    'The item-to-WHOQOL-domain mapping (physical 2, psychological 1, social 1, environment 2) ⚠️ does not affect the score; topic labels follow it.',
    'The "mean" subscale is mean of the answered items only when all are answered (all items required); no cut-offs exist.',
  ],
}));
