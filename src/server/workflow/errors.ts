/** Errors of the Camunda REST subset: a status and Camunda's body {type, message}. */
export class CamundaError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }

  get body(): { type: string; message: string } {
    return { type: this.type, message: this.message };
  }
}

export const invalidRequest = (message: string) => new CamundaError(400, 'InvalidRequestException', message);
export const notFound = (message: string) => new CamundaError(404, 'RestException', message);
export const forbidden = (message: string) => new CamundaError(403, 'AuthorizationException', message);
