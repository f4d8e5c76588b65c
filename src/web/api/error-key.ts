/**
 * Which catalog entry (`errorCodes.<key>`) explains a failed request. GraphQL errors carry the
 * SQLSTATE as their code and, for a broken constraint, its name; rules raised by our SQL
 * functions carry their own code (NOT_INVOLVED, SENT_MESSAGE_IMMUTABLE, NOT_FOUND).
 */
import type { ApiError } from './client';

const BY_CONSTRAINT: Record<string, string> = {
  body_not_empty: 'body_required',
  sent_has_recipients: 'recipients_required',
  case_members_one_patient_idx: 'one_patient',
  case_members_case_id_user_id_key: 'already_member',
  stage_format: 'stage_format',
  interview_offers_no_overlap: 'slot_overlaps',
  interview_offers_time_slot_bounds: 'end_before_start',
  interview_offers_time_slot_length: 'slot_too_long',
  interview_offers_external_link_format: 'link_invalid',
  interview_bookings_one_active_per_offer: 'slot_taken',
};

const BY_RULE: Record<string, string> = {
  NOT_INVOLVED: 'not_involved',
  SENT_MESSAGE_IMMUTABLE: 'sent_message_locked',
  NOT_FOUND: 'message_not_found',
  // Interview scheduling (db/migrations/0012-interviews.sql)
  SLOT_TAKEN: 'slot_taken',
  SLOT_OVERLAPS: 'slot_overlaps',
  SLOT_IN_PAST: 'slot_in_past',
  SLOT_TOO_LONG: 'slot_too_long',
  SLOT_INCOMPLETE: 'slot_incomplete',
  END_BEFORE_START: 'end_before_start',
  OFFER_NOT_FOUND: 'offer_not_found',
  BOOKING_NOT_FOUND: 'booking_not_found',
  NOT_OWNER: 'not_offer_owner',
  NOT_INTERVIEWER: 'not_interviewer',
  NOT_ADOPTIBLE: 'not_adoptible',
  OFFER_CANCELED: 'offer_canceled',
  OFFER_NOT_CANCELED: 'offer_not_canceled',
  BOOKING_CANCELED: 'booking_canceled',
  ALREADY_BOOKED: 'already_booked',
  NO_PATIENT: 'no_patient',
  LINK_INVALID: 'link_invalid',
  NOT_STARTED: 'not_started',
  SERIES_LENGTH: 'series_length',
  TIME_ZONE_UNKNOWN: 'time_zone_unknown',
  // Stage gates (db/migrations/0122-stage-gates.sql): the real reason, in kind words (issue 25)
  SCREENING_NOT_COMPLETE: 'screening_not_complete',
  BOOKING_CLOSED: 'booking_closed',
  PATH_FINISHED: 'path_finished',
  PATH_ENDED_SCREENING: 'path_ended_screening',
  PATH_ENDED_INTERVIEW: 'path_ended_interview',
  PATH_ENDED_MISSED_INTERVIEW: 'path_ended_missed_interview',
  PATH_ENDED_TEAM: 'path_ended_team',
  PATH_ENDED_DROPOUT: 'path_ended_dropout',
};

const BY_CODE: Record<string, string> = {
  '42501': 'forbidden',
  '23505': 'duplicate',
  '23514': 'check_violation',
  '23502': 'check_violation',
  '23503': 'reference_missing',
  '22001': 'too_long',
};

/** Every key errorKey can produce besides a code passed through, for the catalog test. */
export const ERROR_KEYS = [...new Set([...Object.values(BY_CONSTRAINT), ...Object.values(BY_RULE), ...Object.values(BY_CODE), 'rule_refused', 'invalid_value'])];

export function errorKey(error: Pick<ApiError, 'code' | 'message' | 'body'>): string {
  const constraint = typeof error.body?.constraint === 'string' ? error.body.constraint : '';
  if (BY_CONSTRAINT[constraint]) return BY_CONSTRAINT[constraint];
  if (BY_RULE[error.code]) return BY_RULE[error.code]!;
  if (error.code === 'P0001') return 'rule_refused';
  if (BY_CODE[error.code]) return BY_CODE[error.code]!;
  if (/^22/.test(error.code)) return 'invalid_value';
  return error.code;
}
