/**
 * The viewer's clock on a screen (see clock.ts): the profile's zone and the screen language.
 * Signed out there is no profile; the browser's zone stands in (the login page's lock time).
 */
import { useTranslation } from 'react-i18next';
import { isolateIdent } from '../../domain/bidi';
import { browserTimeZone } from '../features/auth/timezones';
import { currentLocale } from '../i18n/i18n';
import { useSession } from '../session/session';
import { clockFor, type Clock, type When } from './clock';

export function useClock(): Clock {
  const { t } = useTranslation();
  const { user } = useSession();
  return clockFor(user?.time_zone ?? browserTimeZone(), currentLocale(), (parts) =>
    // Zone names are Latin codes: one left-to-right island each inside an Arabic sentence.
    t('careteam.clock.patientTime', { ...parts, zone: isolateIdent(parts.zone), patientZone: isolateIdent(parts.patientZone) }),
  );
}

/** A `<time>` element in the viewer's clock; with `patientZone`, the patient's time is named when it differs. */
export function Time({ value, patientZone, date = false }: { value: When; patientZone?: string | null; date?: boolean }) {
  const clock = useClock();
  const iso = value instanceof Date ? value.toISOString() : value;
  return <time dateTime={iso}>{patientZone ? clock.forPatient(value, patientZone) : date ? clock.date(value) : clock.dateTime(value)}</time>;
}
