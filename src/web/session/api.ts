/** The session's GraphQL read (spec §7 AllCases): the cases I may see; the current case defaults to the first. */
import { graphql, request } from '../api/graphql';

export interface CaseSummary {
  id: string;
  shortId: string;
  stage: string;
}

export const AllCases = graphql(`query AllCases { allCasesList(orderBy: CREATED_AT_ASC) { id shortId stage } }`);

export async function loadCases(): Promise<CaseSummary[]> {
  const data = await request(AllCases);
  return (data.allCasesList ?? []).map((c) => ({ id: c.id, shortId: c.shortId ?? '', stage: c.stage }));
}
