/**
 * Which routes navigation and the home page offer. Every route of spec §2 has its real screen
 * now (screen-map.ts), so all are offered; a route added ahead of its screen would be filtered
 * out here, and the home page would show its tile as "coming soon".
 */
import { ROUTES, type RouteId } from '../../domain/routes';

export const AVAILABLE_SCREENS: ReadonlySet<RouteId> = new Set<RouteId>(ROUTES.map((route) => route.id));

export function isAvailable(id: RouteId): boolean {
  return AVAILABLE_SCREENS.has(id);
}
