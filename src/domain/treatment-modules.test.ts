import { describe, expect, it } from 'vitest';
import { moduleDue, modulesOfArm, parseTreatmentModules } from './treatment-modules';

describe('treatment modules configuration', () => {
  it('reads modules per arm', () => {
    const modules = parseTreatmentModules({ cbt: [{ worksheet: 'cbt_thoughts', week: 1 }], none: [] }, 'X');
    expect(modulesOfArm(modules, 'cbt')).toEqual([{ worksheet: 'cbt_thoughts', week: 1 }]);
    expect(modulesOfArm(modules, 'none')).toEqual([]);
    expect(modulesOfArm(modules, 'unknown')).toEqual([]);
    expect(modulesOfArm(modules, 'constructor')).toEqual([]);
  });

  it('refuses bad entries with a message naming them', () => {
    expect(() => parseTreatmentModules([], 'X')).toThrow(/X must be a JSON object/);
    expect(() => parseTreatmentModules({ a: {} }, 'X')).toThrow(/arm "a" must have a list/);
    expect(() => parseTreatmentModules({ a: ['cbt_thoughts'] }, 'X')).toThrow(/module 1 must be an object/);
    expect(() => parseTreatmentModules({ a: [{ worksheet: 'diary', week: 1 }] }, 'X')).toThrow(/unknown worksheet "diary"/);
    expect(() => parseTreatmentModules({ a: [{ worksheet: 'cbt_thoughts', week: 1.5 }] }, 'X')).toThrow(/"week"/);
    expect(() =>
      parseTreatmentModules({ a: [{ worksheet: 'cbt_thoughts', week: 1 }, { worksheet: 'cbt_thoughts', week: 2 }] }, 'X'),
    ).toThrow(/module 2: the worksheet "cbt_thoughts" is assigned twice/);
  });

  it('makes a module due at the end of its week', () => {
    expect(moduleDue(new Date('2026-01-01T10:00:00Z'), 2).toISOString()).toBe('2026-01-15T10:00:00.000Z');
  });
});
