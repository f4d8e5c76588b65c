/** Time zones for the pickers: the browser's list, with the person's own zone first. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function timeZoneOptions(selected: string): { value: string; label: string }[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : ['UTC'];
  const list = zones.includes('UTC') ? zones : ['UTC', ...zones];
  if (!list.includes(selected)) list.unshift(selected);
  return list.map((zone) => ({ value: zone, label: zone.replace(/_/g, ' ') }));
}
