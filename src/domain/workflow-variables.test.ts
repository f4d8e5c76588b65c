import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationParts, formatDuration, HIDDEN_VARIABLES, SHOWN_VARIABLES, shownVariables } from './workflow-variables';
import en from '../web/i18n/en.json';
import de from '../web/i18n/de.json';
import ar from '../web/i18n/ar.json';

const WORKFLOWS = path.resolve(__dirname, '../../workflows');

/** Every variable a BPMN model names: expressions ${x}, input parameters and form fields. */
function bpmnVariables(): Set<string> {
  const names = new Set<string>();
  for (const file of fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith('.bpmn'))) {
    const xml = fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');
    for (const m of xml.matchAll(/\$\{([A-Za-z]+)\}/g)) names.add(m[1]!);
    for (const m of xml.matchAll(/camunda:formField id="([A-Za-z]+)"/g)) names.add(m[1]!);
    for (const m of xml.matchAll(/<camunda:outputParameter name="([A-Za-z]+)"/g)) names.add(m[1]!);
  }
  return names;
}

describe('workflow variables on task pages', () => {
  it('every variable of every BPMN model is either shown under a label in ar, de and en, or hidden', () => {
    const names = bpmnVariables();
    expect(names.size).toBeGreaterThan(5);
    const unlisted = [...names].filter((n) => !(n in SHOWN_VARIABLES) && !HIDDEN_VARIABLES.includes(n));
    expect(unlisted).toEqual([]);
    for (const catalog of [en, de, ar]) {
      const labels = (catalog as { careTeam: { variables: Record<string, string> } }).careTeam.variables;
      expect(Object.keys(SHOWN_VARIABLES).filter((n) => !labels[n])).toEqual([]);
    }
  });

  it('every user task of every BPMN model has a translated name in ar, de and en', () => {
    const keys = new Set<string>();
    for (const file of fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith('.bpmn'))) {
      for (const m of fs.readFileSync(path.join(WORKFLOWS, file), 'utf8').matchAll(/<userTask id="([A-Za-z0-9_]+)"/g)) keys.add(m[1]!);
    }
    expect(keys.size).toBeGreaterThan(10);
    for (const [lang, catalog] of Object.entries({ en, de, ar }) as [string, any][]) {
      const named = (key: string) => catalog.tasks?.names?.[key] ?? catalog.safety?.taskNames?.[key] ?? catalog.careTeam?.taskNames?.[key] ?? catalog.counseling?.taskNames?.[key] ?? catalog.engagement?.taskNames?.[key];
      expect([...keys].filter((key) => !named(key)).map((key) => `${lang}: ${key}`)).toEqual([]);
    }
  });

  it('every BPMN model has a translated name in ar, de and en (never its id on a screen)', () => {
    const ids = fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith('.bpmn')).flatMap((file) =>
      [...fs.readFileSync(path.join(WORKFLOWS, file), 'utf8').matchAll(/<(?:bpmn:)?process id="([A-Za-z0-9_-]+)"/g)].map((m) => m[1]!),
    );
    expect(ids.length).toBeGreaterThanOrEqual(5);
    for (const [lang, catalog] of Object.entries({ en, de, ar }) as [string, any][]) {
      expect(ids.filter((id) => !catalog.careteam?.processes?.[id]).map((id) => `${lang}: ${id}`)).toEqual([]);
    }
  });

  it('reads ISO durations as words, never as P14D', () => {
    expect(durationParts('P14D')).toEqual([{ unit: 'day', amount: 14 }]);
    expect(durationParts('P1Y2M')).toEqual([{ unit: 'year', amount: 1 }, { unit: 'month', amount: 2 }]);
    expect(durationParts('PT12H')).toEqual([{ unit: 'hour', amount: 12 }]);
    expect(durationParts('2026-11-01')).toBeNull();
    expect(formatDuration('P14D', 'en')).toBe('14 days');
    expect(formatDuration('P3M', 'de')).toBe('3 Monate');
    expect(formatDuration('P3M', 'ar')).not.toContain('P3M');
  });

  it('hides ids and unknown variables', () => {
    const shown = shownVariables({
      bookingId: { value: '3f2c1a9e-0b1d-4c5e-9f00-1234567890ab' },
      somethingNew: { value: 'x' },
      treatmentDuration: { value: 'P3M' },
      excluded: { value: false },
    });
    expect(shown.map((v) => v.name)).toEqual(['treatmentDuration', 'excluded']);
  });
});
