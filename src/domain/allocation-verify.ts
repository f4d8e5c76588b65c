/**
 * Verifiable concealed allocation (issue 30 item 5). At configuration the server fixes the
 * allocation's public parameters and a commitment: SHA-256 over the parameters, the secret seed
 * and the SHA-256 of the whole ticket sequence. Coordinators publish parameters and commitment
 * in the trial registry before the first draw. After unblinding the seed is revealed and anyone
 * holding it can (1) recompute the sequence from seed and parameters (blocks, minimization) or
 * take the stored table (uploaded tables), (2) check the commitment, and (3) re-derive every
 * assignment: the ticket's arm for blocks and tables, the minimization rule replayed over the
 * earlier assignments with the ticket's seeded random numbers for minimization. Server-only
 * (node:crypto); the rule replay mirrors app_hidden.minimization_arm (0060) exactly.
 * See docs/decisions/verifiable-allocation.md.
 */
import { createHash } from 'node:crypto';
import { generateTickets, type AllocationFactor, type Arm, type CheckedAllocation, type Ticket } from './randomization';

/** The commitment format; part of the hashed text so a later format cannot be confused with it. */
export const COMMITMENT_VERSION = 'sanad-allocation-v1';

export interface AllocationParameters {
  method: CheckedAllocation['method'];
  arms: Arm[];
  factors: AllocationFactor[];
  settings: CheckedAllocation['settings'];
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The parameters as published: fixed key order so the same allocation always gives the same text. */
export function parametersText(p: AllocationParameters): string {
  const settings: Record<string, unknown> = {};
  for (const key of ['blockMultiples', 'probability', 'ticketsPerStratum', 'tableRows'] as const) {
    if (p.settings[key] !== undefined) settings[key] = p.settings[key];
  }
  return JSON.stringify({
    method: p.method,
    arms: p.arms.map((a) => ({ code: a.code, ratio: a.ratio })),
    factors: [...p.factors],
    settings,
  });
}

function num(value: number | null): string {
  return value === null ? '' : String(value);
}

/** One line per ticket, ordered by stratum and position: what the sequence hash covers. */
export function sequenceText(tickets: readonly Ticket[]): string {
  const sorted = [...tickets].sort((a, b) => (a.stratum < b.stratum ? -1 : a.stratum > b.stratum ? 1 : a.position - b.position));
  return sorted.map((t) => `${t.stratum}\t${t.position}\t${t.arm ?? ''}\t${num(t.random1)}\t${num(t.random2)}\n`).join('');
}

export function sequenceHash(tickets: readonly Ticket[]): string {
  return sha256(sequenceText(tickets));
}

/** SHA-256 of version, parameters, seed and the sequence's hash, one per line. */
export function commitmentOf(parameters: AllocationParameters, seed: string, tickets: readonly Ticket[]): string {
  return sha256(`${COMMITMENT_VERSION}\n${parametersText(parameters)}\n${seed}\n${sequenceHash(tickets)}`);
}

/** The sequence the seed gives (blocks, minimization); null for a table, which is not generated. */
export function derivedTickets(parameters: AllocationParameters, seed: string): Ticket[] | null {
  if (parameters.method === 'table') return null;
  return generateTickets({ method: parameters.method, arms: parameters.arms, factors: parameters.factors, settings: parameters.settings }, seed);
}

export interface DrawnAssignment {
  caseId: string;
  /** The short case code people see (spec §3), for the report. */
  caseCode: string;
  treatment: string;
  /** The full stratum of the case (factor levels), as stored on the assignment. */
  stratum: string;
  factorLevels: Record<string, string>;
  /** The ticket position within the drawn sequence ('*' for minimization); null if unknown. */
  position: number | null;
}

/**
 * Pocock-Simon with a random element, as app_hidden.minimization_arm: with probability
 * `probability` (random1 below it) the arm with the smallest total imbalance (earlier
 * assignments with the same level, summed over factors, divided by the arm's ratio; ties rotated
 * by random2), else an arm by ratio (random2).
 */
export function minimizationArm(
  levels: Record<string, string>,
  factors: readonly string[],
  arms: readonly Arm[],
  probability: number,
  random1: number,
  random2: number,
  earlier: readonly { treatment: string; factorLevels: Record<string, string> }[],
): string {
  if (random1 >= probability) {
    const total = arms.reduce((sum, a) => sum + a.ratio, 0);
    let upto = 0;
    for (const arm of arms) {
      upto += arm.ratio;
      if (random2 * total < upto) return arm.code;
    }
    return arms[arms.length - 1]!.code;
  }
  const n = arms.length;
  const shift = Math.floor(random2 * n);
  const scored = arms.map((arm, i) => {
    let count = 0;
    for (const e of earlier) {
      if (e.treatment !== arm.code) continue;
      for (const f of factors) if (e.factorLevels[f] !== undefined && e.factorLevels[f] === levels[f]) count += 1;
    }
    return { code: arm.code, score: count / arm.ratio, rotation: (i + shift) % n };
  });
  scored.sort((a, b) => a.score - b.score || a.rotation - b.rotation);
  return scored[0]!.code;
}

export interface VerifyInput {
  parameters: AllocationParameters;
  seed: string;
  /** The commitment published at go-live (what the monitor trusts). */
  commitment: string;
  /** The tickets the server holds (needed for a table; compared with the derived ones otherwise). */
  storedTickets: readonly Ticket[];
  assignments: readonly DrawnAssignment[];
}

export interface VerifyProblem {
  kind: 'commitment' | 'sequence' | 'assignment' | 'position';
  caseCode?: string;
  caseId?: string;
  message: string;
}

export interface VerifyResult {
  ok: boolean;
  checked: number;
  problems: VerifyProblem[];
}

function drawKey(parameters: AllocationParameters, stratum: string): string {
  return parameters.method === 'minimization' ? '*' : stratum;
}

/**
 * Re-derives every allocation from the revealed seed and reports each mismatch: a commitment
 * that does not match what was published, a stored ticket that differs from the seed's
 * sequence, an assignment whose arm is not the one its ticket (or the minimization rule) gives,
 * and two assignments on one ticket.
 */
export function verifyAllocation(input: VerifyInput): VerifyResult {
  const { parameters, seed } = input;
  const problems: VerifyProblem[] = [];
  const derived = derivedTickets(parameters, seed);
  const sequence = derived ?? [...input.storedTickets];
  const recomputed = commitmentOf(parameters, seed, sequence);
  if (recomputed !== input.commitment.trim().toLowerCase()) {
    problems.push({
      kind: 'commitment',
      message: `The seed and ${derived ? 'parameters' : 'stored table'} give the commitment ${recomputed}, not the published ${input.commitment}.`,
    });
  }
  const byKey = new Map(sequence.map((t) => [`${t.stratum}#${t.position}`, t]));
  if (derived) {
    const stored = new Map(input.storedTickets.map((t) => [`${t.stratum}#${t.position}`, t]));
    for (const t of derived) {
      const s = stored.get(`${t.stratum}#${t.position}`);
      if (!s || s.arm !== t.arm || s.random1 !== t.random1 || s.random2 !== t.random2) {
        problems.push({ kind: 'sequence', message: `The stored ticket ${t.position} of stratum ${t.stratum} differs from the sequence the seed gives.` });
      }
    }
    if (input.storedTickets.length !== derived.length) {
      problems.push({ kind: 'sequence', message: `The server holds ${input.storedTickets.length} tickets; the seed gives ${derived.length}.` });
    }
  }
  const ordered = [...input.assignments].sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity));
  const seen = new Map<string, DrawnAssignment>();
  const earlier: DrawnAssignment[] = [];
  const probability = parameters.settings.probability ?? 0.8;
  for (const a of ordered) {
    const who = { caseCode: a.caseCode, caseId: a.caseId };
    const key = drawKey(parameters, a.stratum);
    if (a.position === null) {
      problems.push({ kind: 'position', ...who, message: `Case ${a.caseCode}: the assignment is not linked to any ticket of the sequence.` });
      continue;
    }
    const slot = `${key}#${a.position}`;
    const twin = seen.get(slot);
    if (twin) problems.push({ kind: 'position', ...who, message: `Case ${a.caseCode}: ticket ${a.position} of ${key} was used by case ${twin.caseCode} already.` });
    seen.set(slot, a);
    const ticket = byKey.get(slot);
    let expected: string | undefined;
    if (!ticket) expected = undefined;
    else if (parameters.method === 'minimization') {
      expected = minimizationArm(a.factorLevels, parameters.factors, parameters.arms, probability, ticket.random1 ?? NaN, ticket.random2 ?? NaN, earlier);
    } else expected = ticket.arm ?? undefined;
    if (expected === undefined) {
      problems.push({ kind: 'assignment', ...who, message: `Case ${a.caseCode}: the sequence has no ticket ${a.position} in ${key}.` });
    } else if (expected !== a.treatment) {
      problems.push({ kind: 'assignment', ...who, message: `Case ${a.caseCode}: assigned "${a.treatment}", but the sequence gives "${expected}" (ticket ${a.position} of ${key}).` });
    }
    earlier.push(a);
  }
  // Tickets in a stratum are drawn in order: a gap means an assignment went missing.
  const positionsByKey = new Map<string, number[]>();
  for (const a of ordered) {
    if (a.position === null) continue;
    const key = drawKey(parameters, a.stratum);
    positionsByKey.set(key, [...(positionsByKey.get(key) ?? []), a.position]);
  }
  for (const [key, positions] of positionsByKey) {
    const max = Math.max(...positions);
    const have = new Set(positions);
    for (let p = 1; p <= max; p++) if (!have.has(p)) problems.push({ kind: 'position', message: `Ticket ${p} of ${key} was skipped or its assignment is missing.` });
  }
  return { ok: problems.length === 0, checked: input.assignments.length, problems };
}
