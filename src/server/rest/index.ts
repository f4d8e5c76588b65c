/**
 * The REST collections (`/api/<collection>`): register them with `registerRestCollections`,
 * describe each with `defineCollection`. See docs/REST.md.
 */
export { registerRestCollections, REST_PATH, MAX_ROWS_PER_WRITE } from './routes';
export { defineCollection, COLUMN_TYPES } from './registry';
export type { Collection, CollectionRegistry, ColumnType, OrderSpec, RestMethod, Row, RowOf, WriteContext, WritePlan } from './registry';
export { RestError } from './errors';
