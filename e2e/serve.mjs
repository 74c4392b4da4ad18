// Starts the real product for the end-to-end suite: builds the web app when apps/web/dist is missing and the
// server bundle every time (esbuild, well under a second, so the suite never runs a stale one), then runs the
// compiled server, as `npm start` does, on CC_PORT (8123) with a fresh temporary data dir and a known admin password. With no upstream
// credentials configured the server runs its in-process upstream emulator ("demo mode"). A real OpenID Connect
// provider (oidc-provider, its own login pages accept any name) runs here too, on a free port, and the product's
// config.yaml turns single sign-on on with it.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Provider from 'oidc-provider';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';

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
const port = process.env.CC_PORT ?? '8123';

/** The test identity provider: any login name signs in, as `<name>@example.test`. */
async function startIdentityProvider() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'chat-commons-e2e',
        client_secret: 'chat-commons-e2e-secret',
        redirect_uris: [`http://127.0.0.1:${port}/api/auth/oidc/callback`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name'] },
    cookies: { keys: ['e2e-cookie-key'] },
    jwks: { keys: [{ ...key, kid: 'e2e', use: 'sig', alg: 'RS256' }] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: `${id}@example.test`,
        email_verified: true,
        preferred_username: id,
        name: id,
      }),
    }),
  });
  server.on('request', provider.callback());
  return { issuer, server };
}

const idp = await startIdentityProvider();
writeFileSync(
  path.join(dataDir, 'config.yaml'),
  [
    'auth:',
    '  oidc:',
    '    enabled: true',
    `    issuer: ${idp.issuer}`,
    '    client_id: chat-commons-e2e',
    '    client_secret: chat-commons-e2e-secret',
    '    button_label: Team IdP',
    '    new_users: create',
    '',
  ].join('\n'),
);
// Where this run keeps its data, for specs that seed the database directly (helpers.ts `e2eDatabase`).
const pointer = path.join(os.tmpdir(), `cc-e2e-${port}.json`);
writeFileSync(pointer, JSON.stringify({ dataDir }));

const env = {
  ...process.env,
  CC_HOST: '127.0.0.1',
  CC_PORT: port,
  CC_DATA_DIR: dataDir,
  CC_INITIAL_ADMIN_PASSWORD: 'admin-pass-123',
  CC_LOG_LEVEL: process.env.CC_LOG_LEVEL ?? 'WARNING',
};
delete env.CC_DATABASE_URL;
delete env.CC_REDIS_URL;

// Source maps on here: a server error in the suite's output points at the TypeScript line.
const server = spawn(
  process.execPath,
  ['--enable-source-maps', ...SERVER_NODE_FLAGS, path.join(root, 'apps/server/dist/main.js')],
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
  idp.server.closeAllConnections();
  idp.server.close();
  cleanup();
  process.exit(code ?? (signal ? 0 : 1));
});
