import type { TFunction } from 'i18next';

/**
 * A treatment arm as the clinic says it: the translated name of a known arm (careTeam.arms),
 * else the code the coordinator configured. Screens never show a bare "cbt".
 */
export function armName(t: TFunction, code: string | null | undefined): string {
  if (!code) return '—';
  return t(`careTeam.arms.${code}`, { defaultValue: code });
}
