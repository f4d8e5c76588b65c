import { describe, expect, it } from 'vitest';
import {
  camundaDate,
  typedValue,
  dueBefore,
  dueMeasurementTimes,
  dueTaskPath,
  formVariables,
  initialFormValues,
  isOverdue,
  readTaskFilter,
  startOfDayAfter,
  TASK_PAGE_SIZE,
  taskQueryVariables,
  writeTaskFilter,
  type TaskFormField,
} from './workflow-tasks';

describe('the task list filter in the address', () => {
  it('reads defaults from an empty address and writes them back as nothing', () => {
    const filter = readTaskFilter(new URLSearchParams(''));
    expect(filter).toEqual({ due: 'any', overdue: false, group: '', caseSearch: '', sort: 'due', offset: 0 });
    expect(writeTaskFilter(filter).toString()).toBe('');
  });
  it('round-trips every setting', () => {
    const params = new URLSearchParams('due=week&overdue=1&group=therapists&case=3f2a1&sort=priority&offset=50');
    const filter = readTaskFilter(params);
    expect(filter).toEqual({ due: 'week', overdue: true, group: 'therapists', caseSearch: '3f2a1', sort: 'priority', offset: 50 });
    expect(readTaskFilter(writeTaskFilter(filter))).toEqual(filter);
  });
  it('ignores unknown values instead of failing', () => {
    const filter = readTaskFilter(new URLSearchParams('due=month&group=admins&sort=name&offset=-5&overdue=yes'));
    expect(filter).toEqual({ due: 'any', overdue: false, group: '', caseSearch: '', sort: 'due', offset: 0 });
  });
  it('trims the case search and leaves a blank one out', () => {
    expect(writeTaskFilter({ ...readTaskFilter(new URLSearchParams()), caseSearch: '   ' }).toString()).toBe('');
    expect(writeTaskFilter({ ...readTaskFilter(new URLSearchParams()), caseSearch: ' ab12 ' }).get('case')).toBe('ab12');
  });
});

describe('due windows in the person’s zone', () => {
  it('today ends at the next local midnight', () => {
    // 23:30 in Baghdad (UTC+3) is 20:30 UTC; tomorrow begins at 21:00 UTC.
    const now = new Date('2027-03-01T20:30:00Z');
    expect(startOfDayAfter(now, 'Asia/Baghdad', 1).toISOString()).toBe('2027-03-01T21:00:00.000Z');
    expect(dueBefore('today', now, 'Asia/Baghdad')?.toISOString()).toBe('2027-03-01T21:00:00.000Z');
    // The same instant is still 1 March in UTC, whose day ends later.
    expect(dueBefore('today', now, 'UTC')?.toISOString()).toBe('2027-03-02T00:00:00.000Z');
  });
  it('the week is today and the next seven days, across a change to summer time', () => {
    const now = new Date('2027-03-25T10:00:00Z'); // Thursday; Berlin changes to summer time on 28 March
    expect(dueBefore('week', now, 'Europe/Berlin')?.toISOString()).toBe('2027-04-01T22:00:00.000Z');
  });
  it('any has no end', () => {
    expect(dueBefore('any', new Date(), 'UTC')).toBeNull();
  });
  it('becomes the query arguments', () => {
    const now = new Date('2027-03-01T08:00:00Z');
    const filter = readTaskFilter(new URLSearchParams('due=today&group=patients&case=%20ab%20&sort=created&offset=50'));
    expect(taskQueryVariables(filter, now, 'UTC')).toEqual({
      dueBefore: '2027-03-02T00:00:00.000Z',
      overdue: false,
      groupName: 'patients',
      caseSearch: 'ab',
      sort: 'CREATED',
      first: TASK_PAGE_SIZE,
      offset: 50,
    });
    expect(taskQueryVariables(readTaskFilter(new URLSearchParams()), now, 'UTC')).toMatchObject({ dueBefore: null, groupName: null, caseSearch: null, sort: 'DUE' });
  });
  it('overdue means due before now', () => {
    const now = new Date('2027-03-01T08:00:00Z');
    expect(isOverdue('2027-03-01T07:59:59Z', now)).toBe(true);
    expect(isOverdue('2027-03-01T08:00:00Z', now)).toBe(false);
    expect(isOverdue(null, now)).toBe(false);
  });
});

describe('where a due task is done', () => {
  it('a patient task leads to its feature, never to a hand completion', () => {
    expect(dueTaskPath({ id: 't1', taskDefinitionKey: 'screeningTask', candidateGroups: ['patients'] }, false)).toBe('/messungen/screening');
    expect(dueTaskPath({ id: 't1', taskDefinitionKey: 'bookTask', candidateGroups: ['patients'] }, true)).toBe('/interviews/booking');
    expect(dueTaskPath({ id: 't1', taskDefinitionKey: 'somethingNew', candidateGroups: ['patients'] }, true)).toBeNull();
  });
  it('a staff task leads staff to the task screen', () => {
    expect(dueTaskPath({ id: 't2', taskDefinitionKey: 'interviewTask', candidateGroups: ['interviewers'] }, true)).toBe('/admin/tasks/t2');
    expect(dueTaskPath({ id: 't2', taskDefinitionKey: 'interviewTask', candidateGroups: ['interviewers'] }, false)).toBeNull();
  });
});

describe('task forms become Camunda-typed variables', () => {
  const fields: TaskFormField[] = [
    { id: 'outcome', label: 'Outcome', type: 'enum', values: [{ id: 'ptsd', name: 'PTSD' }, { id: 'later' }] },
    { id: 'note', type: 'string' },
    { id: 'sessions', type: 'long', defaultValue: '6' },
    { id: 'urgent', type: 'boolean' },
    { id: 'consented', type: 'boolean', defaultValue: 'true' },
    { id: 'startOn', type: 'date' },
  ];
  it('starts from the default values', () => {
    expect(initialFormValues(fields)).toEqual({ outcome: '', note: '', sessions: '6', urgent: false, consented: true, startOn: '' });
  });
  it('types each field', () => {
    const result = formVariables(fields, { outcome: 'ptsd', note: ' well ', sessions: '12', urgent: true, consented: false, startOn: '2027-04-01' }, 'Asia/Baghdad');
    expect(result).toEqual({
      ok: true,
      variables: {
        outcome: { value: 'ptsd', type: 'String' },
        note: { value: 'well', type: 'String' },
        sessions: { value: 12, type: 'Long' },
        urgent: { value: true, type: 'Boolean' },
        consented: { value: false, type: 'Boolean' },
        startOn: { value: '2027-03-31T21:00:00.000+0000', type: 'Date' },
      },
    });
  });
  it('names what is wrong per field and sends nothing', () => {
    const result = formVariables(fields, { outcome: 'maybe', note: '  ', sessions: '1.5', urgent: false, consented: true, startOn: '31.03.2027' }, 'UTC');
    expect(result).toEqual({ ok: false, errors: { outcome: 'notAChoice', note: 'required', sessions: 'wholeNumber', startOn: 'date' } });
  });
  it('refuses a field type it cannot render', () => {
    expect(formVariables([{ id: 'x', type: 'custom' }], { x: 'a' }, 'UTC')).toEqual({ ok: false, errors: { x: 'unsupported' } });
  });
  it('writes dates the way Camunda does', () => {
    expect(camundaDate(new Date('2027-01-31T10:00:00Z'))).toBe('2027-01-31T10:00:00.000+0000');
  });
  it('an empty form is no variables', () => {
    expect(formVariables([], {}, 'UTC')).toEqual({ ok: true, variables: {} });
  });
});

describe('dueMeasurementTimes', () => {
  it('names the times whose questionnaire task is open, with the earliest due date', () => {
    const due = dueMeasurementTimes([
      { taskDefinitionKey: 'bookTask', due: '2027-01-01T00:00:00Z' },
      { taskDefinitionKey: 'postTask', due: '2027-03-02T10:00:00+01:00' },
      { taskDefinitionKey: 'postTask', due: '2027-03-02T09:30:00Z' },
      { taskDefinitionKey: 'fu1Task', due: null },
    ]);
    expect([...due.keys()]).toEqual(['post', 'fu1']);
    expect(due.get('post')).toBe('2027-03-02T10:00:00+01:00');
    expect(due.get('fu1')).toBeNull();
  });

  it('is empty when no questionnaire is due', () => {
    expect(dueMeasurementTimes([{ taskDefinitionKey: 'patientTreatmentTask', due: null }]).size).toBe(0);
  });
});

describe('typedValue (spec §9: Long if integer, else Double)', () => {
  it('types integers as Long and other numbers as Double', () => {
    expect(typedValue(3)).toEqual({ value: 3, type: 'Long' });
    expect(typedValue(-12)).toEqual({ value: -12, type: 'Long' });
    expect(typedValue(3.5)).toEqual({ value: 3.5, type: 'Double' });
    expect(typedValue(0.1 + 0.2)).toEqual({ value: 0.1 + 0.2, type: 'Double' });
  });
  it('keeps strings, booleans and null', () => {
    expect(typedValue('7')).toEqual({ value: '7', type: 'String' });
    expect(typedValue(false)).toEqual({ value: false, type: 'Boolean' });
    expect(typedValue(null)).toEqual({ value: null, type: 'Null' });
  });
});
