/**
 * The trial's allocation (issue 15): validation of a coordinator's configuration and the
 * generation of the concealed ticket sequence from a secret seed. Pure and deterministic: the
 * same seed and configuration give the same tickets, so a statistician holding the seed can
 * reproduce the sequence. The server stores the tickets in app_private and draws them in SQL
 * (db/migrations/0060-randomization.sql); minimization tickets carry the random numbers of the
 * draw, the arm is chosen at draw time from the earlier assignments.
 */

export const ALLOCATION_METHODS = ['blocks', 'minimization', 'table'] as const;
export type AllocationMethod = (typeof ALLOCATION_METHODS)[number];

/** Factors a trial may stratify or minimize by, with their levels (spec §3: gender; the interview's problem). */
export const ALLOCATION_FACTORS = {
  gender: ['FEMALE', 'MALE', 'DIVERSE', 'unknown'],
  problem: ['ptsd', 'depression'],
} as const;
export type AllocationFactor = keyof typeof ALLOCATION_FACTORS;

/**
 * The record the gender factor is read from (issue 26: "the stratum comes from the record the
 * trial names"): the registration, the patient's screening questionnaire (demographics), or the
 * signed interview report. The draw reads it in SQL (app_hidden.case_factor_levels, 0216).
 */
export const GENDER_SOURCES = ['registration', 'screening', 'report'] as const;
export type GenderSource = (typeof GENDER_SOURCES)[number];

export interface Arm {
  code: string;
  ratio: number;
}

export interface AllocationInput {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  /** blocks: block sizes are these multiples of the ratio sum, chosen at random per block. */
  blockMultiples?: number[];
  /** minimization: probability of taking the arm that minimizes imbalance. */
  probability?: number;
  /** blocks and minimization: tickets generated per stratum. */
  ticketsPerStratum?: number;
  /** table: the uploaded CSV. */
  table?: string;
}

export interface Ticket {
  stratum: string;
  position: number;
  arm: string | null;
  random1: number | null;
  random2: number | null;
}

export interface CheckedAllocation {
  method: AllocationMethod;
  arms: Arm[];
  factors: AllocationFactor[];
  settings: { blockMultiples?: number[]; probability?: number; ticketsPerStratum?: number; tableRows?: number; genderSource?: GenderSource };
}

export type AllocationErrors = Record<string, string>;

export const ARM_CODE = /^[a-z][a-z0-9_-]{0,31}$/;
export const DEFAULT_TICKETS_PER_STRATUM = 500;
const MAX_TICKETS = 5000;

function isFactor(value: unknown): value is AllocationFactor {
  return typeof value === 'string' && Object.hasOwn(ALLOCATION_FACTORS, value);
}

/**
 * Checks a configuration; returns the problems by field (empty when fine). Messages are English
 * for the API; the web app shows its own translations by field.
 */
export function checkAllocation(input: unknown): { ok: true; value: CheckedAllocation } | { ok: false; errors: AllocationErrors } {
  const errors: AllocationErrors = {};
  const raw = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const method = raw.method;
  if (typeof method !== 'string' || !(ALLOCATION_METHODS as readonly string[]).includes(method)) {
    errors.method = `method must be one of ${ALLOCATION_METHODS.join(', ')}.`;
  }
  const arms: Arm[] = [];
  if (!Array.isArray(raw.arms) || raw.arms.length < 2 || raw.arms.length > 10) {
    errors.arms = 'Give between 2 and 10 arms.';
  } else {
    for (const [index, arm] of raw.arms.entries()) {
      const a = (arm && typeof arm === 'object' ? arm : {}) as Record<string, unknown>;
      if (typeof a.code !== 'string' || !ARM_CODE.test(a.code)) {
        errors[`arms.${index}.code`] = 'An arm code is 1-32 lower-case letters, digits, - or _, starting with a letter.';
      } else if (arms.some((x) => x.code === a.code)) {
        errors[`arms.${index}.code`] = `The arm "${a.code}" is given twice.`;
      }
      if (typeof a.ratio !== 'number' || !Number.isInteger(a.ratio) || a.ratio < 1 || a.ratio > 10) {
        errors[`arms.${index}.ratio`] = 'A ratio is a whole number from 1 to 10.';
      }
      arms.push({ code: String(a.code), ratio: Number(a.ratio) });
    }
  }
  const factors: AllocationFactor[] = [];
  if (raw.factors !== undefined) {
    if (!Array.isArray(raw.factors) || !raw.factors.every(isFactor) || new Set(raw.factors).size !== raw.factors.length) {
      errors.factors = `factors must be distinct values of: ${Object.keys(ALLOCATION_FACTORS).join(', ')}.`;
    } else factors.push(...(raw.factors as AllocationFactor[]));
  }
  if (method === 'minimization' && factors.length === 0) errors.factors = 'Minimization needs at least one factor.';
  const settings: CheckedAllocation['settings'] = {};
  if (method === 'blocks') {
    const multiples = raw.blockMultiples ?? [1, 2];
    if (!Array.isArray(multiples) || multiples.length === 0 || !multiples.every((m) => Number.isInteger(m) && m >= 1 && m <= 4)) {
      errors.blockMultiples = 'Block multiples are whole numbers from 1 to 4, e.g. [1, 2].';
    } else settings.blockMultiples = [...new Set(multiples as number[])].sort((a, b) => a - b);
  }
  if (method === 'minimization') {
    const probability = raw.probability ?? 0.8;
    if (typeof probability !== 'number' || !(probability >= 0.5 && probability <= 1)) {
      errors.probability = 'The probability of the minimizing arm is between 0.5 and 1.';
    } else settings.probability = probability;
  }
  if (method === 'blocks' || method === 'minimization') {
    const count = raw.ticketsPerStratum ?? DEFAULT_TICKETS_PER_STRATUM;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_TICKETS) {
      errors.ticketsPerStratum = `Tickets per stratum: a whole number from 1 to ${MAX_TICKETS}.`;
    } else settings.ticketsPerStratum = count;
  }
  // Absent means the registration (as before 0216); kept in the settings only when named.
  const genderSource = raw.genderSource;
  if (genderSource !== undefined && (typeof genderSource !== 'string' || !(GENDER_SOURCES as readonly string[]).includes(genderSource))) {
    errors.genderSource = `genderSource must be one of ${GENDER_SOURCES.join(', ')}.`;
  } else if (genderSource !== undefined) settings.genderSource = genderSource as GenderSource;
  if (method === 'table' && (typeof raw.table !== 'string' || raw.table.trim() === '')) errors.table = 'Upload the allocation table (CSV).';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { method: method as AllocationMethod, arms, factors, settings } };
}

/** "gender=FEMALE;problem=ptsd" for the factors in their given order; "*" for none (as SQL stratum_key). */
export function stratumKey(levels: Partial<Record<AllocationFactor, string>>, factors: readonly AllocationFactor[]): string {
  if (factors.length === 0) return '*';
  return factors.map((f) => `${f}=${levels[f] ?? 'unknown'}`).join(';');
}

/** Every combination of the factors' levels. */
export function allStrata(factors: readonly AllocationFactor[]): string[] {
  let combos: Partial<Record<AllocationFactor, string>>[] = [{}];
  for (const factor of factors) combos = combos.flatMap((c) => ALLOCATION_FACTORS[factor].map((level) => ({ ...c, [factor]: level })));
  return combos.map((c) => stratumKey(c, factors));
}

// Seeded random numbers ------------------------------------------------------------------------

/** cyrb128: four 32-bit seeds from a string. */
function hashSeed(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/** sfc32: a small, fast generator with good statistical quality; uniform in [0, 1). */
export function seededRandom(seed: string): () => number {
  let [a, b, c, d] = hashSeed(seed);
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next(); // warm up
  return next;
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Permuted blocks of randomly varying size: each block holds every arm `ratio × multiple` times. */
export function blockSequence(arms: readonly Arm[], multiples: readonly number[], length: number, random: () => number): string[] {
  const sequence: string[] = [];
  while (sequence.length < length) {
    const multiple = multiples[Math.floor(random() * multiples.length)]!;
    const block = arms.flatMap((arm) => Array.from({ length: arm.ratio * multiple }, () => arm.code));
    sequence.push(...shuffle(block, random));
  }
  return sequence.slice(0, length);
}

/** The tickets of a blocks or minimization allocation, from the seed. */
export function generateTickets(allocation: CheckedAllocation, seed: string): Ticket[] {
  const count = allocation.settings.ticketsPerStratum ?? DEFAULT_TICKETS_PER_STRATUM;
  if (allocation.method === 'minimization') {
    const random = seededRandom(`${seed}:minimization`);
    return Array.from({ length: count }, (_, i) => ({ stratum: '*', position: i + 1, arm: null, random1: random(), random2: random() }));
  }
  if (allocation.method !== 'blocks') throw new Error('generateTickets: tables are parsed, not generated');
  return allStrata(allocation.factors).flatMap((stratum) => {
    const sequence = blockSequence(allocation.arms, allocation.settings.blockMultiples ?? [1, 2], count, seededRandom(`${seed}:${stratum}`));
    return sequence.map((arm, i) => ({ stratum, position: i + 1, arm, random1: null, random2: null }));
  });
}

// Allocation tables (CSV) ------------------------------------------------------------------------

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (quoted) {
      if (ch === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',' || ch === ';') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && source[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/**
 * An uploaded allocation table, as REDCap takes one: a header with `arm` (or
 * `redcap_randomization_group`) and a column per stratification factor; rows in drawing order.
 */
export function parseAllocationTable(
  text: string,
  arms: readonly Arm[],
  factors: readonly AllocationFactor[],
): { ok: true; tickets: Ticket[] } | { ok: false; errors: AllocationErrors } {
  const rows = csvRows(text);
  const header = (rows.shift() ?? []).map((h) => h.trim().toLowerCase());
  const armColumn = header.findIndex((h) => h === 'arm' || h === 'redcap_randomization_group' || h === 'treatment');
  if (armColumn < 0) return { ok: false, errors: { table: 'The table needs a column "arm" with the arm of each row.' } };
  const factorColumns = factors.map((f) => header.indexOf(f));
  const missing = factors.filter((_, i) => factorColumns[i]! < 0);
  if (missing.length > 0) return { ok: false, errors: { table: `The table needs a column for each factor: missing ${missing.join(', ')}.` } };
  if (rows.length === 0) return { ok: false, errors: { table: 'The table has no rows.' } };
  if (rows.length > 50_000) return { ok: false, errors: { table: 'The table has more than 50,000 rows.' } };
  const known = new Set(arms.map((a) => a.code));
  const positions = new Map<string, number>();
  const tickets: Ticket[] = [];
  for (const [index, row] of rows.entries()) {
    const line = index + 2;
    const arm = (row[armColumn] ?? '').trim();
    if (!known.has(arm)) return { ok: false, errors: { table: `Line ${line}: "${arm}" is not one of the arms (${[...known].join(', ')}).` } };
    const levels: Partial<Record<AllocationFactor, string>> = {};
    for (const [i, factor] of factors.entries()) {
      const level = (row[factorColumns[i]!] ?? '').trim();
      if (!(ALLOCATION_FACTORS[factor] as readonly string[]).includes(level)) {
        return { ok: false, errors: { table: `Line ${line}: "${level}" is not a level of ${factor} (${ALLOCATION_FACTORS[factor].join(', ')}).` } };
      }
      levels[factor] = level;
    }
    const stratum = stratumKey(levels, factors);
    const position = (positions.get(stratum) ?? 0) + 1;
    positions.set(stratum, position);
    tickets.push({ stratum, position, arm, random1: null, random2: null });
  }
  return { ok: true, tickets };
}
