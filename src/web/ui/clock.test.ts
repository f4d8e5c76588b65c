/**
 * One clock (issue 26, docs/decisions/one-clock.md): the viewer's profile zone for every time,
 * the patient's time named when it reads differently, and no screen formatting times on its
 * own (the same interview once showed 03:00 UTC on one screen and 04:00 without a zone on
 * another; worksheet deadlines were an hour off the task deadlines on the same page).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clockFor, knownZone } from './clock';

const instant = '2026-11-22T13:05:00Z';

describe('the viewer clock', () => {
  it('reads every time in the viewer zone, whatever zone the machine runs in', () => {
    expect(clockFor('Europe/Berlin', 'de').dateTime(instant)).toBe('22.11.2026, 14:05');
    expect(clockFor('Asia/Baghdad', 'en').dateTime(instant)).toBe('22/11/2026, 16:05');
    expect(clockFor('UTC', 'en').dateTime(instant)).toBe('22/11/2026, 13:05 (UTC)');
    expect(clockFor('Europe/Berlin', 'de').time(instant)).toBe('14:05');
    expect(clockFor('Europe/Berlin', 'de').date('2026-11-22T23:30:00Z')).toBe('23.11.2026');
  });

  it('a date, a time and a slot of the same instant agree (no second clock)', () => {
    const clock = clockFor('America/New_York', 'en');
    const slot = clock.slot(instant, '2026-11-22T14:05:00Z');
    expect(slot).toContain(clock.time(instant));
    expect(slot).toContain('(America/New York)');
    expect(clock.dateTime(instant).startsWith(clock.date(instant))).toBe(true);
  });

  it('names both clocks when the patient lives in another zone', () => {
    const clock = clockFor('Europe/Berlin', 'en');
    expect(clock.differsFor(instant, 'Asia/Baghdad')).toBe(true);
    expect(clock.forPatient(instant, 'Asia/Baghdad')).toBe('22/11/2026, 14:05 (Europe/Berlin) · 22/11/2026, 16:05 (Asia/Baghdad)');
  });

  it('says nothing extra when both clocks read the same (same zone, or another zone with the same time)', () => {
    const clock = clockFor('Europe/Berlin', 'de');
    expect(clock.forPatient(instant, 'Europe/Berlin')).toBe(clock.dateTime(instant));
    expect(clock.forPatient(instant, 'Europe/Paris')).toBe(clock.dateTime(instant));
    expect(clock.forPatient(instant, null)).toBe(clock.dateTime(instant));
  });

  it('a zone the runtime does not know falls back to UTC instead of breaking a screen', () => {
    expect(knownZone('Mars/Olympus')).toBe('UTC');
    expect(clockFor('Mars/Olympus', 'en').dateTime(instant)).toBe('22/11/2026, 13:05 (UTC)');
  });
});

/** Files of the web app that may format times: the clock itself. */
const CLOCK_FILES = new Set(['ui/clock.ts', 'ui/useClock.tsx']);
/** The ways a screen could format a time on its own. */
const DIRECT_USES: { name: string; pattern: RegExp }[] = [
  { name: 'toLocale*String', pattern: /\.toLocale(?:Date|Time)?String\(/ },
  // Reading the browser's zone (resolvedOptions) is not formatting: the zone pickers need it.
  { name: 'Intl.DateTimeFormat', pattern: /Intl\.DateTimeFormat\((?!\)\.resolvedOptions)/ },
  { name: 'a formatter of domain/format', pattern: /import\s*\{[^}]*\b(?:formatDateTime|formatDate|formatTime|formatSlot|formatDayHeading)\b[^}]*\}\s*from\s*['"][./]*domain\/format['"]/ },
];

function webSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return webSources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('no screen keeps its own clock', () => {
  const root = path.resolve(__dirname, '..');
  const files = webSources(root);

  it('walks the whole web app', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('formats times only through src/web/ui/clock.ts', () => {
    const found = files.flatMap((file) => {
      const rel = path.relative(root, file);
      if (CLOCK_FILES.has(rel)) return [];
      const text = fs.readFileSync(file, 'utf8');
      return DIRECT_USES.filter((use) => use.pattern.test(text)).map((use) => `${rel}: ${use.name}`);
    });
    expect(found).toEqual([]);
  });

  it('the walk sees a direct use when there is one', () => {
    const probe = "const a = new Date(x).toLocaleString('de');\nimport { formatDateTime } from '../../../domain/format';\nnew Intl.DateTimeFormat('de').format(d);";
    expect(DIRECT_USES.filter((use) => use.pattern.test(probe)).map((u) => u.name)).toEqual(['toLocale*String', 'Intl.DateTimeFormat', 'a formatter of domain/format']);
  });
});
