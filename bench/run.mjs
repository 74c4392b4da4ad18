// `npm run bench`: every benchmark, one after another (they print their own figures).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = [
  ['cold start (npm start → /api/healthz)', [process.execPath, 'bench/cold-start.mjs']],
  ['relay (server)', [process.execPath, '--import', 'tsx', 'bench/relay.ts']],
  ['conversation search (SQLite, PostgreSQL)', [process.execPath, '--import', 'tsx', 'bench/search.ts']],
  ['long conversation (web, Chromium)', [process.execPath, 'bench/long-conversation.mjs']],
  [
    'client (streaming, long conversation, first load; real server, Chromium)',
    [process.execPath, 'bench/client.mjs'],
  ],
  [
    'statistics (1,000,000 rows, SQLite and PostgreSQL)',
    [process.execPath, '--import', 'tsx', 'bench/stats.ts'],
  ],
];
let failed = 0;
for (const [name, [cmd, ...args]] of runs) {
  console.log(`\n=== ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
