/**
 * Turns the committed schema.graphql into the type-level introspection gql.tada reads
 * (src/web/api/graphql-env.d.ts). Shared by `npm run schema:graphql` (which writes the file)
 * and the unit test that fails when the written file is stale.
 */
import { buildSchema, introspectionFromSchema } from 'graphql';
import { minifyIntrospection, outputIntrospectionFile } from '@gql.tada/internal';

export function graphqlEnvSource(sdl: string): string {
  const introspection = minifyIntrospection(introspectionFromSchema(buildSchema(sdl)));
  return outputIntrospectionFile(introspection, { fileType: '.d.ts', shouldPreprocess: true });
}
