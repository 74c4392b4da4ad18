import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_PID_FILE } from './ops/data-dir';
import { runScript } from './test/run-script';
import type { ScriptRun } from './test/run-script';

const dirs: string[] = [];
const held: Server[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(held.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-main-'));
  dirs.push(dir);
  return dir;
}

/** The server's entry point in a process of its own, as `npm start` runs it; resolves when it exits. */
function start(env: Record<string, string>): Promise<ScriptRun> {
  return runScript('apps/server/src/main.ts', [], {
    ...process.env,
    CC_HOST: '127.0.0.1',
    CC_INITIAL_ADMIN_PASSWORD: 'main-test-pass-1',
    CC_DATABASE_URL: '',
    CC_REDIS_URL: '',
    ...env,
  });
}

/** A port another process holds. */
async function heldPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('starting the server', () => {
  it('refuses a data directory another server uses, before writing anything, and leaves its mark alone', async () => {
    const dir = dataDir();
    // A live Node process holds the directory (this test's own, as a running server would).
    writeFileSync(path.join(dir, SERVER_PID_FILE), `${process.pid}\n`);
    const { code, err } = await start({ CC_DATA_DIR: dir, CC_PORT: String(await heldPort()) });
    expect(code).toBe(2);
    expect(err).toContain(`Another server (process ${process.pid}) is using the data directory ${dir}`);
    expect(existsSync(path.join(dir, 'database.db'))).toBe(false);
    expect(readFileSync(path.join(dir, SERVER_PID_FILE), 'utf8').trim()).toBe(String(process.pid));
  });

  it('refuses a port in use with one line, before creating the database or the admin', async () => {
    const dir = dataDir();
    const port = await heldPort();
    const { code, out, err } = await start({ CC_DATA_DIR: dir, CC_PORT: String(port) });
    expect(code).toBe(2);
    expect(err.trim()).toBe(
      `Port ${port} on 127.0.0.1 is in use by another process: stop it, or set another port (CC_PORT or http.port).`,
    );
    expect(out).not.toContain('main-test-pass-1');
    expect(existsSync(path.join(dir, 'database.db'))).toBe(false);
  });
});
