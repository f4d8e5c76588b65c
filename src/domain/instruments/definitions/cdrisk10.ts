/**
 * CD-RISC-10 (Campbell-Sills & Stein 2007), INSTRUMENTS.md §5: 10 items 0–4, sum 0–40,
 * positively keyed, no official cut-offs. Copyrighted and fee-based: no wording here, and
 * item labels are numbers only.
 */
import { defineInstrument } from '../define';
import { anchor, labels } from '../labels';
import { integerScale, itemIds, numberedItems, range } from '../scales';

const SCALE = integerScale(0, 4, [
  anchor(0, 'not true at all', 'überhaupt nicht zutreffend', 'غير صحيح إطلاقاً'),
  anchor(1, 'rarely true', 'selten zutreffend', 'نادراً ما يكون صحيحاً'),
  anchor(2, 'sometimes true', 'manchmal zutreffend', 'صحيح أحياناً'),
  anchor(3, 'often true', 'oft zutreffend', 'صحيح غالباً'),
  anchor(4, 'true nearly all the time', 'fast immer zutreffend', 'صحيح دائماً تقريباً'),
]);

export const CDRISK10 = defineInstrument({}, () => ({
  code: 'cdrisk10',
  version: 'CD-RISC-10 (2007)',
  kind: 'questionnaire',
  labels: labels('Connor-Davidson Resilience Scale, 10 items (CD-RISC-10)', 'Connor-Davidson-Resilienzskala, 10 Items (CD-RISC-10)', 'مقياس كونور-ديفيدسون للمرونة النفسية، 10 بنود (CD-RISC-10)'),
  verification: 'verified',
  licence: {
    class: 'commercial',
    itemText: 'never',
    note: 'Copyrighted; licence and fee from J. Davidson (cd-risc.com). Translations (German: Sarubin 2015; Arabic: Fekih-Romdhane 2024) are supplied by the author.',
  },
  items: numberedItems(10, SCALE),
  subscales: [],
  total: { labels: labels('CD-RISC-10 total', 'CD-RISC-10 Summenwert', 'مجموع CD-RISC-10'), items: itemIds(range(1, 10)), aggregate: 'sum' },
  flags: [],
  diagnoses: [],
  assumptions: ['No bands: the manual reports population quartiles and means only; bands found on the web are invented.'],
}));
