/** Short id of a case as people see it (spec §3): characters 3 to 7, an ellipsis, the last 2. */
export function shortId(id: string): string {
  return `${id.slice(2, 7)}…${id.slice(-2)}`;
}
