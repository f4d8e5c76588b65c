/**
 * Every GraphQL document the web app declares (each feature's api.ts) is valid against the
 * committed schema.graphql, carries an operation name, and the spec §7 operations the app
 * uses keep their names. The typed environment gql.tada reads is the one generated from
 * that schema (npm run schema:graphql writes both).
 */
import fs from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, documentText, operationName } from './graphql';
import { graphqlEnvSource } from './graphql-env-source';

// Importing the features' api modules declares their documents.
import.meta.glob(['../features/*/api.ts', '../session/api.ts'], { eager: true });

const sdl = fs.readFileSync('schema.graphql', 'utf8');
const schema = buildSchema(sdl);
const documents = [...DOCUMENTS];

/** Spec §7 names of operations this app sends. */
const SPEC_NAMES = [
  'AllCases',
  'CaseListWithMessageCounts',
  'CaseWithMessages',
  'ShortPagedCases',
  'PagedCases',
  'DetailedCases',
  'AllMessagesInCase',
  'AvailableInterviewDates',
  'InterviewOffers',
  'queryBookingInfoByCaseId',
  'CreateCaseMessage',
  'UpdateCaseMessageById',
  'DeleteCaseMessageById',
  'UpdateNewMessagesAfter',
  'UpdateFavoriteMessage',
  'BookInterview',
  'CancelInterviewBooking',
  'SetExternalLink',
  'AdoptOffer',
  'CancelOffer',
  'UncancelOffer',
  'CreateOffer',
  'UpdateOffer',
  'RescheduleOffer',
];

describe('GraphQL documents', () => {
  it('finds the documents of the features', () => {
    expect(documents.length).toBeGreaterThan(20);
  });

  it.each(documents.map((d) => [operationName(d) ?? '(unnamed)', d] as const))('%s is valid against schema.graphql', (_name, document) => {
    const errors = validate(schema, parse(documentText(document)));
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('every operation is named, and each name is used once', () => {
    const names = documents.map(operationName);
    expect(names.filter((n) => !n)).toEqual([]);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('the spec §7 operations keep their names', () => {
    const names = new Set(documents.map(operationName));
    expect(SPEC_NAMES.filter((n) => !names.has(n))).toEqual([]);
  });

  it('the typed environment is generated from the committed schema', () => {
    expect(fs.readFileSync('src/web/api/graphql-env.d.ts', 'utf8')).toBe(graphqlEnvSource(sdl));
  });
});
