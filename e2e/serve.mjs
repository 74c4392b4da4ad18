// Starts the real product for the end-to-end suite: builds the web app when apps/web/dist is missing and the
// server bundle every time (esbuild, well under a second, so the suite never runs a stale one), then runs the
// compiled server, as `npm start` does, on CC_PORT (8123) with a fresh temporary data dir and a known admin password. With no upstream
// credentials configured the server runs its in-process upstream emulator ("demo mode").
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

if (!existsSync(path.join(root, 'apps/web/dist/index.html'))) {
  console.log('[e2e] building the web app');
  const built = spawnSync(npm, ['run', 'build', '-w', '@cc/web'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

console.log('[e2e] building the server');
const serverBuilt = spawnSync(process.execPath, [path.join(root, 'scripts/build-server.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (serverBuilt.status !== 0) process.exit(serverBuilt.status ?? 1);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cc-e2e-'));
// Where this run keeps its data, for specs that seed the database directly (helpers.ts `e2eDatabase`).
const pointer = path.join(os.tmpdir(), `cc-e2e-${process.env.CC_PORT ?? '8123'}.json`);
writeFileSync(pointer, JSON.stringify({ dataDir }));
const env = {
  ...process.env,
  CC_HOST: '127.0.0.1',
  CC_PORT: process.env.CC_PORT ?? '8123',
  CC_DATA_DIR: dataDir,
  CC_INITIAL_ADMIN_PASSWORD: 'admin-pass-123',
  CC_LOG_LEVEL: process.env.CC_LOG_LEVEL ?? 'WARNING',
};
delete env.CC_DATABASE_URL;
delete env.CC_REDIS_URL;

// Source maps on here: a server error in the suite's output points at the TypeScript line.
const server = spawn(
  process.execPath,
  ['--enable-source-maps', path.join(root, 'apps/server/dist/main.js')],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);

const cleanup = () => {
  try {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(pointer, { force: true });
  } catch {
    // best effort
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.kill(signal);
  });
}
server.on('exit', (code, signal) => {
  cleanup();
  process.exit(code ?? (signal ? 0 : 1));
});
