import { prepareTemplate, type TestDatabaseKind } from './databases';

/** Builds the migrated template database once per test run and project (see databases.ts). */
export default async function setup(project: { name: string }): Promise<void> {
  await prepareTemplate(project.name as TestDatabaseKind);
}
