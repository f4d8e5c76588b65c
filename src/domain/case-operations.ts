/**
 * The GraphQL text of the staff case screen (spec §7 CaseWithMessages), shared by the web app
 * (which sends it, src/web/features/cases/api.ts) and the server, which answers exactly this text
 * from one SQL function (src/server/graphql/compiled-lists.ts, migration 0108,
 * docs/decisions/0030-case-list-read-path.md).
 *
 * As for the case lists (src/domain/case-list-operations.ts): the server recognises the operation
 * by its exact text, so the fragments (CaseFields, MessageFields, PersonFields) are written out,
 * and each selection has its twin in the SQL of migration 0108; the equality tests
 * (test/integration/compiled-case.int.test.ts) compare both answers byte for byte.
 */

/** A message of the case: MessageFields of src/web/features/messages/api.ts, written out. */
const MESSAGE = `id caseId subject body createdAt sentAt senderId fromSystem isUnread isFavorite
        toTherapists toSupervisors toSupporters toCounselors toInterviewers toPatients
        sender: userBySenderId { id username alias }` as const;

export const CASE_WITH_MESSAGES_QUERY = `query CaseWithMessages($id: UUID!) {
  caseById(id: $id) {
    id shortId createdAt updatedAt newMessages
    title description diagnosis emergencyContact stage isDropout dropoutReason askForPostIfDroppedOut excludeFromAnalysis reasonForExclusion
    patient {
      id username alias phone gender
      excluded excludedForBdiGte45 excludedForLackOfEmail excludedForLackOfInternetAccess excludedDuringInterview
      excludedForMissingInterview excludedForMinorAge excludedForNoTraumaOrLowBdi excludedForUpcomingTreatment
      isCounselingOnly registeredForCounseling
    }
    members: caseMembersByCaseIdList(orderBy: CREATED_AT_ASC) {
      id userId createdAt actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient
      user: userByUserId { id username alias gender phone email lastLogin nrOfLogins }
    }
    myInvolvement { id favoriteMessage actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient }
    unsentMessagesList {
      ${MESSAGE}
    }
    sentMessagesList {
      ${MESSAGE}
    }
  }
}` as const;
