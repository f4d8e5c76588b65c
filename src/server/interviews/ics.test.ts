import { describe, expect, it } from 'vitest';
import { escapeText, foldLine, icsUtc, interviewCalendar, type InterviewEvent } from './ics';

const event: InterviewEvent = {
  uid: '7d0c3f5e-1111-4222-8333-944455556666@sanad',
  sequence: 2,
  method: 'REQUEST',
  start: new Date('2027-03-23T09:00:00Z'),
  end: new Date('2027-03-23T10:00:00Z'),
  stamp: new Date('2027-03-01T12:34:56.789Z'),
  summary: 'Sanad: Interview, Vorgespräch; bitte\\pünktlich',
  description: 'Line one\nLine two',
  url: 'https://meet.example.org/room-1',
  organizer: { name: 'Sanad', email: 'no-reply@sanad.invalid' },
  attendees: [
    { name: 'Dr. "Amal"', email: 'amal@example.org' },
    { name: 'سلمى', email: 'salma@example.org' },
  ],
};

describe('ics', () => {
  it('writes UTC times with Z', () => {
    expect(icsUtc(new Date('2027-03-23T09:05:07.123Z'))).toBe('20270323T090507Z');
  });

  it('escapes backslash, semicolon, comma and newlines', () => {
    expect(escapeText('a\\b;c,d\ne')).toBe('a\\\\b\\;c\\,d\\ne');
  });

  it('folds at 75 octets without splitting UTF-8 characters', () => {
    const ascii = 'X'.repeat(200);
    const folded = foldLine(ascii).split('\r\n');
    expect(folded[0]).toHaveLength(75);
    expect(folded.slice(1).every((l) => l.startsWith(' ') && Buffer.byteLength(l) <= 75)).toBe(true);
    expect(folded.map((l, i) => (i === 0 ? l : l.slice(1))).join('')).toBe(ascii);

    const arabic = 'SUMMARY:' + 'سلام'.repeat(30);
    const lines = foldLine(arabic).split('\r\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(lines.map((l, i) => (i === 0 ? l : l.slice(1))).join('')).toBe(arabic);
    expect(foldLine('short')).toBe('short');
  });

  it('writes a REQUEST with stable UID, SEQUENCE, CRLF line ends', () => {
    const text = interviewCalendar(event);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n|\r/);
    const unfolded = text.replace(/\r\n /g, '');
    expect(unfolded).toContain('METHOD:REQUEST\r\n');
    expect(unfolded).toContain(`UID:${event.uid}\r\n`);
    expect(unfolded).toContain('SEQUENCE:2\r\n');
    expect(unfolded).toContain('DTSTART:20270323T090000Z\r\n');
    expect(unfolded).toContain('DTEND:20270323T100000Z\r\n');
    expect(unfolded).toContain('DTSTAMP:20270301T123456Z\r\n');
    expect(unfolded).toContain('SUMMARY:Sanad: Interview\\, Vorgespräch\\; bitte\\\\pünktlich\r\n');
    expect(unfolded).toContain('DESCRIPTION:Line one\\nLine two\r\n');
    expect(unfolded).toContain('URL:https://meet.example.org/room-1\r\n');
    expect(unfolded).toContain('ATTENDEE;CN="Dr. Amal";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:amal@example.org\r\n');
    expect(unfolded).toContain('STATUS:CONFIRMED');
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
  });

  it('writes a CANCEL with the same UID', () => {
    const text = interviewCalendar({ ...event, method: 'CANCEL', sequence: 3, url: null });
    expect(text).toContain('METHOD:CANCEL\r\n');
    expect(text).toContain('STATUS:CANCELLED\r\n');
    expect(text).toContain('SEQUENCE:3\r\n');
    expect(text).toContain(`UID:${event.uid}\r\n`);
    expect(text).not.toContain('URL:');
  });
});
