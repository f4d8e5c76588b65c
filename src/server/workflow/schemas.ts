/**
 * JSON schemas of the Camunda REST bodies (spec §7 and the Camunda 7 reference), declared once
 * and attached to the routes in rest.ts. They check the shape; the typed variables inside are
 * then checked by parseTypedVariables (its messages name the variable and the type). Unknown
 * properties are let through as Camunda's REST API does, except those that would change what a
 * call does and that Sanad does not support (they are refused by name in rest.ts).
 */

/** {name: {value, type, valueInfo}}: each entry an object; the values are checked later. */
const variables = { type: ['object', 'null'], additionalProperties: { type: 'object' } } as const;
const optionalText = (maxLength: number) => ({ type: ['string', 'null'], maxLength }) as const;

export const startBody = {
  type: 'object',
  properties: {
    businessKey: optionalText(255),
    variables,
    startInstructions: { type: ['array', 'null'] },
    withVariablesInReturn: { type: ['boolean', 'null'] },
    skipCustomListeners: { type: ['boolean', 'null'] },
    skipIoMappings: { type: ['boolean', 'null'] },
  },
} as const;

export const messageBody = {
  type: 'object',
  required: ['messageName'],
  properties: {
    messageName: { type: 'string', minLength: 1, maxLength: 100 },
    businessKey: optionalText(255),
    processInstanceId: optionalText(100),
    correlationKeys: variables,
    localCorrelationKeys: variables,
    processVariables: variables,
    processVariablesLocal: variables,
    all: { type: ['boolean', 'null'] },
    resultEnabled: { type: ['boolean', 'null'] },
    variablesInResultEnabled: { type: ['boolean', 'null'] },
    tenantId: optionalText(100),
    withoutTenantId: { type: ['boolean', 'null'] },
  },
} as const;

export const signalBody = {
  type: 'object',
  properties: {
    name: optionalText(100),
    executionId: optionalText(200),
    variables,
    tenantId: optionalText(100),
    withoutTenantId: { type: ['boolean', 'null'] },
    resultEnabled: { type: ['boolean', 'null'] },
  },
} as const;

/** POST /task/{id}/submit-form, /task/{id}/complete and /execution/{id}/signal: optional {variables}. */
export const variablesBody = {
  type: ['object', 'null'],
  properties: {
    variables,
    withVariablesInReturn: { type: ['boolean', 'null'] },
  },
} as const;

export const dueDateBody = {
  type: 'object',
  required: ['duedate'],
  properties: { duedate: { type: 'string', maxLength: 40 }, cascade: { type: ['boolean', 'null'] } },
} as const;

export const retriesBody = {
  type: 'object',
  required: ['retries'],
  properties: { retries: { type: 'integer', minimum: 0, maximum: 1000 } },
} as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 200 } },
} as const;

export const keyParams = {
  type: 'object',
  required: ['key'],
  properties: { key: { type: 'string', maxLength: 200 } },
} as const;

export const deleteQuery = {
  type: 'object',
  properties: {
    skipCustomListeners: { type: 'string', enum: ['true', 'false'] },
    skipIoMappings: { type: 'string', enum: ['true', 'false'] },
    skipSubprocesses: { type: 'string', enum: ['true', 'false'] },
    failIfNotExists: { type: 'string', enum: ['true', 'false'] },
  },
} as const;
