/**
 * The rule of "My path" for patients, checked against every model in workflows/ (issue 25): a
 * patient task nobody listed would show its English BPMN name; a listed id that no model has any
 * more would hide a real step; the safety process must never be shown to the patient.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import ar from '../web/i18n/ar.json';
import de from '../web/i18n/de.json';
import en from '../web/i18n/en.json';
import { HIDDEN_FROM_PATIENTS, isPatientFacing, isPatientFacingTask, PATIENT_FACING, patientFacingIds } from './patient-facing';

const DIR = path.resolve(__dirname, '../../workflows');
const MODELS = fs.readdirSync(DIR).filter((f) => f.endsWith('.bpmn'));

interface Element {
  process: string;
  id: string;
  tag: string;
  name: string;
  attrs: string;
}

/** The elements of a model with the process each belongs to (the models hold one process each, or several in a row). */
function elements(xml: string): Element[] {
  const found: Element[] = [];
  const processes = [...xml.matchAll(/<(?:bpmn:)?process\b[^>]*\bid="([^"]+)"[^>]*>([\s\S]*?)<\/(?:bpmn:)?process>/g)];
  for (const [, process, body] of processes) {
    for (const m of body!.matchAll(/<(?:bpmn:)?(userTask|intermediateCatchEvent|boundaryEvent|serviceTask|startEvent|endEvent|subProcess)\b([^>]*)>/g)) {
      const attrs = m[2]!;
      const id = /\bid="([^"]+)"/.exec(attrs)?.[1];
      if (id) found.push({ process: process!, id, tag: m[1]!, name: /\bname="([^"]*)"/.exec(attrs)?.[1] ?? '', attrs });
    }
  }
  return found;
}

const ALL = MODELS.flatMap((file) => elements(fs.readFileSync(path.join(DIR, file), 'utf8')).map((e) => ({ ...e, file })));
const CATALOGS = { ar, de, en } as Record<string, { patientPath: { steps: Record<string, string> } }>;

describe('the patient-facing steps of every workflow model', () => {
  it('reads all models', () => {
    expect(MODELS).toEqual(expect.arrayContaining(['trial.bpmn', 'safety.bpmn', 'treatment-modules.bpmn']));
    expect(ALL.length).toBeGreaterThan(20);
  });

  it('lists every task of the group "patients" (else its English name would show)', () => {
    const patientTasks = ALL.filter((e) => e.tag === 'userTask' && /candidateGroups="[^"]*\bpatients\b/.test(e.attrs));
    expect(patientTasks.length).toBeGreaterThan(0);
    for (const task of patientTasks) expect(isPatientFacing(task.process, task.id, 'task'), `${task.file}: ${task.id}`).toBe(true);
  });

  it('lists only elements that exist, as what they are: patient tasks and waits for a date', () => {
    for (const [process, listed] of Object.entries(PATIENT_FACING)) {
      for (const [id, kind] of Object.entries(listed)) {
        const element = ALL.find((e) => e.process === process && e.id === id);
        expect(element, `${process}.${id}`).toBeDefined();
        if (kind === 'task') expect(element!.attrs, `${process}.${id}`).toMatch(/candidateGroups="[^"]*\bpatients\b/);
        else expect(element!.tag, `${process}.${id}`).toBe('intermediateCatchEvent');
      }
    }
  });

  it('shows nothing of the safety process, no reminder, message or staff task', () => {
    for (const process of HIDDEN_FROM_PATIENTS) expect(PATIENT_FACING[process]).toBeUndefined();
    const shown = ALL.filter((e) => isPatientFacing(e.process, e.id, 'task') || isPatientFacing(e.process, e.id, 'date'));
    for (const e of shown) {
      expect(e.process, e.id).not.toBe('safety');
      expect(e.tag, e.id).not.toBe('boundaryEvent');
      expect(e.attrs, e.id).not.toMatch(/candidateGroups="(?![^"]*\bpatients\b)/);
    }
    for (const e of ALL.filter((x) => x.process === 'safety')) {
      expect(isPatientFacing(e.process, e.id, 'task') || isPatientFacing(e.process, e.id, 'date'), e.id).toBe(false);
    }
  });

  it('keeps safety tasks hidden even when their process is not known to the reader', () => {
    for (const e of ALL.filter((x) => x.process === 'safety' && x.tag === 'userTask')) expect(isPatientFacingTask(null, e.id), e.id).toBe(false);
    expect(isPatientFacingTask(null, 'worksheetTask')).toBe(true);
    expect(isPatientFacingTask('safety', 'worksheetTask')).toBe(false);
  });

  it.each(['ar', 'de', 'en'])('has a patient text for every listed step in %s, never the BPMN name or id', (locale) => {
    const steps = CATALOGS[locale]!.patientPath.steps;
    for (const id of patientFacingIds()) {
      const text = steps[id];
      expect(text, `${locale}: ${id}`).toBeTruthy();
      expect(text, `${locale}: ${id}`).not.toBe(id);
      const bpmnName = ALL.find((e) => e.id === id)?.name;
      if (locale !== 'en') expect(text, `${locale}: ${id}`).not.toBe(bpmnName);
    }
  });
});
