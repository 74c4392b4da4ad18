// `npm run bench`: every benchmark, one after another (they print their own figures).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = [
  ['cold start (npm start → /api/healthz)', [process.execPath, 'bench/cold-start.mjs']],
  ['relay vs direct reads (200 … 2,000 streams)', [process.execPath, 'bench/relay.mjs']],
  [
    'delta frames of one long answer (encoder, in-process)',
    [process.execPath, '--import', 'tsx', 'bench/long-answer.ts'],
  ],
  [
    'admin lists (10,000 users, 100,000 conversations)',
    [process.execPath, '--import', 'tsx', 'bench/admin-lists.ts'],
  ],
  ['conversation search (SQLite, PostgreSQL)', [process.execPath, '--import', 'tsx', 'bench/search.ts']],
  ['long conversation (web, Chromium)', [process.execPath, 'bench/long-conversation.mjs']],
  [
    'conversation list, 1,000 conversations (web, Chromium)',
    [process.execPath, 'bench/conversation-list.mjs'],
  ],
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
