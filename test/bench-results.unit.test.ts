import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeCommand,
  figuresTable,
  RESULTS_FILE,
  renderSection,
  replaceSection,
  sectionNames,
  tableOf,
  writeResults,
  type ResultsSection,
} from '../bench/results-file';
import type { Column } from '../bench/report';

function section(bench: string, figure: string): ResultsSection {
  return {
    bench,
    title: `The ${bench} bench`,
    command: `npx tsx bench/${bench}.ts`,
    machine: 'node v24 on linux x64, 2 CPUs',
    date: new Date('2026-11-28T05:30:12.345Z'),
    databases: ['postgres: PostgreSQL 16.4; 100 cases'],
    tables: [figuresTable([['p50 ms', figure]])],
  };
}

const HAND_WRITTEN = '# Bench results\n\nIntro.\n\n## Latest runs\n\n## Earlier measurements (by hand)\n\n| old | table |\n|---|---|\n| 1 | 2 |\n';

describe('the bench results file', () => {
  it('renders a section with its markers, the run facts and Markdown tables', () => {
    const columns: Column<{ name: string; ms: number }>[] = [
      { title: 'scenario', value: (row) => row.name, left: true },
      { title: 'p50 ms', value: (row) => row.ms.toFixed(1) },
    ];
    const text = renderSection({
      ...section('workspace', '1'),
      tables: [tableOf(columns, [{ name: 'a | b', ms: 12.345 }], 'PostgreSQL:')],
      notes: ['Targets: p99 ≤ 50 ms.'],
    });
    expect(text.split('\n')).toEqual([
      '<!-- bench:workspace begin -->',
      '### The workspace bench',
      '',
      '- command: `npx tsx bench/workspace.ts`',
      '- date: 2026-11-28 05:30 UTC',
      '- machine: node v24 on linux x64, 2 CPUs',
      '- database: postgres: PostgreSQL 16.4; 100 cases',
      '',
      'PostgreSQL:',
      '',
      '| scenario | p50 ms |',
      '|---|---|',
      '| a \\| b | 12.3 |',
      '',
      'Targets: p99 ≤ 50 ms.',
      '<!-- bench:workspace end -->',
    ]);
  });

  it('puts the first section before the hand-written history and keeps that history as it was', () => {
    const text = replaceSection(HAND_WRITTEN, 'workspace', renderSection(section('workspace', '1')));
    expect(sectionNames(text)).toEqual(['workspace']);
    expect(text.startsWith('# Bench results\n\nIntro.\n\n## Latest runs\n\n<!-- bench:workspace begin -->')).toBe(true);
    expect(text.endsWith(`<!-- bench:workspace end -->\n\n${HAND_WRITTEN.slice(HAND_WRITTEN.indexOf('## Earlier'))}`)).toBe(true);
  });

  it('replaces only its own section and leaves every other byte alone', () => {
    let text = HAND_WRITTEN;
    for (const bench of ['workspace', 'auth', 'workflow']) text = replaceSection(text, bench, renderSection(section(bench, '1')));
    expect(sectionNames(text)).toEqual(['auth', 'workflow', 'workspace']);
    const replaced = replaceSection(text, 'workspace', renderSection(section('workspace', '2')));
    expect(replaced).toBe(text.replace(renderSection(section('workspace', '1')), renderSection(section('workspace', '2'))));
    expect(replaced).toContain('| p50 ms | 2 |');
    expect(replaced.match(/\| p50 ms \| 1 \|/g)).toHaveLength(2);
    // Writing the same section twice changes nothing.
    expect(replaceSection(replaced, 'workspace', renderSection(section('workspace', '2')))).toBe(replaced);
  });

  it('keeps sections in name order, whatever order the benches ran in', () => {
    let text = '';
    for (const bench of ['web', 'interviews', 'questionnaires', 'auth']) text = replaceSection(text, bench, renderSection(section(bench, '1')));
    expect(sectionNames(text)).toEqual(['auth', 'interviews', 'questionnaires', 'web']);
  });

  it('does not mistake a section whose name contains another for it', () => {
    let text = replaceSection(HAND_WRITTEN, 'workspace-cpu', renderSection(section('workspace-cpu', '1')));
    text = replaceSection(text, 'workspace', renderSection(section('workspace', '1')));
    expect(sectionNames(text)).toEqual(['workspace', 'workspace-cpu']);
    const again = replaceSection(text, 'workspace', renderSection(section('workspace', '3')));
    expect(sectionNames(again)).toEqual(['workspace', 'workspace-cpu']);
    expect(again).toContain('| p50 ms | 3 |');
  });

  it('refuses a section whose end marker was lost, rather than eat the rest of the file', () => {
    const text = replaceSection(HAND_WRITTEN, 'auth', renderSection(section('auth', '1'))).replace('<!-- bench:auth end -->', '');
    expect(() => replaceSection(text, 'auth', renderSection(section('auth', '2')))).toThrow(/no end marker/);
    expect(() => renderSection(section('Auth Bench', '1'))).toThrow(/lower-case/);
  });

  it('names the command with its settings, addresses hidden', () => {
    const command = describeCommand(['node', path.join(process.cwd(), 'bench/run.ts')], {
      BENCH_SECONDS: '1',
      BENCH_DATABASE_URL: 'postgres://user:secret@host/db',
      BENCH_RESULTS_FILE: '/tmp/x.md',
      BENCH_SCENARIO: '',
      PATH: '/usr/bin',
    });
    expect(command).toBe('BENCH_DATABASE_URL=(set) BENCH_SECONDS=1 npx tsx bench/run.ts');
  });

  it('writes the file named by BENCH_RESULTS_FILE, and nothing with BENCH_RESULTS=0', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-results-'));
    const file = path.join(dir, 'RESULTS.md');
    try {
      fs.writeFileSync(file, HAND_WRITTEN);
      expect(writeResults(section('web', '1'), { BENCH_RESULTS: '0', BENCH_RESULTS_FILE: file })).toBeUndefined();
      expect(fs.readFileSync(file, 'utf8')).toBe(HAND_WRITTEN);
      expect(writeResults(section('web', '1'), { BENCH_RESULTS_FILE: file })).toBe(file);
      expect(sectionNames(fs.readFileSync(file, 'utf8'))).toEqual(['web']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the committed file, whose hand-written history starts where new sections go', () => {
    const text = fs.readFileSync(RESULTS_FILE, 'utf8');
    expect(text).toMatch(/^## Earlier measurements/m);
    for (const name of sectionNames(text)) expect(text).toContain(`<!-- bench:${name} end -->`);
  });
});
