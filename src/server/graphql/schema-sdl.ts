/** The GraphQL schema as SDL, sorted, for the committed contract file schema.graphql. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { printSchema, lexicographicSortSchema } from 'postgraphile/graphql';
import { createGraphql } from './preset';

export const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../schema.graphql');

export async function schemaSdl(pool: pg.Pool): Promise<string> {
  const pgl = createGraphql({ pool, graphiql: false, maxRequestLength: 100_000 });
  try {
    const schema = await pgl.getSchema();
    return `${printSchema(lexicographicSortSchema(schema))}\n`;
  } finally {
    await pgl.release();
  }
}
