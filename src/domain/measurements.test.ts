import { describe, expect, it } from 'vitest';
import { BDI2, DEMOGRAPHICS, INSTRUMENT_CODES, PHQ9 } from './instruments';
import { filled } from './instruments/testing';
import { DEFAULT_SCHEDULE, MEASUREMENT_TIMES, itemAnswers, parseBattery, recordStatus, scheduleFromSettings, scheduledInstruments, scheduleSettingName } from './measurements';

describe('measurement schedule', () => {
  it('screens with every input of the exclusion rules, then the trial’s symptom measures', () => {
    expect(DEFAULT_SCHEDULE.screening.slice(0, 4)).toEqual(['demographics', 'lec5', 'traumalisteneu', 'bdi2']);
    expect(DEFAULT_SCHEDULE.screening).toEqual(expect.arrayContaining(['pcl5', 'phq9', 'gad7']));
  });

  it('lists only known questionnaires, each once per time', () => {
    for (const time of MEASUREMENT_TIMES) {
      const battery = DEFAULT_SCHEDULE[time];
      expect(battery.length, time).toBeGreaterThan(0);
      expect(new Set(battery).size, time).toBe(battery.length);
      for (const code of battery) expect(INSTRUMENT_CODES).toContain(code);
    }
  });

  it('keeps the defaults without settings', () => {
    expect(scheduleFromSettings({})).toEqual(DEFAULT_SCHEDULE);
  });

  it('takes a trial’s battery per time, in its order, and an empty one', () => {
    const schedule = scheduleFromSettings({ MEASUREMENTS_PRE: ' gad7, phq9 ', MEASUREMENTS_FU2: '' });
    expect(schedule.pre).toEqual(['gad7', 'phq9']);
    expect(schedule.fu2).toEqual([]);
    expect(schedule.screening).toEqual(DEFAULT_SCHEDULE.screening);
  });

  it('refuses unknown names and duplicates with the setting’s name', () => {
    expect(() => scheduleFromSettings({ MEASUREMENTS_POST: 'phq9,phq8' })).toThrow('Setting MEASUREMENTS_POST lists unknown questionnaires: phq8');
    expect(() => parseBattery('MEASUREMENTS_FU1', 'gad7,phq9,gad7')).toThrow('lists a questionnaire twice: gad7');
  });

  it('names the setting after the time', () => {
    expect(scheduleSettingName('fu1')).toBe('MEASUREMENTS_FU1');
  });

  it('lists each scheduled questionnaire once', () => {
    const all = scheduledInstruments({ screening: ['phq9', 'bdi2'], pre: ['phq9', 'gad7'], post: [], fu1: ['gad7'], fu2: [] });
    expect(all).toEqual(['phq9', 'bdi2', 'gad7']);
  });
});

describe('record status', () => {
  it('is not started without a record or without any answer', () => {
    expect(recordStatus(PHQ9, undefined)).toBe('not_started');
    expect(recordStatus(PHQ9, { id: 'x', case_id: 'c', item1: null })).toBe('not_started');
  });

  it('is in progress while a required item is missing', () => {
    expect(recordStatus(PHQ9, { ...filled(8, 1), case_id: 'c' })).toBe('in_progress');
  });

  it('is complete when every asked required item is answered, record columns aside', () => {
    expect(recordStatus(PHQ9, { ...filled(9, 0), id: 'x', case_id: 'c', time_of_measurement: 'pre', total: null, flags: null })).toBe('complete');
    expect(recordStatus(BDI2, { ...filled(21, 0), item16: '0', item18: '0' })).toBe('complete');
  });

  it('does not ask hidden items', () => {
    const baseline = { internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'SY', country_of_residence: 'DE', fled: false, loss: false };
    expect(recordStatus(DEMOGRAPHICS, baseline)).toBe('complete');
  });

  it('keeps only item answers of a record', () => {
    expect(itemAnswers(PHQ9, { id: 'x', item1: 2, total: 9 })).toEqual({ item1: 2 });
  });
});
