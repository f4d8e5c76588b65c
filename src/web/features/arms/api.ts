/**
 * Arms own their content (issue 27 item 3, migration 0220): the worksheets a case may use (its
 * arm's, and those a therapist sent from another arm), the therapist's out-of-arm send with its
 * reason, and the coordinators' contamination report per arm. The database decides all three.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { isWorksheetCode, type WorksheetCode } from '../../../domain/worksheets';
import { graphql, request } from '../../api/graphql';

export const armKeys = {
  all: ['arms'] as const,
  case: (caseId: string) => ['arms', 'case', caseId] as const,
  letter: (letterId: string) => ['arms', 'letter', letterId] as const,
  contamination: ['arms', 'contamination'] as const,
};

export const CaseWorksheetCodes = graphql(`
  query CaseWorksheetCodes($caseId: UUID!) {
    caseWorksheetCodesList(caseId: $caseId) { worksheet inArm week }
  }
`);

export interface CaseSheet {
  worksheet: WorksheetCode;
  /** False for a sheet a therapist sent from another arm. */
  inArm: boolean;
}

/** The worksheets the patient of a case may use, the arm's first (by week), then those sent in. */
export const caseSheetsQuery = (caseId: string) =>
  queryOptions({
    queryKey: armKeys.case(caseId),
    queryFn: async ({ signal }): Promise<CaseSheet[]> => {
      const data = await request(CaseWorksheetCodes, { caseId }, { signal });
      return (data.caseWorksheetCodesList ?? []).flatMap((row) =>
        row && isWorksheetCode(row.worksheet) ? [{ worksheet: row.worksheet, inArm: row.inArm === true }] : [],
      );
    },
  });

export const SendOutOfArmWorksheet = graphql(`
  mutation SendOutOfArmWorksheet($caseId: UUID!, $worksheet: String!, $reason: String!) {
    sendOutOfArmWorksheet(input: { caseId: $caseId, worksheet: $worksheet, reason: $reason }) { outOfArmSend { id } }
  }
`);

export async function sendOutOfArmWorksheet(caseId: string, worksheet: WorksheetCode, reason: string): Promise<void> {
  await request(SendOutOfArmWorksheet, { caseId, worksheet, reason });
}

export const LetterOtherArm = graphql(`
  query LetterOtherArm($letterId: UUID!) {
    letterOtherArm(letterId: $letterId)
  }
`);

/**
 * The arm a letter's template belongs to when it is not the case's arm (0270), else null: the
 * letter screen then asks for the reason before sending, as the database requires.
 */
export const letterOtherArmQuery = (letterId: string) =>
  queryOptions({
    queryKey: armKeys.letter(letterId),
    queryFn: async ({ signal }): Promise<string | null> => (await request(LetterOtherArm, { letterId }, { signal })).letterOtherArm ?? null,
  });

export const ArmContamination = graphql(`
  query ArmContamination {
    armContaminationList { arm randomized sends cases worksheets letters }
  }
`);

export interface ContaminationRow {
  arm: string;
  randomized: number;
  sends: number;
  cases: number;
  worksheets: number;
  letters: number;
}

export const contaminationQuery = () =>
  queryOptions({
    queryKey: armKeys.contamination,
    queryFn: async ({ signal }): Promise<ContaminationRow[]> => {
      const data = await request(ArmContamination, {}, { signal });
      return (data.armContaminationList ?? []).flatMap((r) =>
        r && r.arm ? [{ arm: r.arm, randomized: r.randomized ?? 0, sends: r.sends ?? 0, cases: r.cases ?? 0, worksheets: r.worksheets ?? 0, letters: r.letters ?? 0 }] : [],
      );
    },
  });

export const refetchAfterArmSend = (client: QueryClient, caseId: string) =>
  Promise.all([client.invalidateQueries({ queryKey: armKeys.case(caseId) }), client.invalidateQueries({ queryKey: armKeys.contamination })]);
