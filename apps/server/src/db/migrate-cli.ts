import { loadConfig } from '../config/bootstrap';
import { openDb } from './client';
import { migrateToLatest } from './migrate';

/** `npm run db:migrate`: applies pending migrations to the configured database. */
const config = loadConfig();
const handle = openDb({ databaseUrl: config.data.database_url, dataDir: config.data.data_dir });
try {
  const applied = await migrateToLatest(handle);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to migrate.');
} finally {
  await handle.close();
}
