import { describe, expect, it } from 'vitest';
import { CASE_LIST_QUERY, PAGED_CASES_QUERY, SHORT_PAGED_CASES_QUERY } from '../../domain/case-list-operations';
import { documentText, operationName } from '../../web/api/graphql';
import { CaseListWithMessageCounts, CaseWithMessages, PagedCases, ShortPagedCases } from '../../web/features/cases/api';
import { CASE_WITH_MESSAGES_QUERY } from '../../domain/case-operations';
import { answerMediaType, COMPILED_LISTS } from './compiled-lists';

describe('the compiled case lists', () => {
  it('are the texts the web app sends, as written, under their operation names', () => {
    const sent = [
      [PagedCases, PAGED_CASES_QUERY],
      [ShortPagedCases, SHORT_PAGED_CASES_QUERY],
      [CaseListWithMessageCounts, CASE_LIST_QUERY],
    ] as const;
    for (const [document, text] of sent) {
      expect(documentText(document)).toBe(text);
      expect(COMPILED_LISTS.get(documentText(document))?.operationName).toBe(operationName(document));
    }
    expect(documentText(CaseWithMessages)).toBe(CASE_WITH_MESSAGES_QUERY);
    expect(COMPILED_LISTS.get(CASE_WITH_MESSAGES_QUERY)?.operationName).toBe('CaseWithMessages');
    expect(COMPILED_LISTS.size).toBe(4);
  });

  it('take the documents variables with their defaults, and nothing doubtful', () => {
    const paged = COMPILED_LISTS.get(PAGED_CASES_QUERY)!;
    const list = COMPILED_LISTS.get(CASE_LIST_QUERY)!;
    expect(paged.values({})).toEqual([false, null, null, 200, 0]);
    expect(paged.values({ filterUnassigned: true, search: 'Haddad', stage: 'therapy', first: 1, offset: 9800 })).toEqual([true, 'Haddad', 'therapy', 1, 9800]);
    expect(list.values({ search: null, stage: null })).toEqual([null, null, 100, 0]);
    for (const variables of [
      { first: 0 },
      { first: null },
      { first: 1.5 },
      { first: '10' },
      { first: 2 ** 31 },
      { offset: -1 },
      { search: 'a\u0000' },
      { search: 5 },
      { filterUnassigned: null },
      { filterUnassigned: 'true' },
      { other: 1 },
    ]) {
      expect(paged.values(variables), JSON.stringify(variables)).toBeUndefined();
    }
    expect(list.values({ filterUnassigned: false })).toBeUndefined();
  });

  it('answer with the media type grafserv would choose, or leave the choice to it', () => {
    expect(answerMediaType(undefined)).toBe('application/graphql-response+json;charset=utf-8');
    expect(answerMediaType('*/*')).toBe('application/graphql-response+json;charset=utf-8');
    expect(answerMediaType('application/graphql-response+json')).toBe('application/graphql-response+json;charset=utf-8');
    expect(answerMediaType('application/json')).toBe('application/json;charset=utf-8');
    expect(answerMediaType('application/json, */*;q=0.5')).toBeUndefined();
    expect(answerMediaType('text/html')).toBeUndefined();
  });
});
