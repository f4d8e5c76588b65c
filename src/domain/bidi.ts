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
