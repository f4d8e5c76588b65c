/** Errors of the Camunda REST subset: a status and Camunda's body {type, message}. */
export class CamundaError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string,
    message: string,
    /** A code a screen can say in the person's language (e.g. SAFETY_TASK_NEEDS_CALL_OR_REASON). */
    readonly code?: string,
    /** What a screen needs to act on the refusal (the act and record of a missing signature). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  get body(): { type: string; message: string; code?: string; details?: Record<string, unknown> } {
    const body: { type: string; message: string; code?: string; details?: Record<string, unknown> } = { type: this.type, message: this.message };
    if (this.code) body.code = this.code;
    if (this.details) body.details = this.details;
    return body;
  }
}

export const invalidRequest = (message: string, code?: string) => new CamundaError(400, 'InvalidRequestException', message, code);
export const notFound = (message: string) => new CamundaError(404, 'RestException', message);
export const forbidden = (message: string) => new CamundaError(403, 'AuthorizationException', message);
