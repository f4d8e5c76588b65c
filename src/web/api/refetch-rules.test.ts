/**
 * Spec §4's refetch rules, each checked on a real query cache: after an action exactly the
 * data the rule names is marked stale (and refetched where a screen shows it), nothing else.
 */
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { interviewKeys, refetchInterviewsAfter } from '../features/interviews/api';
import { messageKeys, refetchAfterMessageAction } from '../features/messages/api';
import { caseKeys, refetchAfterCaseChange } from '../features/cases/api';
import { refetchAfterTaskCompleted, workflowKeys } from '../features/tasks/api';

function seeded(): QueryClient {
  const client = new QueryClient();
  const keys = [
    interviewKeys.offers(),
    interviewKeys.calendar('2026-11-23', '2026-11-30'),
    interviewKeys.dates(),
    interviewKeys.caseBookings('case-1'),
    interviewKeys.interviewers(),
    messageKeys.conversation('case-1'),
    messageKeys.conversation('case-2'),
    messageKeys.unread(),
    messageKeys.myCases(),
    caseKeys.detail('case-1'),
    caseKeys.detail('case-2'),
    caseKeys.list({ search: '', stage: '', unassigned: false, offset: 0 }),
    ['scores', 'case', 'case-1'],
  ];
  for (const key of keys) client.setQueryData(key, 'kept');
  return client;
}

/** The keys (joined) of the queries an action marked stale. */
function stale(client: QueryClient): string[] {
  return client
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => q.queryKey.join('/'))
    .sort();
}

const OFFERS = ['interviews/offers', 'interviews/offers/calendar/2026-11-23/2026-11-30'];
const DATES = ['interviews/dates'];
const BOOKINGS = ['interviews/bookings/case-1'];

describe('interview refetch rules (spec §4 Interview offer lifecycle, Booking)', () => {
  it.each([
    ['cancel', [...OFFERS, ...DATES, ...BOOKINGS]],
    ['uncancel', [...OFFERS, ...DATES, ...BOOKINGS]],
    ['adopt', [...OFFERS, ...DATES, ...BOOKINGS]],
    ['create', [...OFFERS, ...DATES, ...BOOKINGS]],
    ['reschedule', [...OFFERS, ...DATES]],
    ['link', OFFERS],
    ['update', OFFERS],
    ['book', [...OFFERS, ...DATES, ...BOOKINGS]],
    ['cancelBooking', [...OFFERS, ...DATES, ...BOOKINGS]],
  ] as const)('after %s: %j', async (action, expected) => {
    const client = seeded();
    await refetchInterviewsAfter(client, action);
    expect(stale(client)).toEqual([...expected].sort());
  });
});

describe('message refetch rule (spec §4 Messages)', () => {
  it('after adding, changing or reading a message: messages, unread counts, the case and the lists', async () => {
    const client = seeded();
    await refetchAfterMessageAction(client, 'case-1');
    expect(stale(client)).toEqual(
      ['cases/detail/case-1', 'cases/list/[object Object]', 'messages/conversation/case-1', 'messages/conversation/case-2', 'messages/my-cases', 'messages/unread'].sort(),
    );
  });
});

describe('case change rule', () => {
  it('after a case field or member change: the case, the lists and my case picker', async () => {
    const client = seeded();
    await refetchAfterCaseChange(client, 'case-1');
    expect(stale(client)).toEqual(['cases/detail/case-1', 'cases/list/[object Object]', 'messages/my-cases'].sort());
  });
});

describe('workflow task rule (spec §4 Workflow tasks)', () => {
  it('after a task is completed the due task is removed at once and workflow data is refetched', async () => {
    const client = seeded();
    const row = (id: string) => ({ id, name: id, taskDefinitionKey: 'k', candidateGroups: [], assignee: null, due: null, priority: 50, created: '', caseId: 'case-1', caseByCaseId: null });
    client.setQueryData(workflowKeys.due(), [row('t1'), row('t2')]);
    client.setQueryData(workflowKeys.caseTasks('case-1'), [row('t1')]);
    client.setQueryData(workflowKeys.processes(), 'kept');
    await refetchAfterTaskCompleted(client, 't1');
    expect(client.getQueryData<{ id: string }[]>(workflowKeys.due())?.map((t) => t.id)).toEqual(['t2']);
    expect(client.getQueryData<{ id: string }[]>(workflowKeys.caseTasks('case-1'))).toEqual([]);
    expect(stale(client).filter((k) => k.startsWith('workflow'))).toEqual(['workflow/case/case-1', 'workflow/due', 'workflow/processes']);
    expect(stale(client).filter((k) => !k.startsWith('workflow'))).toEqual([]);
  });
});
