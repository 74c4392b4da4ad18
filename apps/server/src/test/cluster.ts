import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real processes for scale-out tests: app instances started as `npm start` runs them (`node --import tsx
 * apps/server/src/main.ts`), and a round-robin load balancer with websocket forwarding in front of them.
 */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** Makes an instance exit when the test process is gone, even if the test never got to stop it. */
const WATCHDOG = new URL('./exit-with-parent.mjs', import.meta.url).href;

/** A free TCP port on 127.0.0.1 (asked of the system, then released for the instance to take). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves with `check()`'s first truthy value, polling; fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs: number,
  everyMs = 100,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One GET; the status code, or 0 when the connection failed or took longer than a second. */
export function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** One instance of the server as its own process, its output in `<dataDir>/process.log`. */
export class Instance {
  readonly url: string;
  private proc: ChildProcess | null = null;
  /** Resolves with the exit code (null when killed by a signal) of the current process. */
  exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly name: string,
    readonly port: number,
    readonly dataDir: string,
    private readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  get running(): boolean {
    return this.proc !== null && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Starts the process and waits until it answers /api/readyz with 200. */
  async start(timeoutMs = 60_000): Promise<void> {
    const log = createWriteStream(path.join(this.dataDir, 'process.log'), { flags: 'a' });
    const args = ['--import', 'tsx', '--import', WATCHDOG, path.join(ROOT, 'apps/server/src/main.ts')];
    const proc = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        CC_HOST: '127.0.0.1',
        CC_PORT: String(this.port),
        CC_DATA_DIR: this.dataDir,
        CC_LOG_LEVEL: 'WARNING',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    proc.stdout.pipe(log);
    proc.stderr.pipe(log);
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
    await waitFor(
      `${this.name} ready`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited at start:\n${this.logTail()}`);
        return (await probe(`${this.url}/api/readyz`)) === 200;
      },
      timeoutMs,
      200,
    );
  }

  /** Sends a signal (SIGKILL: the instance dies on the spot; SIGTERM: it drains). */
  kill(signal: NodeJS.Signals): void {
    this.proc?.kill(signal);
  }

  /** The last lines the process wrote (for failure messages). */
  logTail(lines = 40): string {
    try {
      return readFileSync(path.join(this.dataDir, 'process.log'), 'utf8')
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '';
    }
  }

  /** Kills the process if it still runs and waits for it to go (afterAll, even after a failure). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.proc!.kill('SIGKILL');
    await this.exited;
  }
}

interface Backend {
  port: number;
  /** Its /api/readyz answered 200 at the last check. */
  ready: boolean;
  /** Requests and websockets sent to it. */
  hits: number;
}

/**
 * A round-robin load balancer on 127.0.0.1, as nginx would be configured in front of the instances: HTTP and
 * websocket upgrades go to the next ready backend (readiness polled on /api/readyz every 200 ms, so a draining
 * instance gets no new traffic), and a backend that refuses the connection is skipped for the next one.
 */
export class Balancer {
  private readonly server: http.Server;
  private readonly backends: Backend[];
  private next = 0;
  private readonly health: NodeJS.Timeout;
  private readonly sockets = new Set<net.Socket>();
  url = '';

  constructor(ports: number[]) {
    this.backends = ports.map((port) => ({ port, ready: true, hits: 0 }));
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) =>
      this.upgrade(req, socket, head),
    );
    this.health = setInterval(() => {
      for (const b of this.backends)
        void probe(`http://127.0.0.1:${b.port}/api/readyz`).then((status) => (b.ready = status === 200));
    }, 200);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Hits per backend port. */
  hits(port: number): number {
    return this.backends.find((b) => b.port === port)?.hits ?? 0;
  }

  /** Ready backends first, in round-robin order; the others after them (tried when all ready ones fail). */
  private order(): Backend[] {
    const start = this.next++ % this.backends.length;
    const rotated = [...this.backends.slice(start), ...this.backends.slice(0, start)];
    return [...rotated.filter((b) => b.ready), ...rotated.filter((b) => !b.ready)];
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (candidates: Backend[]) => {
        const backend = candidates[0];
        if (!backend) {
          res.writeHead(502).end();
          return;
        }
        backend.hits += 1;
        const out = http.request(
          { host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => (res.headersSent ? res.destroy() : attempt(candidates.slice(1))));
        out.end(body);
      };
      attempt(this.order());
    });
  }

  private upgrade(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    const attempt = (candidates: Backend[]) => {
      const backend = candidates[0];
      if (!backend) return client.destroy();
      backend.hits += 1;
      const upstream = net.connect(backend.port, '127.0.0.1');
      let connected = false;
      upstream.on('connect', () => {
        connected = true;
        this.sockets.add(upstream);
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client).pipe(upstream);
      });
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        // What the instance wrote (its close frame) is flushed first; a dead instance's client sees a drop.
        if (connected) client.end();
      });
      upstream.on('error', () => (connected ? client.destroy() : attempt(candidates.slice(1))));
    };
    attempt(this.order());
  }

  async close(): Promise<void> {
    clearInterval(this.health);
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
