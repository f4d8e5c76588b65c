/**
 * The one clock of the web app (issue 26; docs/decisions/one-clock.md). Every time a screen
 * shows is read in the viewer's profile time zone and written by the rules of
 * src/domain/format.ts (day-first, 24 hours, "(UTC)" named). A time that concerns a patient —
 * their interview, the deadline of a task on their case — also names the viewer's zone and
 * gives the patient's own wall-clock time when the two clocks read differently, so a
 * therapist in Berlin and a patient in Baghdad never talk past each other.
 *
 * Screens never call Intl.DateTimeFormat or toLocale*String themselves and never import the
 * formatting functions of src/domain/format.ts directly: clock.test.ts fails on a new direct use.
 */
import { formatDate, formatDateTime, formatDayHeading, formatSlot, formatTime, zoneName } from '../../domain/format';
import type { Locale } from '../../domain/locales';

export type When = string | Date;

/** Words the clock needs from the catalog: "{{time}} ({{zone}}) · patient: {{patientTime}} ({{patientZone}})". */
export type PatientTimeWords = (parts: { time: string; zone: string; patientTime: string; patientZone: string }) => string;

export interface Clock {
  /** The viewer's zone (IANA name) the clock reads in. */
  readonly zone: string;
  readonly locale: Locale;
  /** "22.11.2026, 14:05" in the viewer's zone ("(UTC)" appended for UTC). */
  dateTime(value: When): string;
  /** "22.11.2026". */
  date(value: When): string;
  /** "14:05". */
  time(value: When): string;
  /** "Di., 23.03.2027, 10:00–11:00 (Europe/Berlin)". */
  slot(start: When, end: When): string;
  /** "Dienstag, 23.03.2027": the heading of a day. */
  dayHeading(value: When): string;
  /**
   * A time about a patient: the viewer's reading, and when the patient's clock reads otherwise,
   * the viewer's zone named and the patient's own time beside it.
   */
  forPatient(value: When, patientZone: string | null | undefined): string;
  /** Whether the patient's clock reads this instant differently from the viewer's. */
  differsFor(value: When, patientZone: string | null | undefined): boolean;
}

const asDate = (value: When): Date => (value instanceof Date ? value : new Date(value));
const withoutUtcMark = (text: string): string => text.replace(/ \(UTC\)$/, '');

/** A zone name the runtime knows; anything else falls back to UTC rather than throwing on a screen. */
export function knownZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

function defaultPatientWords({ time, zone, patientTime, patientZone }: Parameters<PatientTimeWords>[0]): string {
  return `${time} (${zone}) · ${patientTime} (${patientZone})`;
}

/** The clock of one viewer: their zone and language. */
export function clockFor(viewerZone: string | null | undefined, locale: Locale, words: PatientTimeWords = defaultPatientWords): Clock {
  const zone = knownZone(viewerZone);
  const differsFor = (value: When, patientZone: string | null | undefined): boolean => {
    if (!patientZone) return false;
    const other = knownZone(patientZone);
    return withoutUtcMark(formatDateTime(asDate(value), locale, other)) !== withoutUtcMark(formatDateTime(asDate(value), locale, zone));
  };
  return {
    zone,
    locale,
    dateTime: (value) => formatDateTime(asDate(value), locale, zone),
    date: (value) => formatDate(asDate(value), locale, zone),
    time: (value) => formatTime(asDate(value), locale, zone),
    slot: (start, end) => formatSlot(asDate(start), asDate(end), locale, zone),
    dayHeading: (value) => formatDayHeading(asDate(value), locale, zone),
    differsFor,
    forPatient(value, patientZone) {
      if (!differsFor(value, patientZone)) return formatDateTime(asDate(value), locale, zone);
      const other = knownZone(patientZone);
      return words({
        time: withoutUtcMark(formatDateTime(asDate(value), locale, zone)),
        zone: zoneName(zone),
        patientTime: withoutUtcMark(formatDateTime(asDate(value), locale, other)),
        patientZone: zoneName(other),
      });
    },
  };
}
