/**
 * Keys the code builds from data (`caseStages.${stage}`, `roles.${role}`, …), which the
 * "every key the code names exists" check cannot see: each family is complete in English, and
 * catalogs.test.ts then holds Arabic and German to the English keys.
 */
import { describe, expect, it } from 'vitest';
import { GENDERS } from '../../domain/accounts';
import { CASE_STAGES } from '../../domain/case-stages';
import { RECIPIENT_GROUPS } from '../../domain/messages';
import { CASE_ROLES } from '../../domain/roles';
import { TASK_DUE_WINDOWS, TASK_GROUPS, TASK_SORTS } from '../../domain/workflow-tasks';
import { ERROR_KEYS } from '../api/error-key';
import { PATIENT_FLAGS } from '../features/cases/api';
import en from './en.json';
import { ACCEPTANCE_RULE_CODES, HARD_RULES, REPORT_SECTIONS, TRIAL_OUTCOMES } from '../../domain/interview-report';

function has(key: string): boolean {
  let node: unknown = en;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string';
}

describe('keys built from data', () => {
  const families: [string, readonly string[]][] = [
    ['caseStages', CASE_STAGES],
    ['roles', CASE_ROLES],
    ['messages.groups', RECIPIENT_GROUPS.map((g) => g.group)],
    ['patientFlags', PATIENT_FLAGS],
    ['errorCodes', ERROR_KEYS],
    ['caseLog.tables', ['cases', 'case_members', 'case_messages', 'users']],
    ['caseLog.operations', ['INSERT', 'UPDATE', 'DELETE']],
    ['interviews.gender', GENDERS],
    ['tasks.groups', TASK_GROUPS],
    ['tasks.dueWindows', TASK_DUE_WINDOWS],
    ['tasks.sorts', TASK_SORTS],
    ['tasks.fieldErrors', ['required', 'wholeNumber', 'notAChoice', 'date', 'unsupported']],
    ['tasks.states', ['ACTIVE', 'COMPLETED', 'EXTERNALLY_TERMINATED']],
    ['report.sections', REPORT_SECTIONS],
    ['report.outcome', TRIAL_OUTCOMES],
    ['report.rules', HARD_RULES],
    ['trialRules.rules', ACCEPTANCE_RULE_CODES],
    ['trialRules.screening', ['both', 'either']],
    ['report.saveState', ['saved', 'saving', 'waiting', 'rejected']],
    ['report.summary.zone', ['zone_1', 'zone_2', 'zone_3', 'zone_4']],
    ['report.list', ['due', 'drafts', 'finalized', 'followUps', 'upcoming']],
  ];
  it.each(families)('%s is complete', (prefix, names) => {
    expect(names.filter((name) => !has(`${prefix}.${name}`))).toEqual([]);
  });
});
