/**
 * The workflow messages the web client sends after an offer changed (spec §4): "offerCanceled"
 * after a cancel, "offerRescheduled" after a reschedule or update, correlated by the offer id,
 * through POST /api/workflow/rest/message (spec §7, Camunda's message API; `all: true`, so a
 * message no process waits for is no error). A failed call shows a browser alert with the
 * status and the response body (spec §8).
 */
import { readToken } from '../../api/client';
import { IDEMPOTENCY_HEADER, newIdempotencyKey } from '../../api/idempotency';

export const WORKFLOW_MESSAGE_PATH = '/api/workflow/rest/message';

export interface WorkflowMessage {
  messageName: string;
  correlationKeys: Record<string, { value: string; type: 'String' }>;
  all: boolean;
  resultEnabled: boolean;
}

export function offerMessage(messageName: 'offerCanceled' | 'offerRescheduled', offerId: string): WorkflowMessage {
  return { messageName, correlationKeys: { offerId: { value: offerId, type: 'String' } }, all: true, resultEnabled: true };
}

/** Sends the message; success is 200 or 204, anything else is alerted as the spec says. */
export async function sendOfferMessage(messageName: 'offerCanceled' | 'offerRescheduled', offerId: string): Promise<boolean> {
  const token = readToken();
  let response: Response;
  try {
    response = await fetch(WORKFLOW_MESSAGE_PATH, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        [IDEMPOTENCY_HEADER]: newIdempotencyKey(),
      },
      body: JSON.stringify(offerMessage(messageName, offerId)),
    });
  } catch (error) {
    window.alert(String(error));
    return false;
  }
  if (response.status === 200 || response.status === 204) return true;
  window.alert(`${response.status} ${await response.text()}`);
  return false;
}
