import { describe, expect, it } from 'vitest';
import { median, minutesBetween, responseRowsCsv, responseSummaryCsv, summarizeResponses, type ResponseRow } from './safety-report';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 2, 8, 0) + minutes * 60_000).toISOString();
const row = (caseId: string, raised: number, ack: number | null, call: number | null, closed: number | null, closedWithReason = false): ResponseRow => ({
  caseId,
  shortId: caseId.toUpperCase(),
  raisedAt: at(raised),
  acknowledgedAt: ack === null ? null : at(ack),
  firstCallAt: call === null ? null : at(call),
  resolvedAt: closed === null ? null : at(closed),
  closedWithReason,
});

describe('the response-time report', () => {
  it('medians of odd and even counts, minutes to a tenth', () => {
    expect(median([])).toBeNull();
    expect(median([30, 10, 20])).toBe(20);
    expect(median([40, 10, 20, 30])).toBe(25);
    expect(minutesBetween(at(0), at(90))).toBe(90);
    expect(minutesBetween(at(0), null)).toBeNull();
  });

  it('per case and overall: counts, open, not taken on, median and maximum over the answers that have them', () => {
    const rows = [row('a', 0, 10, 30, 40), row('a', 100, 120, null, 130, true), row('b', 0, null, null, null), row('b', 10, 70, 100, null)];
    const summary = summarizeResponses(rows);
    expect(summary.overall).toEqual({
      count: 4,
      open: 2,
      notAcknowledged: 1,
      withoutCall: 2,
      acknowledgement: { median: 20, max: 60 },
      call: { median: 60, max: 90 },
    });
    expect(summary.cases.map((c) => [c.shortId, c.figures.count, c.figures.acknowledgement.median, c.figures.call.max])).toEqual([
      ['A', 2, 15, 30],
      ['B', 2, 60, 90],
    ]);
    const csv = responseSummaryCsv(summary).split('\r\n');
    expect(csv[1]).toBe('A,2,0,0,1,15,20,30,30');
    expect(csv[3]).toBe('all,4,2,1,2,20,60,60,90');
    const lines = responseRowsCsv(rows).split('\r\n');
    expect(lines[0]).toContain('case,signal_at,acknowledged_at');
    expect(lines[2]).toBe(`A,${at(100)},${at(120)},,${at(130)},yes,20,`);
    expect(lines[3]).toBe(`B,${at(0)},,,,,,`);
  });
});
