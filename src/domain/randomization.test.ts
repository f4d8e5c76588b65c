import { describe, expect, it } from 'vitest';
import { allStrata, blockSequence, checkAllocation, generateTickets, parseAllocationTable, seededRandom, stratumKey } from './randomization';

const ARMS = [{ code: 'cbt', ratio: 2 }, { code: 'ipt', ratio: 1 }];

describe('allocation configuration', () => {
  it('accepts blocks, minimization and tables with their defaults', () => {
    const blocks = checkAllocation({ method: 'blocks', arms: ARMS, factors: ['gender'] });
    expect(blocks).toEqual({ ok: true, value: { method: 'blocks', arms: ARMS, factors: ['gender'], settings: { blockMultiples: [1, 2], ticketsPerStratum: 500 } } });
    const min = checkAllocation({ method: 'minimization', arms: ARMS, factors: ['gender', 'problem'], probability: 0.9 });
    expect(min.ok && min.value.settings).toEqual({ probability: 0.9, ticketsPerStratum: 500 });
    expect(checkAllocation({ method: 'table', arms: ARMS, table: 'arm\ncbt' }).ok).toBe(true);
  });

  it('names every problem by field', () => {
    const result = checkAllocation({ method: 'coin', arms: [{ code: 'A', ratio: 0 }, { code: 'A', ratio: 1.5 }], factors: ['age'] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors).sort()).toEqual(['arms.0.code', 'arms.0.ratio', 'arms.1.code', 'arms.1.ratio', 'factors', 'method']);
    const dup = checkAllocation({ method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'a', ratio: 1 }] });
    expect(!dup.ok && dup.errors['arms.1.code']).toMatch(/twice/);
    expect(checkAllocation({ method: 'minimization', arms: ARMS }).ok).toBe(false);
    expect(checkAllocation({ method: 'minimization', arms: ARMS, factors: ['gender'], probability: 0.2 }).ok).toBe(false);
    expect(checkAllocation({ method: 'blocks', arms: ARMS, blockMultiples: [0] }).ok).toBe(false);
    expect(checkAllocation({ method: 'blocks', arms: ARMS, ticketsPerStratum: 10_000 }).ok).toBe(false);
    expect(checkAllocation(null).ok).toBe(false);
  });
});

describe('strata', () => {
  it('keys and combinations', () => {
    expect(stratumKey({ gender: 'MALE', problem: 'ptsd' }, ['problem', 'gender'])).toBe('problem=ptsd;gender=MALE');
    expect(stratumKey({}, [])).toBe('*');
    expect(allStrata(['gender', 'problem'])).toHaveLength(8);
    expect(allStrata([])).toEqual(['*']);
  });
});

describe('seeded sequences', () => {
  it('the same seed gives the same sequence; another seed another', () => {
    const a = Array.from({ length: 5 }, seededRandom('s1'));
    expect(Array.from({ length: 5 }, seededRandom('s1'))).toEqual(a);
    expect(Array.from({ length: 5 }, seededRandom('s2'))).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('permuted blocks of varying size keep the ratio in every block', () => {
    const random = seededRandom('blocks');
    const sequence = blockSequence(ARMS, [1, 2, 3], 3000, random);
    // Walk the blocks: at every completed block the 2:1 ratio holds exactly, and the imbalance
    // never exceeds the largest block.
    let cbt = 0;
    let ipt = 0;
    let balancedPoints = 0;
    for (const arm of sequence) {
      if (arm === 'cbt') cbt++;
      else ipt++;
      if (cbt === 2 * ipt) balancedPoints++;
      expect(Math.abs(cbt - 2 * ipt)).toBeLessThanOrEqual(2 * 3 * 2);
    }
    expect(balancedPoints).toBeGreaterThan(3000 / 9 / 2);
    expect(cbt).toBe(2000);
  });

  it('blocks vary in size (not predictable from a fixed block length)', () => {
    // The points where both arms are level again lie at varying distances.
    const seq = blockSequence([{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], [1, 2, 3], 600, seededRandom('sizes2'));
    let d = 0;
    let last = 0;
    const gaps = new Set<number>();
    seq.forEach((arm, i) => {
      d += arm === 'a' ? 1 : -1;
      if (d === 0) {
        gaps.add(i + 1 - last);
        last = i + 1;
      }
    });
    expect(gaps.size).toBeGreaterThan(1);
  });

  it('generates reproducible tickets per stratum from the seed', () => {
    const checked = checkAllocation({ method: 'blocks', arms: ARMS, factors: ['problem'], ticketsPerStratum: 30 });
    if (!checked.ok) throw new Error('invalid');
    const one = generateTickets(checked.value, 'seed');
    expect(one).toHaveLength(60);
    expect(generateTickets(checked.value, 'seed')).toEqual(one);
    expect(generateTickets(checked.value, 'other')).not.toEqual(one);
    expect(new Set(one.map((t) => t.stratum))).toEqual(new Set(['problem=ptsd', 'problem=depression']));
    const min = checkAllocation({ method: 'minimization', arms: ARMS, factors: ['gender'], ticketsPerStratum: 10 });
    if (!min.ok) throw new Error('invalid');
    const tickets = generateTickets(min.value, 'seed');
    expect(tickets.every((t) => t.stratum === '*' && t.arm === null && t.random1 !== null)).toBe(true);
  });
});

describe('allocation tables', () => {
  it('reads REDCap-like tables in drawing order per stratum', () => {
    const parsed = parseAllocationTable('\uFEFFredcap_randomization_group,gender\r\ncbt,FEMALE\r\nipt,FEMALE\r\n"cbt",MALE\r\n', ARMS, ['gender']);
    expect(parsed).toEqual({
      ok: true,
      tickets: [
        { stratum: 'gender=FEMALE', position: 1, arm: 'cbt', random1: null, random2: null },
        { stratum: 'gender=FEMALE', position: 2, arm: 'ipt', random1: null, random2: null },
        { stratum: 'gender=MALE', position: 1, arm: 'cbt', random1: null, random2: null },
      ],
    });
  });

  it('refuses unknown arms, unknown levels, missing columns and empty tables', () => {
    expect(parseAllocationTable('arm\ncbt\nplacebo', ARMS, [])).toEqual({ ok: false, errors: { table: expect.stringMatching(/Line 3: "placebo"/) } });
    expect(parseAllocationTable('arm,gender\ncbt,X', ARMS, ['gender'])).toEqual({ ok: false, errors: { table: expect.stringMatching(/"X" is not a level of gender/) } });
    expect(parseAllocationTable('arm\ncbt', ARMS, ['problem'])).toEqual({ ok: false, errors: { table: expect.stringMatching(/missing problem/) } });
    expect(parseAllocationTable('group\ncbt', ARMS, [])).toEqual({ ok: false, errors: { table: expect.stringMatching(/column "arm"/) } });
    expect(parseAllocationTable('arm\n', ARMS, [])).toEqual({ ok: false, errors: { table: 'The table has no rows.' } });
  });
});
