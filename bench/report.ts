/** The printed side of the benchmark: the machine it ran on and the table of figures. */
import os from 'node:os';
import type { Summary } from './load';

export interface ResultRow extends Summary {
  database: string;
  scenario: string;
}

export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  return [
    `node ${process.version} on ${os.platform()} ${os.arch()}`,
    `${os.availableParallelism()} CPUs available (${cpus.length} × ${model})`,
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory`,
    describeLoad(),
  ].join(', ');
}

/**
 * Other work on the machine skews every figure: the load average before the run says how much
 * there was (during a run it counts the benchmark's own server and database processes).
 */
function describeLoad(): string {
  const [one, five] = os.loadavg();
  return `load average ${one!.toFixed(1)} (1 min), ${five!.toFixed(1)} (5 min)`;
}

/** A column of a printed table: its title, how a row shows in it, and its alignment. */
export interface Column<Row> {
  title: string;
  value: (row: Row) => string;
  left?: boolean;
}

export const RESULT_COLUMNS: Column<ResultRow>[] = [
  { title: 'database', value: (row) => row.database, left: true },
  { title: 'scenario', value: (row) => row.scenario, left: true },
  { title: 'requests', value: (row) => String(row.requests) },
  { title: 'req/s', value: (row) => row.perSecond.toFixed(1) },
  { title: 'p50 ms', value: (row) => milliseconds(row.p50) },
  { title: 'p99 ms', value: (row) => milliseconds(row.p99) },
  { title: 'errors', value: (row) => String(row.errors) },
];

export function milliseconds(value: number): string {
  return Number.isNaN(value) ? '-' : value.toFixed(1);
}

export function formatTable(rows: ResultRow[]): string {
  return formatColumns(RESULT_COLUMNS, rows);
}

/** Aligned plain-text columns under a title line and a rule. */
export function formatColumns<Row>(columns: Column<Row>[], rows: Row[]): string {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, index) => Math.max(column.title.length, ...cells.map((line) => line[index]!.length)));
  const line = (values: string[]) =>
    values.map((value, index) => (columns[index]!.left ? value.padEnd(widths[index]!) : value.padStart(widths[index]!))).join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(columns.map((column) => column.title)), rule, ...cells.map(line)].join('\n');
}
