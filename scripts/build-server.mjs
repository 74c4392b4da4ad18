// `npm run build` (server part): bundles the server with esbuild into apps/server/dist, one ES module per entry:
// main.js (the server), migrate-cli.js (`npm run db:migrate`), ops-cli.js (`db:backup` / `db:restore`) and
// import-predecessor.js (`npm run import:predecessor`). One file starts much faster than thousands of
// modules resolved one by one. The workspace packages (@cc/contracts, @cc/upstream-emulator: their package entries
// are TypeScript sources) and the npm packages are compiled in, except those in EXTERNAL, which are imported from
// node_modules at run time. Type checking is `npm run typecheck`'s job; this only transpiles.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST = path.join(root, 'apps/server/dist');

/**
 * Packages left out of the bundle, because they need their own files at run time: native addons
 * (better-sqlite3, @node-rs/argon2), packages that read files next to their code (@fastify/swagger-ui serves its
 * static folder, @fastify/swagger reads its package.json, pino starts transports from its own files) and the
 * optional pino-pretty. All are runtime "dependencies" of apps/server, so `npm ci --omit=dev` installs them.
 */
const EXTERNAL = [
  'better-sqlite3',
  '@node-rs/argon2',
  '@fastify/swagger-ui',
  '@fastify/swagger',
  'pino',
  'pino-pretty',
];
/** Optional accelerators that pg and ws load only when installed (inside try/catch); never installed here. */
const OPTIONAL = ['pg-native', 'bufferutil', 'utf-8-validate'];

/** The package a bare import names: `pino`, `@fastify/static`, `image-size` for `image-size/fromFile`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isBare = (specifier) => !/^(\.|\/|node:)/.test(specifier);

const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = packageOf(args.path);
      return EXTERNAL.includes(name) || OPTIONAL.includes(name)
        ? { path: args.path, external: true }
        : undefined;
    });
  },
};

/**
 * Bundled CommonJS packages call `require` and read `__dirname`/`__filename`, which an ES module does not have:
 * defined once at the top of each output file (`__dirname` is then the dist folder; the packages that need their
 * own folder are EXTERNAL).
 */
const COMMONJS_GLOBALS = [
  "import { createRequire as __ccCreateRequire } from 'node:module';",
  "import { fileURLToPath as __ccFileURLToPath } from 'node:url';",
  "import { dirname as __ccDirname } from 'node:path';",
  'const require = __ccCreateRequire(import.meta.url);',
  'const __filename = __ccFileURLToPath(import.meta.url);',
  'const __dirname = __ccDirname(__filename);',
].join('\n');

/** Runtime dependencies of a workspace folder (its package.json "dependencies"). */
function dependenciesOf(dir) {
  const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
  return new Set(Object.keys(manifest.dependencies ?? {}));
}

/**
 * Every npm package our own sources import must be a runtime dependency of the workspace that imports it: a dev
 * dependency (tsx, vitest…) would be compiled in from a full install, yet be a sign of test code in the product.
 */
function checkImports(metafile) {
  const workspaces = ['apps/server', 'packages/contracts', 'packages/upstream-emulator'];
  const declared = new Map(workspaces.map((dir) => [dir, dependenciesOf(dir)]));
  const problems = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    const workspace = workspaces.find((dir) => file.startsWith(`${dir}/`));
    if (!workspace) continue;
    for (const imported of input.imports) {
      const specifier = imported.original ?? imported.path;
      if (!isBare(specifier) || specifier.startsWith('@cc/')) continue;
      if (!declared.get(workspace).has(packageOf(specifier)))
        problems.push(`${file} imports ${specifier}, not in ${workspace}/package.json "dependencies"`);
    }
  }
  for (const name of EXTERNAL) {
    if (!declared.get('apps/server').has(name))
      problems.push(`${name} is left out of the bundle but is not a dependency of apps/server`);
  }
  if (problems.length)
    throw new Error(`An install without dev dependencies would break:\n${problems.join('\n')}`);
}

export async function buildServer() {
  const started = performance.now();
  rmSync(SERVER_DIST, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      main: 'apps/server/src/main.ts',
      'migrate-cli': 'apps/server/src/db/migrate-cli.ts',
      'ops-cli': 'apps/server/src/ops/cli.ts',
      'import-predecessor': 'apps/server/src/ops/import-predecessor/cli.ts',
    },
    outdir: SERVER_DIST,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    banner: { js: COMMONJS_GLOBALS },
    // Maps without the sources (they are in the tree): `NODE_OPTIONS=--enable-source-maps` turns stack traces
    // back into TypeScript lines; off by default, since loading the map costs start-up time.
    sourcemap: 'linked',
    sourcesContent: false,
    // Without the whitespace (and so without comments): V8 keeps every script's source in memory, and a table of its
    // line ends once a stack trace is formatted (3.9 MB in a heap snapshot with the 288,000 lines of main.js kept).
    // Names stay readable in stack traces and profiles; `--enable-source-maps` gives back the TypeScript lines.
    minifyWhitespace: true,
    logLevel: 'warning',
    plugins: [externalPackages],
    metafile: true,
  });
  checkImports(result.metafile);
  for (const file of readdirSync(SERVER_DIST)) {
    if (file.endsWith('.js')) keepSourceOneByte(path.join(SERVER_DIST, file));
  }
  return performance.now() - started;
}

/**
 * V8 keeps a script's source in memory as long as the script lives, one byte a character when every character is
 * Latin-1 and two bytes otherwise. esbuild escapes what is beyond ASCII in strings, but the comments it keeps hold a
 * few dashes and quotes (— ’) that doubled main.js's 11.6 MB in the heap of every process. Each character beyond
 * Latin-1 becomes its `\uXXXX` escape, which means the same character in a string, a template, a regular expression or
 * a name, and is plain text in a comment.
 */
export function keepSourceOneByte(file) {
  const source = readFileSync(file, 'utf8');
  const escaped = source.replace(
    /[\u0100-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  if (escaped !== source) writeFileSync(file, escaped);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ms = await buildServer();
  console.log(`Server built into ${path.relative(root, SERVER_DIST)} in ${Math.round(ms)} ms`);
}
