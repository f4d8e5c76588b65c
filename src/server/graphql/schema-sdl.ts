/** The GraphQL schema as SDL, sorted, for the committed contract file schema.graphql. */
import type pg from 'pg';
import { printSchema, lexicographicSortSchema } from 'postgraphile/graphql';
import { createGraphql } from './preset';
import { repoPath } from '../paths';

export const SCHEMA_FILE = repoPath('schema.graphql');

export async function schemaSdl(pool: pg.Pool): Promise<string> {
  const pgl = createGraphql({ pool, graphiql: false, maxRequestLength: 100_000 });
  try {
    const schema = await pgl.getSchema();
    return `${printSchema(lexicographicSortSchema(schema))}\n`;
  } finally {
    await pgl.release();
  }
}
