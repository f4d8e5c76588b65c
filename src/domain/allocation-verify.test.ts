import { describe, expect, it } from 'vitest';
import { commitmentOf, minimizationArm, verifyAllocation, type AllocationParameters, type DrawnAssignment } from './allocation-verify';
import { ALLOCATION_FACTORS, generateTickets, seededRandom, stratumKey, type Ticket } from './randomization';

const ARMS = [{ code: 'cbt', ratio: 2 }, { code: 'ipt', ratio: 1 }];
const SEED = 'f'.repeat(64);

/** 1,000 cases with seeded factor levels, drawn as randomize_case draws (next ticket of the stratum). */
function simulate(parameters: AllocationParameters, tickets: Ticket[], count = 1000): DrawnAssignment[] {
  const random = seededRandom('cases');
  const next = new Map<string, number>();
  const drawn: DrawnAssignment[] = [];
  for (let i = 0; i < count; i++) {
    const levels = {
      gender: ALLOCATION_FACTORS.gender[Math.floor(random() * 4)]!,
      problem: ALLOCATION_FACTORS.problem[Math.floor(random() * 2)]!,
    };
    const stratum = stratumKey(levels, parameters.factors);
    const key = parameters.method === 'minimization' ? '*' : stratum;
    const position = (next.get(key) ?? 0) + 1;
    next.set(key, position);
    const ticket = tickets.find((t) => t.stratum === key && t.position === position)!;
    const treatment = parameters.method === 'minimization'
      ? minimizationArm(levels, parameters.factors, parameters.arms, parameters.settings.probability!, ticket.random1!, ticket.random2!, drawn)
      : ticket.arm!;
    drawn.push({ caseId: `case-${i}`, caseCode: `c${i}`, treatment, stratum, factorLevels: levels, position });
  }
  return drawn;
}

const METHODS: AllocationParameters[] = [
  { method: 'blocks', arms: ARMS, factors: ['gender', 'problem'], settings: { blockMultiples: [1, 2], ticketsPerStratum: 1000 } },
  { method: 'minimization', arms: ARMS, factors: ['gender', 'problem'], settings: { probability: 0.8, ticketsPerStratum: 1000 } },
];

describe('verify-allocation on 1,000 simulated allocations', () => {
  it.each(METHODS.map((m) => [m.method, m] as const))('%s: every allocation re-derives from the seed', (_name, parameters) => {
    const tickets = generateTickets(parameters, SEED);
    const assignments = simulate(parameters, tickets);
    const result = verifyAllocation({ parameters, seed: SEED, commitment: commitmentOf(parameters, SEED, tickets), storedTickets: tickets, assignments });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, checked: 1000 });
    // Both arms are really drawn (the check compares something).
    expect(new Set(assignments.map((a) => a.treatment))).toEqual(new Set(['cbt', 'ipt']));
  });

  it.each(METHODS.map((m) => [m.method, m] as const))('%s: a changed assignment is named by its case code', (_name, parameters) => {
    const tickets = generateTickets(parameters, SEED);
    const assignments = simulate(parameters, tickets);
    const target = assignments[637]!;
    target.treatment = target.treatment === 'cbt' ? 'ipt' : 'cbt';
    const result = verifyAllocation({ parameters, seed: SEED, commitment: commitmentOf(parameters, SEED, tickets), storedTickets: tickets, assignments });
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ kind: 'assignment', caseCode: 'c637' });
  });

  it('a tampered stored table (one ticket changed) is detected, and the commitment with it', () => {
    const parameters = METHODS[0]!;
    const tickets = generateTickets(parameters, SEED);
    const commitment = commitmentOf(parameters, SEED, tickets);
    const assignments = simulate(parameters, tickets);
    const tampered = tickets.map((t) => ({ ...t }));
    const victim = tampered.find((t) => t.position === 900)!;
    victim.arm = victim.arm === 'cbt' ? 'ipt' : 'cbt';
    const result = verifyAllocation({ parameters, seed: SEED, commitment, storedTickets: tampered, assignments });
    expect(result.problems.map((p) => p.kind)).toContain('sequence');
    // An uploaded table is not derived: the commitment catches the change.
    const table: AllocationParameters = { method: 'table', arms: ARMS, factors: [], settings: { tableRows: 3 } };
    const rows: Ticket[] = ['cbt', 'ipt', 'cbt'].map((arm, i) => ({ stratum: '*', position: i + 1, arm, random1: null, random2: null }));
    const published = commitmentOf(table, SEED, rows);
    const changed = rows.map((r, i) => (i === 2 ? { ...r, arm: 'ipt' } : r));
    const drawn: DrawnAssignment[] = [{ caseId: 'x', caseCode: 'x1', treatment: 'cbt', stratum: '*', factorLevels: {}, position: 1 }];
    expect(verifyAllocation({ parameters: table, seed: SEED, commitment: published, storedTickets: rows, assignments: drawn }).ok).toBe(true);
    const caught = verifyAllocation({ parameters: table, seed: SEED, commitment: published, storedTickets: changed, assignments: drawn });
    expect(caught.problems).toEqual([expect.objectContaining({ kind: 'commitment' })]);
  });

  it('a wrong seed, a changed parameter, a skipped or doubly used ticket are reported', () => {
    const parameters = METHODS[1]!;
    const tickets = generateTickets(parameters, SEED);
    const commitment = commitmentOf(parameters, SEED, tickets);
    const assignments = simulate(parameters, tickets, 50);
    expect(verifyAllocation({ parameters, seed: 'e'.repeat(64), commitment, storedTickets: tickets, assignments }).problems[0]!.kind).toBe('commitment');
    const other = { ...parameters, settings: { ...parameters.settings, probability: 0.9 } };
    expect(verifyAllocation({ parameters: other, seed: SEED, commitment, storedTickets: tickets, assignments }).problems[0]!.kind).toBe('commitment');
    const gap = assignments.filter((a) => a.position !== 10);
    expect(verifyAllocation({ parameters, seed: SEED, commitment, storedTickets: tickets, assignments: gap }).problems.some((p) => /Ticket 10/.test(p.message))).toBe(true);
    const twice = [...assignments, { ...assignments[3]!, caseId: 'dup', caseCode: 'dup' }];
    expect(verifyAllocation({ parameters, seed: SEED, commitment, storedTickets: tickets, assignments: twice }).problems.some((p) => p.caseCode === 'dup' && p.kind === 'position')).toBe(true);
  });
});
