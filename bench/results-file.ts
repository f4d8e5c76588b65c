/**
 * bench/RESULTS.md, written by the benches. Each bench owns one section, between
 * `<!-- bench:NAME begin -->` and `<!-- bench:NAME end -->`; when it finishes it replaces that
 * section (or adds it, in name order among the others, before the hand-written part that starts
 * at "## Earlier measurements") and leaves the rest of the file as it was.
 *
 * BENCH_RESULTS=0 prints only; BENCH_RESULTS_FILE writes elsewhere (tests, a scratch copy).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Column } from './report';

export const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');

/** Where new sections go when the file has no section yet: before the line that starts the hand-written history. */
const HISTORY_HEADING = '## Earlier measurements';

export interface ResultsTable {
  caption?: string;
  /** Column titles and cells, as the bench prints them. */
  columns: string[];
  rows: string[][];
}

export interface ResultsSection {
  /** The section's key: letters, digits and dashes (`auth`, `workspace`, …). */
  bench: string;
  /** A heading line: what was measured. */
  title: string;
  /** The command that produced it, with the settings that change what it measures. */
  command: string;
  machine: string;
  /** When the bench finished. */
  date: Date;
  /** Each database it ran on, with its version and the data's size. */
  databases: string[];
  tables: ResultsTable[];
  notes?: string[];
}

/** A table of figures from the columns a bench prints with formatColumns (report.ts). */
export function tableOf<Row>(columns: Column<Row>[], rows: Row[], caption?: string): ResultsTable {
  return { ...(caption === undefined ? {} : { caption }), columns: columns.map((c) => c.title), rows: rows.map((row) => columns.map((c) => c.value(row))) };
}

/** A two-column table of named figures, for benches that print one figure a line. */
export function figuresTable(figures: [string, string][], caption?: string): ResultsTable {
  return { ...(caption === undefined ? {} : { caption }), columns: ['figure', 'value'], rows: figures.map(([name, value]) => [name, value]) };
}

const cell = (text: string) => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function markdownTable(table: ResultsTable): string {
  const lines = [`| ${table.columns.map(cell).join(' | ')} |`, `|${table.columns.map(() => '---').join('|')}|`];
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function markers(bench: string): { begin: string; end: string } {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(bench)) throw new Error(`A results section is named with lower-case letters, digits and dashes, got "${bench}"`);
  return { begin: `<!-- bench:${bench} begin -->`, end: `<!-- bench:${bench} end -->` };
}

/** The section as Markdown, markers included. Minutes in UTC: a run is not repeated within one. */
export function renderSection(section: ResultsSection): string {
  const { begin, end } = markers(section.bench);
  const date = section.date.toISOString().slice(0, 16).replace('T', ' ');
  const parts = [
    begin,
    `### ${section.title}`,
    '',
    `- command: \`${section.command}\``,
    `- date: ${date} UTC`,
    `- machine: ${section.machine}`,
    ...section.databases.map((d) => `- database: ${d}`),
  ];
  for (const table of section.tables) {
    parts.push('');
    if (table.caption) parts.push(table.caption, '');
    parts.push(markdownTable(table));
  }
  if (section.notes && section.notes.length > 0) parts.push('', ...section.notes);
  parts.push(end);
  return parts.join('\n');
}

/** Every bench section's name in the text, in order. */
export function sectionNames(text: string): string[] {
  return [...text.matchAll(/^<!-- bench:([a-z0-9-]+) begin -->$/gm)].map((m) => m[1]!);
}

/**
 * The file's text with the section replaced, or inserted before the first section whose name
 * sorts after it (else after the last section, else before the history, else at the end).
 * Everything outside the section is kept byte for byte.
 */
export function replaceSection(text: string, bench: string, rendered: string): string {
  const { begin, end } = markers(bench);
  const start = lineIndex(text, begin);
  if (start >= 0) {
    const stop = lineIndex(text, end, start);
    if (stop < 0) throw new Error(`bench/RESULTS.md: the section "${bench}" has no end marker; restore "${end}" by hand.`);
    return text.slice(0, start) + rendered + text.slice(stop + end.length);
  }
  const names = sectionNames(text);
  const next = names.find((name) => name > bench);
  if (next !== undefined) {
    const at = lineIndex(text, markers(next).begin);
    return `${text.slice(0, at)}${rendered}\n\n${text.slice(at)}`;
  }
  if (names.length > 0) {
    const last = markers(names.at(-1)!).end;
    const at = lineIndex(text, last) + last.length;
    return `${text.slice(0, at)}\n\n${rendered}${text.slice(at)}`;
  }
  const history = text.startsWith(HISTORY_HEADING) ? 0 : text.indexOf(`\n${HISTORY_HEADING}`) + 1;
  if (history > 0 || text.startsWith(HISTORY_HEADING)) return `${text.slice(0, history)}${rendered}\n\n${text.slice(history)}`;
  const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return `${text}${separator}${rendered}\n`;
}

/** Where a whole line equal to `line` starts, from `from` on; -1 when there is none. */
function lineIndex(text: string, line: string, from = 0): number {
  for (let at = text.indexOf(line, from); at >= 0; at = text.indexOf(line, at + 1)) {
    const startsLine = at === 0 || text[at - 1] === '\n';
    const endsLine = at + line.length === text.length || text[at + line.length] === '\n';
    if (startsLine && endsLine) return at;
  }
  return -1;
}

/** The command line as it was run, with the BENCH_ settings (addresses only as "set": they may hold a password). */
export function describeCommand(argv: string[], env: Record<string, string | undefined>): string {
  const script = path.relative(process.cwd(), argv[1] ?? '') || 'bench';
  const settings = Object.keys(env)
    .filter((key) => key.startsWith('BENCH_') && key !== 'BENCH_RESULTS_FILE' && env[key] !== undefined && env[key] !== '')
    .sort()
    .map((key) => (key.endsWith('_URL') ? `${key}=(set)` : `${key}=${env[key]}`));
  const compiled = env.GRAPHQL_COMPILED_LISTS !== undefined ? [`GRAPHQL_COMPILED_LISTS=${env.GRAPHQL_COMPILED_LISTS}`] : [];
  return [...settings, ...compiled, `npx tsx ${script}`].join(' ');
}

/** "postgres: PostgreSQL 16.4" or "pglite: PGlite (PostgreSQL 17.4)", plus what the bench adds. */
export async function describeDatabase(label: string, pool: pg.Pool, size?: string): Promise<string> {
  const { rows } = await pool.query<{ version: string }>(`select current_setting('server_version') as version`);
  const version = rows[0]!.version.split(' ')[0];
  const engine = label === 'pglite' ? `PGlite (PostgreSQL ${version})` : `PostgreSQL ${version}`;
  return `${label}: ${engine}${size ? `; ${size}` : ''}`;
}

/** Writes the section into bench/RESULTS.md (or BENCH_RESULTS_FILE), unless BENCH_RESULTS=0. */
export function writeResults(section: ResultsSection, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.BENCH_RESULTS === '0') return undefined;
  const file = env.BENCH_RESULTS_FILE || RESULTS_FILE;
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.writeFileSync(file, replaceSection(before, section.bench, renderSection(section)));
  console.log(`\nWritten to ${path.relative(process.cwd(), file)}, section "${section.bench}".`);
  return file;
}
