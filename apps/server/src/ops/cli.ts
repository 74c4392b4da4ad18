import path from 'node:path';
import { ConfigError, loadConfig } from '../config/bootstrap';
import { backupDataDir } from './backup';
import { OpsError } from './data-dir';
import { restoreDataDir } from './restore';

/**
 * `npm run db:backup -- <file>` and `npm run db:restore -- <file>`: the data directory comes from the same
 * bootstrap config as the server's (CC_DATA_DIR, config.yaml, CC_DATABASE_URL). A relative file name is taken from
 * the directory the command was typed in (npm runs scripts from the project root).
 */
const USAGE = 'usage: npm run db:backup -- <file.tar.gz>   |   npm run db:restore -- <file.tar.gz>';

async function run(command: string | undefined, file: string | undefined): Promise<number> {
  if ((command !== 'backup' && command !== 'restore') || !file) {
    console.error(USAGE);
    return 2;
  }
  const archive = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  if (command === 'backup') {
    const { file: written, bytes, manifest } = await backupDataDir(loadConfig(), archive);
    console.log(
      `Backup written to ${written} (${bytes} bytes): ${JSON.stringify(manifest.counts)}, ` +
        `${manifest.uploads} uploaded files, ${manifest.data_files.join(', ') || 'no other files'}.`,
    );
    return 0;
  }
  const restored = await restoreDataDir(process.env, archive);
  console.log(
    `Restored into ${restored.dataDir} (database ${restored.database}): ${JSON.stringify(restored.counts)}, ` +
      `${restored.uploads} uploaded files. Start the server with the same CC_DATA_DIR.`,
  );
  return 0;
}

try {
  process.exitCode = await run(process.argv[2], process.argv[3]);
} catch (e) {
  if (!(e instanceof OpsError || e instanceof ConfigError)) throw e;
  console.error(e.message);
  process.exitCode = 1;
}
