/**
 * Statistics syntax that opens a research CSV file with variable and value labels (issue 33), as
 * REDCap does: an SPSS syntax file (.sps, also run by GNU PSPP), a Stata do-file (.do) and an R
 * script (haven's labelled vectors). Each is written from the file's data dictionary
 * (dictionary.ts), so one definition drives data, codebook and labels.
 *
 * Empty cells are the only missing value: numeric columns read them as system-missing (SPSS),
 * `.` (Stata) or NA (R). Multi-selects stay strings of codes joined by `;` (their codes are in
 * the codebook); dates and times stay ISO text. Labels longer than a program allows are cut at
 * its limit (SPSS counts bytes, Stata characters). See docs/decisions/standard-exports.md.
 */
import type { Dataset, Variable } from './dictionary';

export type SyntaxFormat = 'sps' | 'do' | 'R';
export const SYNTAX_FORMATS: readonly SyntaxFormat[] = ['sps', 'do', 'R'];

const encoder = new TextEncoder();
const utf8Length = (text: string): number => encoder.encode(text).length;

const NUMERIC = new Set<Variable['type']>(['boolean', 'integer', 'number']);
export const isNumeric = (v: Variable): boolean => NUMERIC.has(v.type);

/** Cut a text to at most `bytes` UTF-8 bytes without splitting a character. */
export function clipBytes(text: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = utf8Length(ch);
    if (used + size > bytes) break;
    out += ch;
    used += size;
  }
  return out;
}

const clipChars = (text: string, chars: number): string => [...text].slice(0, chars).join('');
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Longest value a string column holds, in bytes (UTF-8: up to 4 per character; +1 for the formula guard). */
function stringBytes(v: Variable): number {
  switch (v.type) {
    case 'uuid':
      return 36;
    case 'datetime':
      return 20;
    case 'date':
      return 10;
    case 'text':
      return Math.min(32767, Math.max(1, (v.maxLength ?? 2000) * 4 + 1));
    case 'codes':
      return Math.max(1, v.values.reduce((sum, value) => sum + String(value.value).length + 1, 0));
    case 'boolean':
    case 'integer':
    case 'number':
    case 'code':
      return Math.max(64, ...v.values.map((value) => utf8Length(String(value.value))));
  }
}

function header(dataset: Dataset, dataFile: string, comment: string): string {
  return [
    `${comment} Sanad research export: ${oneLine(dataset.title)} (${dataset.source}), version ${oneLine(dataset.version)}, labels in ${dataset.locale}.`,
    `${comment} Reads ${dataFile} (UTF-8, comma-separated, header line first); keep it beside this file or change the path below.`,
    `${comment} Empty cells are missing values; the codebook says what each one means.`,
  ].join('\n');
}

// SPSS / PSPP ---------------------------------------------------------------------------------

const spssString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

function spssFormat(v: Variable): string {
  if (v.type === 'boolean') return 'F1.0';
  if (v.type === 'integer') return 'F8.0';
  if (v.type === 'number') return 'F10.3';
  return `A${stringBytes(v)}`;
}

/** An SPSS syntax file: GET DATA, VARIABLE LABELS, VALUE LABELS (labels ≤ 255 and 120 bytes). */
export function spssSyntax(dataset: Dataset, dataFile: string): string {
  const vars = dataset.variables;
  const lines = [header(dataset, dataFile, '*'), '* Encoding: UTF-8.', 'GET DATA', '  /TYPE=TXT', `  /FILE=${spssString(dataFile)}`, "  /ENCODING='UTF-8'", '  /ARRANGEMENT=DELIMITED', '  /DELCASE=LINE', '  /FIRSTCASE=2', '  /DELIMITERS=","', `  /QUALIFIER='"'`, '  /VARIABLES='];
  for (const v of vars) lines.push(`    ${v.name} ${spssFormat(v)}`);
  lines.push('.', 'VARIABLE LABELS');
  vars.forEach((v, i) => lines.push(`  ${i === 0 ? '' : '/'}${v.name} ${spssString(clipBytes(oneLine(v.label), 255))}`));
  lines.push('.');
  const labelled = vars.filter((v) => v.values.length > 0 && v.type !== 'codes');
  if (labelled.length > 0) {
    lines.push('VALUE LABELS');
    labelled.forEach((v, i) => {
      lines.push(`  ${i === 0 ? '' : '/'}${v.name}`);
      for (const value of v.values) lines.push(`    ${isNumeric(v) ? String(value.value) : spssString(String(value.value))} ${spssString(clipBytes(oneLine(value.label), 120))}`);
    });
    lines.push('.');
  }
  const levels = { NOMINAL: vars.filter((v) => v.type === 'boolean' || (!isNumeric(v) && v.values.length > 0)), ORDINAL: vars.filter((v) => v.type === 'integer' && v.values.length > 0) };
  for (const [level, list] of Object.entries(levels)) if (list.length > 0) lines.push(`VARIABLE LEVEL ${list.map((v) => v.name).join(' ')} (${level}).`);
  lines.push('EXECUTE.', '');
  return lines.join('\n');
}

// Stata -----------------------------------------------------------------------------------------

/** Stata names have at most 32 characters; a longer one is cut and numbered to stay unique. */
export function stataNames(vars: readonly Variable[]): string[] {
  const used = new Set<string>();
  return vars.map((v) => {
    let name = v.name.slice(0, 32);
    for (let n = 2; used.has(name); n++) name = `${v.name.slice(0, 32 - String(n).length - 1)}_${n}`;
    used.add(name);
    return name;
  });
}

/** A Stata string in compound quotes, with macro characters made literal. */
const stataString = (text: string): string => '`"' + text.replaceAll('\\', '\\\\').replaceAll('$', '\\$').replaceAll('`', "\\`") + `"'`;

/**
 * A Stata do-file: import by column position (so names over 32 characters cannot be mangled),
 * variable labels (≤ 80 characters), value labels on numeric columns, and coded string columns
 * turned into labelled numbers 1…n in the codebook's order (the code stays in `<name>_code`).
 */
export function stataSyntax(dataset: Dataset, dataFile: string): string {
  const vars = dataset.variables;
  const names = stataNames(vars);
  const position = (i: number) => i + 1;
  const stringCols = vars.flatMap((v, i) => (isNumeric(v) ? [] : [position(i)]));
  const numericCols = vars.flatMap((v, i) => (isNumeric(v) ? [position(i)] : []));
  const lines = [header(dataset, dataFile, '*'), 'version 14', 'clear', `local data ${stataString(dataFile)}`];
  const options = ['varnames(nonames)', 'rowrange(2)', 'encoding("utf-8")', 'bindquote(strict)', 'delimiters(",")'];
  if (stringCols.length > 0) options.push(`stringcols(${stringCols.join(' ')})`);
  if (numericCols.length > 0) options.push(`numericcols(${numericCols.join(' ')})`);
  lines.push(`import delimited using "\`data'", ${options.join(' ')} clear`);
  vars.forEach((v, i) => {
    const name = names[i]!;
    lines.push(`rename v${position(i)} ${name}`);
    lines.push(`label variable ${name} ${stataString(clipChars(oneLine(v.label), 80))}`);
    if (v.values.length === 0 || v.type === 'codes') return;
    if (isNumeric(v)) {
      lines.push(`label define ${name} ${v.values.map((value) => `${value.value} ${stataString(oneLine(value.label))}`).join(' ')}, replace`);
      lines.push(`label values ${name} ${name}`);
      return;
    }
    const code = `${name.slice(0, 27)}_code`;
    lines.push(`rename ${name} ${code}`, `generate int ${name} = .`);
    v.values.forEach((value, n) => lines.push(`replace ${name} = ${n + 1} if ${code} == ${stataString(String(value.value))}`));
    lines.push(`label define ${name} ${v.values.map((value, n) => `${n + 1} ${stataString(oneLine(value.label))}`).join(' ')}, replace`);
    lines.push(`label values ${name} ${name}`, `label variable ${name} ${stataString(clipChars(oneLine(v.label), 80))}`, `order ${name}, after(${code})`);
  });
  lines.push('');
  return lines.join('\n');
}

// R ---------------------------------------------------------------------------------------------

/** An R string literal (R reads JSON's escapes). */
const rString = (text: string): string => JSON.stringify(text);

function rClass(v: Variable): string {
  if (v.type === 'boolean' || v.type === 'integer') return 'integer';
  if (v.type === 'number') return 'numeric';
  return 'character';
}

/** An R script: read.csv with fixed column classes, then haven::labelled per column. */
export function rSyntax(dataset: Dataset, dataFile: string): string {
  const vars = dataset.variables;
  const lines = [
    header(dataset, dataFile, '#'),
    '# Needs the haven package: install.packages("haven"). Run with source("<this file>", encoding = "UTF-8").',
    `path <- ${rString(dataFile)}`,
    'data <- utils::read.csv(path, fileEncoding = "UTF-8-BOM", na.strings = "", check.names = FALSE, stringsAsFactors = FALSE,',
    `  colClasses = c(${vars.map((v) => `${rString(v.name)} = ${rString(rClass(v))}`).join(', ')}))`,
  ];
  for (const v of vars) {
    const column = `data[[${rString(v.name)}]]`;
    const labelled = v.values.length > 0 && v.type !== 'codes';
    const values = labelled ? `c(${v.values.map((value) => `${rString(oneLine(value.label))} = ${isNumeric(v) ? (v.type === 'number' ? String(value.value) : `${value.value}L`) : rString(String(value.value))}`).join(', ')})` : 'NULL';
    lines.push(`${column} <- haven::labelled(${column}, labels = ${values}, label = ${rString(oneLine(v.label))})`);
  }
  lines.push('');
  return lines.join('\n');
}

export function syntaxFile(format: SyntaxFormat, dataset: Dataset, dataFile: string): string {
  if (format === 'sps') return spssSyntax(dataset, dataFile);
  if (format === 'do') return stataSyntax(dataset, dataFile);
  return rSyntax(dataset, dataFile);
}
