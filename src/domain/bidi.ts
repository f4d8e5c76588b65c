/**
 * Right-to-left text with Latin names and codes in it. In an Arabic sentence, "(PCL-5)" or an
 * email address is a left-to-right island; without a mark the browser's bidi algorithm lets
 * the parentheses and hyphens join the wrong side ("(PCL-" … "5)"). Each run of Latin letters
 * (with the digits, hyphens, dots and similar that belong to it) is wrapped in a left-to-right
 * isolate (U+2066 … U+2069), which the surrounding Arabic treats as one neutral unit: the
 * sentence keeps its order and the code reads left to right inside it. JSX elements use <bdi>
 * and dir="auto" for names and user text instead; this is for strings (catalog texts,
 * questionnaire titles) where markup cannot go.
 */
const LRI = '\u2066';
const PDI = '\u2069';

/** A Latin run: starts with a letter; may hold digits and joiners, and further words after single spaces. */
const LATIN_RUN = /[A-Za-z][A-Za-z0-9@._+\-/:#%&]*(?: [A-Za-z0-9][A-Za-z0-9@._+\-/:#%&]*)*/g;
const HAS_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** The text with each Latin run isolated; text without right-to-left letters is returned as is. */
export function isolateLatin(text: string): string {
  if (!HAS_RTL.test(text) || text.includes(LRI)) return text;
  return text.replace(LATIN_RUN, (run) => {
    // A run's trailing sentence punctuation belongs to the Arabic sentence, not to the code.
    const trail = /[.:]+$/.exec(run)?.[0] ?? '';
    const core = trail ? run.slice(0, -trail.length) : run;
    return `${LRI}${core}${PDI}${trail}`;
  });
}

/** The text without isolates, e.g. to compare or search. */
export function withoutIsolates(text: string): string {
  return text.replace(/[\u2066-\u2069]/g, '');
}

/**
 * An identifier (a case code such as "96d8ae5") as one left-to-right isolate, for strings where
 * markup cannot go (page titles, catalog sentences). `isolateLatin` cannot do it: a code that
 * starts with digits is not a Latin run, and in Arabic its digits and letters swap sides. In
 * JSX the same rule is the `Ident` element.
 */
export function isolateIdent(text: string | null | undefined): string {
  if (!text) return '';
  return text.startsWith(LRI) ? text : `${LRI}${text}${PDI}`;
}

/**
 * A text cut into its Latin runs and the rest, for JSX: each Latin run ("DSM-5 (LEC-5)"'s
 * "LEC-5") becomes an identifier element that neither swaps nor breaks at 360 px (issue 25).
 * Text without right-to-left letters is one plain part.
 */
export function latinParts(text: string): { text: string; latin: boolean }[] {
  if (!HAS_RTL.test(text)) return [{ text, latin: false }];
  const parts: { text: string; latin: boolean }[] = [];
  let at = 0;
  for (const match of withoutIsolates(text).matchAll(LATIN_RUN)) {
    const start = match.index;
    if (start > at) parts.push({ text: withoutIsolates(text).slice(at, start), latin: false });
    parts.push({ text: match[0], latin: true });
    at = start + match[0].length;
  }
  const plain = withoutIsolates(text);
  if (at < plain.length) parts.push({ text: plain.slice(at), latin: false });
  return parts;
}
