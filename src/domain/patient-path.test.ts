import { describe, expect, it } from 'vitest';
import { careTeam, displayName, nextTask, ownName, patientPhase, phaseDestinations, type PathFacts, type PatientPhase } from './patient-path';
import { destinations } from './navigation';
import type { AccountFlags } from './roles';

const now = new Date('2027-03-10T12:00:00Z');
const base: PathFacts = { stage: 'registration', excluded: false, dropout: false, openTasks: [], bookingStartsAt: null, now };

describe('patientPhase', () => {
  const cases: [string, Partial<PathFacts>, PatientPhase][] = [
    ['a new case before the trial starts', {}, 'registration'],
    ['an unknown stage reads as the start', { stage: 'something-new' }, 'registration'],
    ['screening', { stage: 'screening', openTasks: [{ key: 'screeningTask', due: null }] }, 'screening'],
    ['screened in, booking open', { stage: 'interview', openTasks: [{ key: 'bookTask', due: null }] }, 'booking'],
    ['booked, interview ahead', { stage: 'interview', bookingStartsAt: '2027-03-11T09:00:00Z' }, 'awaitingInterview'],
    ['interview held, decision and allocation pending', { stage: 'interview', bookingStartsAt: '2027-03-09T09:00:00Z' }, 'awaitingAllocation'],
    ['interview stage without booking or task', { stage: 'interview' }, 'booking'],
    ['a booking task wins over an old booking', { stage: 'interview', bookingStartsAt: '2027-03-09T09:00:00Z', openTasks: [{ key: 'bookTask', due: null }] }, 'booking'],
    ['in treatment', { stage: 'treatment' }, 'treatment'],
    ['post measurement', { stage: 'post' }, 'followUp'],
    ['first follow-up', { stage: 'fu1' }, 'followUp'],
    ['second follow-up', { stage: 'fu2' }, 'followUp'],
    ['finished', { stage: 'finished' }, 'finished'],
    ['counseling', { stage: 'counseling' }, 'counseling'],
    ['rejected at the interview', { stage: 'rejected' }, 'rejected'],
    ['excluded stage', { stage: 'excluded' }, 'excluded'],
    ['excluded flag wins over the stage', { stage: 'treatment', excluded: true }, 'excluded'],
    ['a dropout in treatment', { stage: 'treatment', dropout: true }, 'droppedOut'],
    ['a dropout marked finished', { stage: 'finished', dropout: true }, 'droppedOut'],
  ];
  it.each(cases)('%s', (_name, facts, phase) => {
    expect(patientPhase({ ...base, ...facts })).toBe(phase);
  });
});

describe('nextTask', () => {
  it('puts the phase-opening questionnaires before worksheets and the sessions', () => {
    const tasks = [
      { key: 'patientTreatmentTask', due: '2027-01-01T00:00:00Z' },
      { key: 'worksheetTask', due: '2027-04-01T00:00:00Z' },
      { key: 'preTask', due: '2027-05-01T00:00:00Z' },
    ];
    expect(nextTask(tasks)?.key).toBe('preTask');
  });
  it('takes the earliest due worksheet first, undated last', () => {
    const tasks = [
      { key: 'worksheetTask', due: null, id: 'c' },
      { key: 'worksheetTask', due: '2027-04-02T00:00:00Z', id: 'b' },
      { key: 'worksheetTask', due: '2027-04-01T00:00:00Z', id: 'a' },
    ];
    expect(nextTask(tasks)?.id).toBe('a');
  });
  it('is null without tasks', () => expect(nextTask([])).toBeNull());
});

describe('menu by stage', () => {
  const patient: AccountFlags = {
    isCoordinatorAccount: false,
    isInterviewerAccount: false,
    isTherapistAccount: false,
    isSupervisorAccount: false,
    isSupporterAccount: false,
    isPatientAccount: true,
  };
  const table: [string, boolean][] = [
    ['registration', false],
    ['screening', false],
    ['interview', false],
    ['treatment', true],
    ['post', true],
    ['fu1', true],
    ['fu2', true],
    ['excluded', false],
    ['rejected', false],
  ];
  it('stage counseling: the counselor\'s letters in the menu, no worksheets (issue 27)', () => {
    expect(phaseDestinations('counseling')).toEqual(['pastLetters']);
    const menu = destinations(patient, false, () => true, 'counseling');
    expect(menu.includes('pastLetters')).toBe(true);
    expect(menu.includes('allExercises')).toBe(false);
  });
  it.each(table)('stage %s: worksheets and letters in the menu = %s', (stage, shown) => {
    expect(phaseDestinations(stage).length > 0).toBe(shown);
    const menu = destinations(patient, false, () => true, stage);
    expect(menu.includes('allExercises')).toBe(shown);
    expect(menu.includes('pastLetters')).toBe(shown);
  });
  it.each([
    ['registration', true],
    ['screening', false],
    ['interview', true],
    ['treatment', false],
    ['excluded', false],
    ['finished', false],
  ] as [string, boolean][])('stage %s: booking in the menu = %s', (stage, shown) => {
    expect(destinations(patient, false, () => true, stage).includes('interviewBooking')).toBe(shown);
  });
  it('keeps the menu of staff as it was', () => {
    const staff = { ...patient, isPatientAccount: false, isTherapistAccount: true };
    expect(destinations(staff, false, () => true, 'treatment')).not.toContain('allExercises');
  });
});

describe('names', () => {
  it('shows the chosen name, never a username, for people of the care team', () => {
    expect(displayName({ alias: 'Dr. Layla', username: 'demo-therapist' }, 'your therapist')).toBe('Dr. Layla');
    expect(displayName({ alias: '  ', username: 'demo-interviewer' }, 'your interviewer')).toBe('your interviewer');
    expect(displayName({ alias: null, username: 'demo-interviewer' }, 'your interviewer')).toBe('your interviewer');
    expect(displayName(null, 'your therapist')).toBe('your therapist');
  });
  it('greets a person by their chosen name, else their own username', () => {
    expect(ownName({ alias: 'Sami', username: 'sami-1990' })).toBe('Sami');
    expect(ownName({ alias: null, username: 'sami-1990' })).toBe('sami-1990');
  });
  it('lists the interviewer before treatment and the therapist in treatment', () => {
    const members = [
      { person: { alias: 'Nour' }, actsAsTherapist: true, actsAsInterviewer: false, actsAsSupervisor: false, actsAsSupporter: false, actsAsCounselor: false },
      { person: { alias: 'Omar' }, actsAsTherapist: false, actsAsInterviewer: true, actsAsSupervisor: false, actsAsSupporter: false, actsAsCounselor: false },
      { person: { alias: 'Sup' }, actsAsTherapist: false, actsAsInterviewer: false, actsAsSupervisor: true, actsAsSupporter: false, actsAsCounselor: false },
    ];
    expect(careTeam(members, 'awaitingInterview').map((m) => m.role)).toEqual(['interviewer', 'therapist']);
    expect(careTeam(members, 'treatment')).toEqual([{ role: 'therapist', person: { alias: 'Nour' } }]);
    expect(careTeam(members, 'screening')).toEqual([]);
  });
});
