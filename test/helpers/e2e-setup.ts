import { prepareTemplate } from './databases';
import { buildWeb, webBuildIsStale } from '../../src/server/web/static';

/** End-to-end runs need the built web app and the migrated template database. */
export default async function setup(): Promise<void> {
  if (webBuildIsStale()) await buildWeb();
  await prepareTemplate('pglite');
}
