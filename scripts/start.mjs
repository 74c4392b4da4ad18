// `npm start`: runs the compiled server (apps/server/dist/main.js, plain JavaScript: no TypeScript tooling at run
// time). What is missing or older than its sources is built first: the server bundle (scripts/build-server.mjs)
// and the web app (vite). On an install without dev dependencies (`npm ci --omit=dev`) nothing can be built, so a
// built tree is required: `npm ci && npm run build` first, then the dev dependencies may go.
// `node scripts/start.mjs <entry> …` does the same for the command-line tools (server bundle only): migrate-cli
// (`npm run db:migrate`), ops-cli (`npm run db:backup` / `db:restore`), import-predecessor.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const entry = process.argv[2] ?? 'main';
const ENTRIES = ['main', 'migrate-cli', 'ops-cli', 'import-predecessor'];
if (!ENTRIES.includes(entry)) {
  console.error(`Unknown entry "${entry}" (${ENTRIES.join(', ')}).`);
  process.exit(2);
}

/** Newest modification time (ms) of the files under these paths; 0 when none exists. */
function newestMtime(paths) {
  let newest = 0;
  const visit = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(path.join(p, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of paths) visit(path.join(root, p));
  return newest;
}

/**
 * One build output: missing → build (or stop with instructions when the build tools are not installed);
 * older than its sources → rebuild when the tools are there, else run the existing build with a warning.
 */
function ensureBuilt({ name, output, sources, tool, build }) {
  const out = path.join(root, output);
  const missing = !existsSync(out);
  if (!missing && statSync(out).mtimeMs >= newestMtime(sources)) return;
  const haveTools = existsSync(path.join(root, tool));
  if (!haveTools) {
    if (!missing) {
      console.warn(
        `Note: ${output} is older than its sources; run \`npm ci && npm run build\` to rebuild it.`,
      );
      return;
    }
    console.error(
      `${output} is missing and the build tools are not installed (an install without dev dependencies?).\n` +
        'Build once with the dev dependencies: `npm ci && npm run build`; then `npm ci --omit=dev && npm start` ' +
        'runs the built files.',
    );
    process.exit(1);
  }
  console.log(
    missing ? `Building the ${name} (first start)…` : `Rebuilding the ${name} (its sources changed)…`,
  );
  const built = spawnSync(build[0], build.slice(1), { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const contracts = 'packages/contracts/src';
if (entry === 'main') {
  ensureBuilt({
    name: 'web app',
    output: 'apps/web/dist/index.html',
    sources: ['apps/web/src', 'apps/web/index.html', 'apps/web/public', 'apps/web/vite.config.ts', contracts],
    tool: 'node_modules/vite/package.json',
    build: [npm, 'run', 'build', '-w', '@cc/web'],
  });
}
ensureBuilt({
  name: 'server',
  output: `apps/server/dist/${entry}.js`,
  sources: ['apps/server/src', contracts, 'packages/upstream-emulator/src'],
  tool: 'node_modules/esbuild/package.json',
  build: [process.execPath, path.join(root, 'scripts/build-server.mjs')],
});

// Without --enable-source-maps: loading the map costs start-up time and ~80 MB of memory; NODE_OPTIONS turns it on.
const server = spawn(
  process.execPath,
  [
    ...(entry === 'main' ? SERVER_NODE_FLAGS : []),
    path.join(root, 'apps/server/dist', `${entry}.js`),
    ...process.argv.slice(3),
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
