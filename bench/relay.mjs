// Relay benchmark: the product against a client reading the same upstream directly, in one run.
//
// Three kinds of process: the upstream emulator (OpenAI-style SSE: 100 chunks of 8 characters at 20 a second after
// 200 ms), the compiled server (SQLite in a fresh data dir, limits lifted), and this process as the clients. Users
// get their own sessions (a real login each). At each level N (200, 500, 1,000, 2,000) N users ask through
// /api/chat while N direct reads of the upstream run at the same time, first all at once, then spread over 3 s.
// Measured per run: time to first token (relay ÷ direct, p50 and p99), how late chunks arrive against their own
// stream's schedule (p99, relay minus direct), the server's event-loop delay p99 (its /metrics), failed connections,
// the server's peak RSS and CPU per stream (its process, helper threads included, over the level), and the clients'
// own event-loop delay (a busy client makes every number worse), and whether the machine was the limit: its busy
// share over the level and the CPU seconds of the server, the emulator and the clients; and where the relayed asks'
// time to first token went (means: the socket's opening as the client saw it, then the server's own steps from its
// /metrics — the turn to be admitted, checks and charge, an upstream slot, the upstream request to the first content —
// and the rest). Then the bytes on the wire per byte of answer in each frame mode (delta = our web client).
//
// Run: `npm run bench:relay [-- --levels 200,500 --modes burst,spread --repeat 5]`. Prints a table and saves
// bench/results/relay.json (and relay-<label>.json with `--label X`).
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { hash } from '@node-rs/argon2';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import { sseContents } from './sse-content.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    levels: { type: 'string', default: '200,500,1000,2000' },
    modes: { type: 'string', default: 'burst,spread' },
    label: { type: 'string' },
    'bytes-asks': { type: 'string', default: '100' },
    /** Asks per round for the server's CPU per ask (4 lanes, one ask after another, a short unpaced answer). */
    'cost-asks': { type: 'string', default: '400' },
    'skip-build': { type: 'boolean', default: false },
    /** Clients that do not offer permessage-deflate (to see what compression costs the server). */
    'no-deflate': { type: 'boolean', default: false },
    /**
     * Clients that inflate each frame through the websocket library's thread-pool queue (at most 10 jobs at a time
     * for every socket of the process; each job wakes a pool thread: ~30 µs more of the clients' CPU a frame on
     * these machines), the bench's default until 2026-11-27. By default each frame is inflated in-line, as a browser
     * does on the reader's own machine: at 1,000 streams the queue took ~3 s more of the two cores the server shares.
     */
    'library-inflate': { type: 'boolean', default: false },
    /** Answers streamed at once per upstream server (older versions allow at most 256). */
    concurrency: { type: 'string', default: '4096' },
    /** A file for the server's log (warnings and errors; by default it is dropped). */
    'server-log': { type: 'string' },
    /**
     * Extra Node options for the server process, after the ones it runs with (scripts/server-node-flags.mjs), e.g.
     * "--cpu-prof --cpu-prof-dir=/tmp/prof" (or "--max-semi-space-size=16" to undo one: the last one counts).
     */
    'server-node-options': { type: 'string', default: '' },
    /**
     * Runs of each level and arrival (one after another on the same server). With more than one, a summary gives
     * each measure's median and range: from one run to the next the first token at 200 at once moves by tens of
     * percent on these machines, more than most changes it is used to judge.
     */
    repeat: { type: 'string', default: '1' },
    /** The levels on a fresh server, with no warm-up asks before them (see `warmUp`). */
    cold: { type: 'boolean', default: false },
    /**
     * Each run of a level is followed by the same run through the least relay Node can be (`floor-relay.mjs`: no
     * sessions, database or quotas; uncompressed) beside the same direct reads: the part of the gap to the direct
     * read that any websocket relay on this stack and machine pays.
     */
    floor: { type: 'boolean', default: false },
  },
});
const LEVELS = args.levels.split(',').filter(Boolean).map(Number);
const MODES = args.modes.split(',');
const CHUNK_CHARS = 8;
const CHUNKS_PER_SECOND = 20;
const FIRST_TOKEN_MS = 200;
const SPREAD_MS = 3000;
const WORDS = 130; // ≈ 100 chunks of 8 characters
/** The long answer of the bytes rows: ≈ 2,300 chunks of 8 characters (~18 kB), at 200 chunks a second. */
const LONG_WORDS = 2600;
const LONG_CHUNKS_PER_SECOND = 200;
const PROMPT = `#long ${WORDS}`;
const ADMIN_PASSWORD = 'bench-admin-pass-1';
const COST_WARM_UP = 200;
const USERS = Math.max(
  ...LEVELS,
  Number(args['bytes-asks']),
  Number(args['cost-asks']) > 0 ? Math.max(COST_WARM_UP, Number(args['cost-asks'])) : 0,
  LEVELS.length > 0 && !args.cold ? COST_WARM_UP : 0,
);

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (values, q) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const round = (n, d = 1) => (Number.isFinite(n) ? +n.toFixed(d) : null);

async function waitUntil(what, check, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await wait(100);
  }
}

// ---------- processes ----------
if (!args['skip-build']) {
  const built = spawnSync(process.execPath, [path.join(root, 'scripts/build-server.mjs')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const emulatorPort = await freePort();
const emulator = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    path.join(root, 'packages/upstream-emulator/src/cli.ts'),
    '--port',
    String(emulatorPort),
    '--latency',
    String(FIRST_TOKEN_MS),
    '--chunk-size',
    String(CHUNK_CHARS),
    '--tps',
    String((CHUNK_CHARS / 4) * CHUNKS_PER_SECOND),
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
children.push(emulator);
const upstream = `http://127.0.0.1:${emulatorPort}`;
await waitUntil('the emulator', async () => (await fetch(`${upstream}/__control/knobs`)).ok);

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cc-bench-relay-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
writeFileSync(
  path.join(dataDir, 'config.yaml'),
  [
    'openai_api:',
    `  openai_base_url: "${upstream}/v1"`,
    `  max_completion_concurrency: ${Number(args.concurrency)}`,
    '  read_timeout: 120',
    '  custom_api_private_networks: true',
    '',
  ].join('\n'),
);
const serverPort = await freePort();
const metricsToken = randomUUID();
const secretKey = randomBytes(32).toString('hex');
const serverNodeOptions = [...SERVER_NODE_FLAGS, ...args['server-node-options'].split(' ').filter(Boolean)];
const server = spawn(process.execPath, [...serverNodeOptions, path.join(root, 'apps/server/dist/main.js')], {
  cwd: root,
  env: {
    ...process.env,
    NODE_ENV: 'production',
    CC_HOST: '127.0.0.1',
    CC_PORT: String(serverPort),
    CC_DATA_DIR: dataDir,
    CC_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CC_METRICS_TOKEN: metricsToken,
    CC_SECRET_KEY: secretKey,
    CC_LOG_LEVEL: 'WARNING',
    CC_DATABASE_URL: '',
    CC_REDIS_URL: '',
  },
  stdio: ['ignore', args['server-log'] ? openSync(args['server-log'], 'w') : 'ignore', 'inherit'],
});
children.push(server);
const base = `http://127.0.0.1:${serverPort}`;
await waitUntil('the server', async () => (await fetch(`${base}/api/readyz`)).status === 200);

let floor = null;
if (args.floor) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(root, 'bench/floor-relay.mjs'), '--port', String(port), '--upstream', upstream],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`the floor relay exited (${code})`)));
  });
  floor = { base: `http://127.0.0.1:${port}`, pid: child.pid };
}

// ---------- users, each with a session of their own (written as a login writes it: HMAC of the cookie token under
// the session key the server derives from CC_SECRET_KEY), with the admin's settings (unlimited) ----------
const sessionKey = Buffer.from(hkdfSync('sha256', secretKey, 'chat-commons', 'session-key', 32)).toString(
  'hex',
);
const cookies = [];
{
  const db = new Database(path.join(dataDir, 'database.db'));
  db.pragma('busy_timeout = 10000');
  const hashed = await hash('bench-user-pass-1', { memoryCost: 8, timeCost: 1, parallelism: 1 });
  const settings = db.prepare('select * from user_settings where user_id = 1').get();
  const counters = db.prepare('select * from quota_counters where user_id = 1').all();
  const now = new Date();
  const iso = now.toISOString();
  const expires = new Date(now.getTime() + 86_400_000).toISOString();
  const addUser = db.prepare(
    `insert into users (username, nickname, email, hashed_password, is_active, is_superuser, is_verified,
       create_time, update_time) values (?, ?, ?, ?, 1, 0, 0, ?, ?)`,
  );
  // The budget column of this version (older ones: credits).
  const columns = db
    .prepare('pragma table_info(user_settings)')
    .all()
    .map((c) => c.name);
  const budget = columns.includes('budget_total') ? 'budget_total' : 'credits';
  const addSettings = db.prepare(
    `insert into user_settings (user_id, ${budget}, openai_web, openai_api, update_time) values (?, -1, ?, ?, ?)`,
  );
  const addCounter = db.prepare(
    'insert into quota_counters (user_id, source, model, remaining) values (?, ?, ?, ?)',
  );
  const addSession = db.prepare(
    `insert into sessions (id, user_id, created_at, expires_at, last_seen_at, user_agent, ip)
       values (?, ?, ?, ?, ?, 'bench', '127.0.0.1')`,
  );
  db.transaction(() => {
    for (let i = 0; i < USERS; i++) {
      const id = Number(
        addUser.run(`bench${i}`, `Bench ${i}`, `bench${i}@example.com`, hashed, iso, iso).lastInsertRowid,
      );
      addSettings.run(id, settings.openai_web, settings.openai_api, iso);
      for (const c of counters) addCounter.run(id, c.source, c.model, c.remaining);
      const token = randomBytes(32).toString('base64url');
      addSession.run(createHmac('sha256', sessionKey).update(token).digest('hex'), id, iso, expires, iso);
      cookies.push(`cc_session=${token}`);
    }
  })();
  db.close();
}
// One real login checks that the sessions above are what the server expects.
{
  const res = await fetch(`${base}/api/user/me`, { headers: { cookie: cookies[0] } });
  if (res.status !== 200) throw new Error(`a bench session is refused: ${res.status} ${await res.text()}`);
}

// ---------- measuring ----------
const serverRss = { peak: 0 };
const rssSampler = setInterval(() => {
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    serverRss.peak = Math.max(serverRss.peak, kb * 1024);
  } catch {
    // the process is gone
  }
}, 100);

/** The server's /metrics (each scrape resets its event-loop delay histogram: the p99 read is since the last one). */
async function scrape() {
  return (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
}

/** A sample of a scrape: `name{labels} value` with the labels given exactly as the server writes them. */
function sample(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : NaN;
}

/**
 * The server's side of the relayed asks' time to first token between two scrapes (means, ms, as means add up):
 * the wait for their turn to be admitted, the checks and charge, the wait for an upstream slot, and the upstream
 * request to the first answer content (the server's own histograms).
 */
const SERVER_STEPS = {
  turn: 'cc_ask_admission_seconds_{}{source="openai_api",step="turn"}',
  checks: 'cc_ask_admission_seconds_{}{source="openai_api",step="checks"}',
  queue: 'cc_queue_wait_seconds_{}{source="openai_api"}',
  upstream: 'cc_time_to_first_token_seconds_{}{source="openai_api",model="gpt_3_5"}',
};
function serverSteps(before, after) {
  const mean = (series) => {
    // (A series appears at its first observation: missing before means 0.)
    const at = (text, part) => sample(text, series.replace('{}', part)) || 0;
    const delta = (part) => at(after, part) - at(before, part);
    return round((delta('sum') / delta('count')) * 1000);
  };
  return Object.fromEntries(Object.entries(SERVER_STEPS).map(([step, series]) => [step, mean(series)]));
}

/** Arrival times (ms, performance.now) of each chunk boundary of a stream's text, by cumulative length. */
class Arrivals {
  constructor() {
    this.length = 0;
    this.times = []; // times[i] = when chunk i (characters [8i, 8i+8)) had fully arrived
  }
  grow(text, now) {
    this.length += text.length;
    while ((this.times.length + 1) * CHUNK_CHARS <= this.length) this.times.push(now);
  }
  end(now) {
    if (this.length > this.times.length * CHUNK_CHARS) this.times.push(now);
  }
  /** How late each chunk after the first is against its own stream's schedule (first chunk + i × 50 ms), ms. */
  lateness() {
    const interval = 1000 / CHUNKS_PER_SECOND;
    return this.times.slice(1).map((t, i) => Math.max(0, t - this.times[0] - (i + 1) * interval));
  }
}

const directAgent = new Agent({ connections: 10_000, pipelining: 0, keepAliveTimeout: 30_000 });

/** One direct read of the upstream: time to first content, chunk arrivals. */
async function direct(startAt) {
  await wait(Math.max(0, startAt - performance.now()));
  const began = performance.now();
  const arrivals = new Arrivals();
  let first = NaN;
  try {
    const res = await request(`${upstream}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: directAgent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-3.5-turbo',
        stream: true,
        messages: [{ role: 'user', content: PROMPT }],
      }),
    });
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    for await (const text of sseContents(res.body)) {
      const now = performance.now();
      if (Number.isNaN(first)) first = now - began;
      arrivals.grow(text, now);
    }
    arrivals.end(performance.now());
    return { ok: true, ttft: first, lateness: arrivals.lateness() };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

/** One ask through the product: time to first content, chunk arrivals, wire bytes and answer bytes. */
function relay(cookie, startAt, mode, prompt = PROMPT, deflate = !args['no-deflate'], to = base) {
  return new Promise((resolve) => {
    setTimeout(
      () => {
        const began = performance.now();
        const arrivals = new Arrivals();
        let first = NaN;
        let firstFrame = NaN;
        let opened = NaN;
        let text = '';
        let openedBytes = 0;
        let settled = false;
        const finish = (result) => {
          if (settled) return;
          settled = true;
          resolve(result);
        };
        const ws = new WebSocket(`${to.replace('http', 'ws')}/api/chat`, {
          headers: { cookie, origin: to },
          perMessageDeflate: deflate,
        });
        ws.on('open', () => {
          if (!args['library-inflate']) inflateInline(ws);
          opened = performance.now() - began;
          openedBytes = ws._socket.bytesRead;
          ws.send(
            JSON.stringify({
              source: 'openai_api',
              model: 'gpt_3_5',
              new_conversation: true,
              text_content: prompt,
              stream_mode: mode,
              ask_id: randomUUID(),
            }),
          );
        });
        ws.on('message', (data, isBinary) => {
          const now = performance.now();
          if (Number.isNaN(firstFrame)) firstFrame = now - began;
          for (const frame of decodeFrames(data.toString('utf8'), isBinary)) {
            let grown = '';
            if (frame.delta) grown = frame.delta.append ?? '';
            else if (frame.type === 'append') grown = frame.text;
            else if (frame.message && (frame.message.role ?? frame.message.author?.role) === 'assistant') {
              const content = frame.message.content ?? {};
              const full = content.text ?? (content.parts ?? []).join('');
              grown = full.length > text.length ? full.slice(text.length) : '';
            }
            if (grown) {
              if (Number.isNaN(first)) first = now - began;
              text += grown;
              arrivals.grow(grown, now);
            }
          }
        });
        ws.on('close', (code, reason) => {
          arrivals.end(performance.now());
          const wire = ws._socket ? ws._socket.bytesRead - openedBytes : 0;
          if (code !== 1000) finish({ ok: false, error: `closed ${code} ${reason}`.trim() });
          else
            finish({
              ok: true,
              ttft: first,
              opened,
              firstFrame,
              lateness: arrivals.lateness(),
              wireBytes: wire,
              answerBytes: Buffer.byteLength(text),
            });
        });
        ws.on('error', (error) => finish({ ok: false, error: String(error) }));
      },
      Math.max(0, startAt - performance.now()),
    );
  });
}

const INFLATE_SCRATCH = Buffer.allocUnsafe(256 * 1024);
const DEFLATE_TRAILER = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/**
 * Makes a client socket inflate its messages in-line: a raw inflate stream's native handle written synchronously
 * (as the server's chat/inline-deflate.ts deflates), the result handed back in a microtask (the library's receiver
 * expects its callback later, not during the call).
 */
function inflateInline(ws) {
  const extension = ws._extensions?.['permessage-deflate'];
  if (!extension) return;
  const bits = extension.params?.server_max_window_bits;
  const noContextTakeover = extension.params?.server_no_context_takeover === true;
  let stream = null;
  let failure = null;
  ws.once('close', () => stream?.close());
  extension.decompress = (data, fin, callback) => {
    let out;
    try {
      if (!stream) {
        stream = zlib.createInflateRaw({
          windowBits: typeof bits === 'number' ? bits : 15,
          chunkSize: zlib.constants.Z_MIN_CHUNK,
        });
        stream.on('error', (err) => (failure = err));
      }
      const input = fin ? Buffer.concat([data, DEFLATE_TRAILER]) : data;
      const parts = [];
      let inOff = 0;
      let inLen = input.length;
      for (;;) {
        stream._handle.writeSync(
          zlib.constants.Z_SYNC_FLUSH,
          input,
          inOff,
          inLen,
          INFLATE_SCRATCH,
          0,
          INFLATE_SCRATCH.length,
        );
        if (failure) throw failure;
        const [outLeft, inLeft] = stream._writeState;
        const produced = INFLATE_SCRATCH.length - outLeft;
        if (produced > 0) parts.push(Buffer.from(INFLATE_SCRATCH.subarray(0, produced)));
        inOff += inLen - inLeft;
        inLen = inLeft;
        if (outLeft !== 0) break;
      }
      out = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      if (fin && noContextTakeover) stream.reset();
    } catch (err) {
      queueMicrotask(() => callback(err));
      return;
    }
    queueMicrotask(() => callback(null, out));
  };
}

/** A websocket message may hold one frame or several (a JSON array). */
/** A chat socket message as frames: a binary one is appended text (delta mode). */
function decodeFrames(data, isBinary) {
  if (isBinary) return [{ type: 'append', text: data }];
  const parsed = JSON.parse(data);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** A level's results: the asks that succeeded, their times to first token, their chunks' lateness. */
const good = (list) => list.filter((r) => r.ok);
const ttft = (list) =>
  good(list)
    .map((r) => r.ttft)
    .filter(Number.isFinite);
const late = (list) => good(list).flatMap((r) => r.lateness);

/** What a relay adds to the direct read, measured side by side: first token ratios, added chunk delay, failures. */
function sideBySide(relays, directs) {
  const [relayTtft, directTtft] = [ttft(relays), ttft(directs)];
  return {
    ttft_ratio_p50: round(quantile(relayTtft, 0.5) / quantile(directTtft, 0.5), 2),
    ttft_ratio_p99: round(quantile(relayTtft, 0.99) / quantile(directTtft, 0.99), 2),
    added_delay_p99_ms: round(quantile(late(relays), 0.99) - quantile(late(directs), 0.99)),
    failed_relay: relays.length - good(relays).length,
    failed_direct: directs.length - good(directs).length,
  };
}

/**
 * One run of a level: n relayed asks and n direct reads side by side. Through the product, or with `viaFloor`
 * through the floor relay (then the server's own measures are left out, and the "server" CPU is the floor's).
 */
async function level(n, pattern, viaFloor = false) {
  const clientLoop = monitorEventLoopDelay({ resolution: 10 });
  serverRss.peak = 0;
  // (Each also resets the relay's event-loop histogram.)
  const scrapedBefore = viaFloor ? await floorLoopP99() : await scrape();
  clientLoop.enable();
  const account = cpuAccount(viaFloor ? floor.pid : server.pid);
  const t0 = performance.now() + 100;
  const at = (i) => t0 + (pattern === 'spread' ? (i / n) * SPREAD_MS : 0);
  const to = viaFloor ? floor.base : base;
  const [relays, directs] = await Promise.all([
    Promise.all(cookies.slice(0, n).map((cookie, i) => relay(cookie, at(i), 'delta', PROMPT, undefined, to))),
    Promise.all(Array.from({ length: n }, (_, i) => direct(at(i)))),
  ]);
  clientLoop.disable();
  const { serverMs, ...cpuShares } = account();
  if (viaFloor) return floorSummary(n, pattern, relays, directs, serverMs, await floorLoopP99());
  const scrapedAfter = await scrape();
  const serverLoop = sample(scrapedAfter, 'nodejs_eventloop_lag_p99_seconds') * 1000;
  const relayTtft = ttft(relays);
  const directTtft = ttft(directs);
  const measures = sideBySide(relays, directs);
  const errors = [...relays, ...directs].filter((r) => !r.ok).map((r) => r.error);
  const mean = (list) => round(list.reduce((a, b) => a + b, 0) / list.length);
  const steps = serverSteps(scrapedBefore, scrapedAfter);
  return {
    streams: n,
    pattern,
    ttft_relay_p50_ms: round(quantile(relayTtft, 0.5)),
    relay_open_p50_ms: round(
      quantile(
        good(relays).map((r) => r.opened),
        0.5,
      ),
    ),
    relay_first_frame_p50_ms: round(
      quantile(
        good(relays).map((r) => r.firstFrame),
        0.5,
      ),
    ),
    /**
     * Where the relayed asks' time to first token went, means (ms): the client's socket opening, then the server's
     * steps (its turn to be admitted, checks and charge, the wait for an upstream slot, the upstream request to the
     * first content, its connection included), and the rest (reading the ask, the frames to the client).
     */
    ttft_relay_mean_ms: mean(relayTtft),
    ttft_direct_mean_ms: mean(directTtft),
    ttft_steps_mean_ms: {
      open: mean(good(relays).map((r) => r.opened)),
      ...steps,
    },
    ttft_direct_p50_ms: round(quantile(directTtft, 0.5)),
    ttft_relay_p99_ms: round(quantile(relayTtft, 0.99)),
    ttft_direct_p99_ms: round(quantile(directTtft, 0.99)),
    late_relay_p99_ms: round(quantile(late(relays), 0.99)),
    late_direct_p99_ms: round(quantile(late(directs), 0.99)),
    ...measures,
    server_loop_p99_ms: round(serverLoop),
    client_loop_p99_ms: round(clientLoop.percentile(99) / 1e6),
    first_errors: [...new Set(errors)].slice(0, 3),
    server_peak_rss_mb: round(serverRss.peak / 1e6, 0),
    /** The server's CPU over the level (every ask from its socket's opening to its close) per ask. */
    server_cpu_ms_per_stream: round(serverMs / n, 2),
    /** Whether the machine itself was the limit: its busy share over the level, and who used the CPU (s). */
    ...cpuShares,
  };
}

/** A floor relay's run (`--floor`): its first token and added delay against the same direct reads, its CPU. */
function floorSummary(n, pattern, relays, directs, floorMs, floorLoopMs) {
  const { failed_relay: failedFloor, ...measures } = sideBySide(relays, directs);
  return {
    streams: n,
    pattern,
    ttft_floor_p50_ms: round(quantile(ttft(relays), 0.5)),
    ttft_direct_p50_ms: round(quantile(ttft(directs), 0.5)),
    floor_open_p50_ms: round(
      quantile(
        good(relays).map((r) => r.opened),
        0.5,
      ),
    ),
    ...measures,
    floor_loop_p99_ms: round(floorLoopMs),
    failed_floor: failedFloor,
    floor_cpu_ms_per_stream: round(floorMs / n, 2),
  };
}

/** The floor relay's event-loop delay p99 (ms) since the last call. */
async function floorLoopP99() {
  return (await (await fetch(`${floor.base}/loop`)).json()).p99;
}

async function bytesPerAnswerByte(mode, n, answer = 'short', prompt = PROMPT, to = base) {
  const results = await Promise.all(
    cookies.slice(0, n).map((cookie) => relay(cookie, performance.now(), mode, prompt, undefined, to)),
  );
  const ok = results.filter((r) => r.ok);
  const wire = ok.reduce((s, r) => s + r.wireBytes, 0);
  const answerBytes = ok.reduce((s, r) => s + r.answerBytes, 0);
  return {
    mode,
    answer,
    asks: ok.length,
    wire_bytes: wire,
    answer_bytes: answerBytes,
    bytes_per_answer_byte: round(wire / answerBytes, 2),
  };
}

/** A process's CPU time so far (user + system, its threads included), ms. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
}
const serverCpuMs = () => cpuMsOf(server.pid);

/**
 * Where the machine's CPU went from now until the returned function is called: each process's CPU (the server, the
 * emulator, this process as every client) against the time all cores had (/proc/stat), in seconds; and the server's
 * unrounded, in ms (`serverMs`).
 */
function cpuAccount(serverPid = server.pid) {
  const machine = () => {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are time nobody used
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, idle: ticks[3] + ticks[4] };
  };
  const m0 = machine();
  const s0 = cpuMsOf(serverPid);
  const e0 = cpuMsOf(emulator.pid);
  const c0 = process.cpuUsage();
  return () => {
    const m1 = machine();
    const c = process.cpuUsage(c0);
    const total = m1.total - m0.total;
    const serverMs = cpuMsOf(serverPid) - s0;
    return {
      serverMs,
      machine_busy_pct: round((100 * (total - (m1.idle - m0.idle))) / total, 0),
      cores_seconds: round(total / 100, 1),
      server_cpu_s: round(serverMs / 1000, 1),
      upstream_cpu_s: round((cpuMsOf(emulator.pid) - e0) / 1000, 1),
      clients_cpu_s: round((c.user + c.system) / 1e6, 1),
    };
  };
}

/**
 * The server's CPU per ask, from the socket's opening to its close: asks of a short unpaced answer, four at a
 * time, each lane one ask after another (so nothing queues and the machine is not saturated). After a warm-up
 * in both modes (the first hundreds of asks are slower: code not yet optimised), compressed and plain rounds
 * alternate, n asks each, and each mode's rounds are added up.
 */
/**
 * Runs `run` with the upstream unpaced (no first-token latency, chunks as fast as it can); its knobs put back after.
 */
async function unpaced(run) {
  const knobs = await (await fetch(`${upstream}/__control/knobs`)).json();
  const setKnobs = (body) =>
    fetch(`${upstream}/__control/knobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await setKnobs({ firstTokenLatencyMs: 0, tokensPerSecond: 0 });
  try {
    return await run();
  } finally {
    await setKnobs({
      firstTokenLatencyMs: knobs.firstTokenLatencyMs,
      tokensPerSecond: knobs.tokensPerSecond,
    });
  }
}

const LANES = 4;

/**
 * `count` asks of a short answer in LANES lanes, each lane one ask after another, to the product or (`to`) the floor
 * relay: results, the server's CPU (the product's), wall time.
 */
async function askInLanes(count, deflate, to = base) {
  const cpu0 = serverCpuMs();
  const began = performance.now();
  const lane = async (l) => {
    const results = [];
    for (let i = 0; i < count / LANES; i++)
      results.push(await relay(cookies[l * (count / LANES) + i], 0, 'delta', '#long 5', deflate, to));
    return results;
  };
  const results = (await Promise.all(Array.from({ length: LANES }, (_, l) => lane(l)))).flat();
  return { results, cpu: serverCpuMs() - cpu0, wall: performance.now() - began };
}

/**
 * The first few hundred asks of a fresh server are slower (its code not yet optimised): a server that has served is
 * warm, and so is the one measured here unless `--cold` — the same way whether or not the cost per ask is measured
 * (which warms it first). The first burst after it is still the slowest of a `--repeat` (the pool's first 200
 * upstream connections, the heap's growth).
 */
async function warmUp(to = base) {
  for (const deflate of [true, false]) await askInLanes(COST_WARM_UP, deflate, to);
}

async function costPerAsk(n) {
  const totals = await unpaced(async () => {
    await warmUp();
    const sums = new Map([true, false].map((d) => [d, { results: [], cpu: 0, wall: 0 }]));
    for (const deflate of [true, false, false, true]) {
      const r = await askInLanes(n, deflate);
      const sum = sums.get(deflate);
      sum.results.push(...r.results);
      sum.cpu += r.cpu;
      sum.wall += r.wall;
    }
    return sums;
  });
  return [...totals].map(([deflate, { results, cpu, wall }]) => {
    const ok = results.filter((r) => r.ok);
    return {
      deflate,
      asks: ok.length,
      failed: results.length - ok.length,
      first_errors: [...new Set(results.filter((r) => !r.ok).map((r) => r.error))].slice(0, 3),
      server_cpu_ms_per_ask: round(cpu / results.length, 2),
      wall_ms_per_ask_per_lane: round((wall * LANES) / results.length, 1),
      ttft_p50_ms: round(quantile(ok.map((r) => r.ttft).filter(Number.isFinite), 0.5)),
    };
  });
}

const costs = Number(args['cost-asks']) > 0 ? await costPerAsk(Number(args['cost-asks'])) : [];
for (const cost of costs) console.log(JSON.stringify(cost));
// (Measuring the cost per ask warmed the server already.)
if (costs.length === 0 && !args.cold && LEVELS.length > 0) await unpaced(warmUp);
// The floor relay is warmed the same way (its code optimised before it is measured), unless `--cold`.
if (floor && !args.cold && LEVELS.length > 0) await unpaced(() => warmUp(floor.base));

const REPEAT = Math.max(1, Number(args.repeat) || 1);
const REPEAT_GAP_MS = 6000;
const runs = [];
const floorRuns = [];
for (const n of LEVELS) {
  for (const pattern of MODES) {
    for (let i = 0; i < REPEAT; i++) {
      // A repeat waits out the keep-alive of the connections the run before opened (the emulator closes an idle one
      // after 5 s): each run opens its upstream connections anew, as the first one did. (A burst that finds the
      // last burst's connections open costs the server ~1 ms less a stream at 200 at once.)
      if (i > 0) await wait(REPEAT_GAP_MS);
      const result = await level(n, pattern);
      runs.push(result);
      console.log(JSON.stringify(result));
      await wait(1000);
      if (floor) {
        await wait(REPEAT_GAP_MS); // (the upstream connections the run opened are closed by then)
        const floorRun = await level(n, pattern, true);
        floorRuns.push(floorRun);
        console.log(JSON.stringify({ floor: floorRun }));
        await wait(1000);
      }
    }
  }
}
const bytes = [];
for (const mode of ['full', 'delta']) bytes.push(await bytesPerAnswerByte(mode, Number(args['bytes-asks'])));
// The floor relay's binary text frames, uncompressed: a 2-byte header a chunk (it sends nothing else).
if (floor && Number(args['bytes-asks']) > 0)
  bytes.push({
    ...(await bytesPerAnswerByte('delta', Number(args['bytes-asks']), 'short', PROMPT, floor.base)),
    mode: 'floor relay',
  });
// A long answer (~18 kB) from a faster upstream (200 chunks a second: several chunks to a frame), in fewer asks.
if (Number(args['bytes-asks']) > 0) {
  const knobs = async (body) =>
    fetch(`${upstream}/__control/knobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await knobs({ tokensPerSecond: (CHUNK_CHARS / 4) * LONG_CHUNKS_PER_SECOND });
  const asks = Math.min(10, Number(args['bytes-asks']));
  for (const mode of ['full', 'delta'])
    bytes.push(await bytesPerAnswerByte(mode, asks, 'long', `#long ${LONG_WORDS}`));
  await knobs({ tokensPerSecond: (CHUNK_CHARS / 4) * CHUNKS_PER_SECOND });
}
clearInterval(rssSampler);

console.log(
  `\nrelay vs direct: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), Node ${process.version}; ` +
    `upstream: ${CHUNKS_PER_SECOND} chunks/s of ${CHUNK_CHARS} chars after ${FIRST_TOKEN_MS} ms`,
);
console.table(
  runs.map((r) => ({
    streams: r.streams,
    pattern: r.pattern,
    'ttft ÷ p50': r.ttft_ratio_p50,
    'ttft ÷ p99': r.ttft_ratio_p99,
    'ttft relay p50': r.ttft_relay_p50_ms,
    'added delay p99': r.added_delay_p99_ms,
    'server loop p99': r.server_loop_p99_ms,
    'client loop p99': r.client_loop_p99_ms,
    failed: r.failed_relay + r.failed_direct,
    'server RSS MB': r.server_peak_rss_mb,
    'server CPU ms/stream': r.server_cpu_ms_per_stream,
    'machine busy %': r.machine_busy_pct,
    'CPU s server/upstream/clients of all': `${r.server_cpu_s}/${r.upstream_cpu_s}/${r.clients_cpu_s} of ${r.cores_seconds}`,
  })),
);
console.log("\nwhere the relay's time to first token went (means, ms; the server's steps from its /metrics)");
console.table(
  runs.map((r) => {
    const { open, turn, checks, queue, upstream } = r.ttft_steps_mean_ms;
    return {
      streams: r.streams,
      pattern: r.pattern,
      'relay ttft': r.ttft_relay_mean_ms,
      'socket open': open,
      'turn to be admitted': turn,
      'checks and charge': checks,
      'upstream slot': queue,
      'upstream to first content': upstream,
      rest: round(r.ttft_relay_mean_ms - open - turn - checks - queue - upstream),
      'direct ttft': r.ttft_direct_mean_ms,
    };
  }),
);
/** Each measure's median and range over the repeated runs of a level and arrival (`--repeat`). */
function spreadOf(group) {
  const measure = (key) => {
    const values = group
      .map((r) => r[key])
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    if (values.length === 0) return null;
    const mid = values.length >> 1;
    const median = values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    return { median: round(median, 2), min: values[0], max: values[values.length - 1] };
  };
  return {
    streams: group[0].streams,
    pattern: group[0].pattern,
    runs: group.length,
    ttft_ratio_p50: measure('ttft_ratio_p50'),
    ttft_ratio_p99: measure('ttft_ratio_p99'),
    ttft_relay_p50_ms: measure('ttft_relay_p50_ms'),
    added_delay_p99_ms: measure('added_delay_p99_ms'),
    server_loop_p99_ms: measure('server_loop_p99_ms'),
    server_cpu_ms_per_stream: measure('server_cpu_ms_per_stream'),
  };
}
const spreads = [];
if (REPEAT > 1) {
  for (const n of LEVELS)
    for (const pattern of MODES) {
      spreads.push(spreadOf(runs.filter((r) => r.streams === n && r.pattern === pattern)));
    }
  const shown = (m) => (m ? `${m.median} (${m.min}–${m.max})` : '');
  console.log(`\nover ${REPEAT} runs of each: median (min–max)`);
  console.table(
    spreads.map((s) => ({
      streams: s.streams,
      pattern: s.pattern,
      'ttft ÷ p50': shown(s.ttft_ratio_p50),
      'ttft ÷ p99': shown(s.ttft_ratio_p99),
      'ttft relay p50': shown(s.ttft_relay_p50_ms),
      'added delay p99': shown(s.added_delay_p99_ms),
      'server loop p99': shown(s.server_loop_p99_ms),
      'server CPU ms/stream': shown(s.server_cpu_ms_per_stream),
    })),
  );
}
if (floor) {
  console.log(
    '\nthe same runs through the floor relay (no sessions, database or quotas; uncompressed), each after its pair',
  );
  console.table(
    floorRuns.map((f, i) => ({
      streams: f.streams,
      pattern: f.pattern,
      'product ttft ÷ p50 / p99': `${runs[i].ttft_ratio_p50} / ${runs[i].ttft_ratio_p99}`,
      'floor ttft ÷ p50 / p99': `${f.ttft_ratio_p50} / ${f.ttft_ratio_p99}`,
      'floor socket open p50': f.floor_open_p50_ms,
      'product / floor added delay p99': `${runs[i].added_delay_p99_ms} / ${f.added_delay_p99_ms}`,
      'product / floor loop p99': `${runs[i].server_loop_p99_ms} / ${f.floor_loop_p99_ms}`,
      'product / floor CPU ms/stream': `${runs[i].server_cpu_ms_per_stream} / ${f.floor_cpu_ms_per_stream}`,
      failed: f.failed_floor + f.failed_direct,
    })),
  );
}
console.table(bytes);
console.table(costs);
const out = path.join(root, 'bench/results');
mkdirSync(out, { recursive: true });
const report = {
  date: new Date().toISOString(),
  machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, load: os.loadavg() },
  server_node_options: serverNodeOptions,
  upstream: {
    chunk_chars: CHUNK_CHARS,
    chunks_per_second: CHUNKS_PER_SECOND,
    first_token_ms: FIRST_TOKEN_MS,
    words: WORDS,
  },
  runs,
  ...(floor && { floor_runs: floorRuns }),
  ...(REPEAT > 1 && { spread: spreads }),
  bytes,
  cost_per_ask: costs,
};
writeFileSync(
  path.join(out, args.label ? `relay-${args.label}.json` : 'relay.json'),
  JSON.stringify(report, null, 2),
);
console.log(`saved bench/results/${args.label ? `relay-${args.label}.json` : 'relay.json'}`);
// A graceful stop, so that a profile the server was asked for is written.
await new Promise((resolve) => {
  server.once('exit', resolve);
  server.kill('SIGTERM');
  setTimeout(resolve, 15_000).unref();
});
process.exit(0);
