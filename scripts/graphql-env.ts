/**
 * Writes src/web/api/graphql-env.d.ts from schema.graphql, so the web app's GraphQL documents
 * get their result and variable types from the contract. Run by `npm run schema:graphql`
 * after the schema is printed; run alone with `npx tsx scripts/graphql-env.ts`.
 */
import fs from 'node:fs';
import { graphqlEnvSource } from '../src/web/api/graphql-env-source';

const target = 'src/web/api/graphql-env.d.ts';
fs.writeFileSync(target, graphqlEnvSource(fs.readFileSync('schema.graphql', 'utf8')));
console.log(`wrote ${target}`);
