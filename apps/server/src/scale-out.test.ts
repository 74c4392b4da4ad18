import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskRequestInput, AskResponse } from '@cc/contracts';
import { LEASE_REBUILD_MS } from './coordination/leases';
import { connect, replay } from './test/chat-client';
import type { ChatConnection } from './test/chat-client';
import { Balancer, Instance, freePort, probe, waitFor } from './test/cluster';
import { ControlledUpstream } from './test/controlled-upstream';
import type { ControlledStream } from './test/controlled-upstream';
import { freshDatabase } from './test/harness';
import type { TestDatabase } from './test/harness';
import { dropRedisKeys, testRedisPrefix } from './test/redis-keys';
import { TcpProxy } from './test/tcp-proxy';
import { multipartFile } from './test/upload';

// Two real instances (`node --import tsx apps/server/src/main.ts`) on one PostgreSQL database of their own and one
// Redis key prefix of their own, behind a round-robin balancer with websocket forwarding; Redis is reached
// through a proxy the test cuts. The upstream is written by the test chunk by chunk, so answers stay in flight
// for as long as a scenario needs, and it counts the streams it serves at once. Runs in the PostgreSQL + Redis
// suite (scripts/test-pg.mjs).
const DATABASE = process.env.CC_TEST_DATABASE_URL;
const REDIS = process.env.CC_TEST_REDIS_URL;
/** Upstream slots shared by both instances. */
const CAPACITY = 2;
/** SIGTERM: running answers get this long before they are cut off (seconds). */
const DRAIN_SECONDS = 4;
const ADMIN = { username: 'admin', password: 'admin-pass-123' };

let database: TestDatabase;
let db: pg.Client;
let redis: Redis;
let proxy: TcpProxy;
let upstream: ControlledUpstream;
let balancer: Balancer;
let a: Instance;
let b: Instance;
const dirs: string[] = [];
const prefix = testRedisPrefix();
let admin = '';

/** The upstream: streams answered at once (`auto`) or held for the test; how many run now and at most. */
const up = { auto: true, held: [] as ControlledStream[], active: 0, peak: 0 };

async function pump(): Promise<void> {
  for (;;) {
    const s = await upstream.next();
    up.active += 1;
    up.peak = Math.max(up.peak, up.active);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      up.active -= 1;
    };
    const finish = s.finish.bind(s);
    s.finish = (options) => {
      end();
      finish(options);
    };
    void s.aborted.then(end);
    if (up.auto) {
      s.send('Answered.');
      s.finish();
    } else up.held.push(s);
  }
}

/** The held stream of the question `text`. */
function streamOf(streams: ControlledStream[], text: string): ControlledStream {
  const s = streams.find((x) => JSON.stringify(x.body).includes(text));
  if (!s) throw new Error(`no stream for "${text}"`);
  return s;
}

/** Ends a held stream with some content (an answer without any is an error). */
function answer(s: ControlledStream): void {
  s.send(' Done.');
  s.finish();
}

/** The next `n` held streams (waits for them). */
async function held(n: number): Promise<ControlledStream[]> {
  await waitFor(`${n} streams at the upstream`, () => up.held.length >= n, 20_000, 20);
  return up.held.splice(0, n);
}

async function instance(name: string, port: number, upstreamUrl: string, uploads: string): Promise<Instance> {
  // Each instance has a data directory of its own: the session and credential keys come from the shared database,
  // the uploads from one shared folder.
  const dir = mkdtempSync(path.join(tmpdir(), `cc-scale-${name}-`));
  dirs.push(dir);
  writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      'data:',
      `  redis_prefix: "${prefix}"`,
      `  uploads_dir: "${uploads}"`,
      'http:',
      `  shutdown_drain_seconds: ${DRAIN_SECONDS}`,
      'openai_api:',
      `  openai_base_url: "${upstreamUrl}"`,
      `  max_completion_concurrency: ${CAPACITY}`,
      '  read_timeout: 120',
      'openai_web:',
      `  chatgpt_base_url: "${upstreamUrl}"`,
      '',
    ].join('\n'),
  );
  return new Instance(name, port, dir, {
    CC_DATABASE_URL: database.url!,
    CC_REDIS_URL: proxyUrl,
    CC_INITIAL_ADMIN_USERNAME: ADMIN.username,
    CC_INITIAL_ADMIN_PASSWORD: ADMIN.password,
  });
}
let proxyUrl = '';

async function http(
  method: string,
  url: string,
  cookie: string,
  body?: unknown,
): Promise<{ status: number; json: { code: number; result: unknown } }> {
  const res = await fetch(url, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { code: number; result: unknown } };
}

async function login(username: string, password: string): Promise<string> {
  const res = await fetch(`${balancer.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString(),
  });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

let seq = 0;
/** A user with `asks` asks on openai_api and no rate limit, logged in through the balancer. */
async function user(asks = 20): Promise<{ id: number; username: string; cookie: string }> {
  seq += 1;
  const username = `user${seq}`;
  const password = 'user-pass-123';
  const created = await http('POST', `${balancer.url}/api/auth/register`, admin, {
    username,
    password,
    email: `${username}@example.com`,
    nickname: username,
  });
  expect(created.status).toBe(201);
  const row = created.json.result as { id: number; setting: Record<string, Record<string, unknown>> };
  const setting = row.setting;
  setting.openai_api!.rate_limits = [];
  setting.openai_api!.total_ask_count = asks;
  const patched = await http('PATCH', `${balancer.url}/api/user/${row.id}/setting`, admin, setting);
  expect(patched.status).toBe(200);
  return { id: row.id, username, cookie: await login(username, password) };
}

const question = (text: string): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  new_title: 'Scale-out',
  text_content: text,
  stream_mode: 'delta',
});

/** Asks through `url`; like the web client, sends the question again when an instance says it is restarting. */
async function ask(url: string, cookie: string, text: string): Promise<ChatConnection> {
  for (let attempt = 0; ; attempt++) {
    const c = connect(url, question(text), cookie);
    const first = await Promise.race([
      c.closed,
      waitFor('first frame', () => c.frames.length > 0, 20_000, 10).then(() => null),
    ]);
    if (first?.code === 1012 && c.frames.length === 0 && attempt < 5) continue;
    return c;
  }
}

const text = (frames: AskResponse[]) => {
  const assistant = frames.find((f) => f.type === 'message' && f.message?.role === 'assistant') as
    Extract<AskResponse, { type: 'message' }> | undefined;
  return assistant?.message ? replay(frames).get(assistant.message.id) : undefined;
};
const refused = (c: ChatConnection) => c.frames.find((f) => f.type === 'error');

async function remaining(userId: number): Promise<number> {
  const r = await db.query(
    "SELECT remaining FROM quota_counters WHERE user_id = $1 AND source = 'openai_api' AND model = '*'",
    [userId],
  );
  return Number(r.rows[0]?.remaining);
}

async function askLogs(userId: number): Promise<{ outcome: string; charged: number }[]> {
  const r = await db.query('SELECT outcome, charged FROM ask_logs WHERE user_id = $1 ORDER BY id', [userId]);
  return r.rows as { outcome: string; charged: number }[];
}

async function assistantMessages(userId: number): Promise<unknown[]> {
  const r = await db.query(
    "SELECT m.content FROM messages m JOIN conversations c ON c.conversation_id = m.conversation_id WHERE c.user_id = $1 AND m.role = 'assistant'",
    [userId],
  );
  return r.rows;
}

beforeAll(async () => {
  if (!DATABASE || !REDIS) return;
  upstream = new ControlledUpstream();
  const upstreamUrl = await upstream.listen();
  void pump();
  database = await freshDatabase();
  db = new pg.Client({ connectionString: database.url! });
  await db.connect();
  redis = new Redis(REDIS);
  const proxied = await TcpProxy.forUrl(REDIS);
  proxy = proxied.proxy;
  proxyUrl = proxied.url;
  const uploads = mkdtempSync(path.join(tmpdir(), 'cc-scale-uploads-'));
  dirs.push(uploads);
  const [portA, portB] = [await freePort(), await freePort()];
  a = await instance('a', portA, upstreamUrl, uploads);
  b = await instance('b', portB, upstreamUrl, uploads);
  // A creates the schema and the admin; B starts on the database A prepared.
  await a.start();
  await b.start();
  balancer = new Balancer([portA, portB]);
  await balancer.listen();
  admin = await login(ADMIN.username, ADMIN.password);
}, 120_000);

afterAll(async () => {
  if (!DATABASE || !REDIS) return;
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await balancer?.close();
  await proxy?.close();
  await upstream?.close();
  await dropRedisKeys(REDIS, prefix);
  redis?.disconnect();
  await db?.end();
  await database?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** On failure, what the instances said. */
function logs(): string {
  return `--- a ---\n${a.logTail()}\n--- b ---\n${b.logTail()}`;
}

describe.skipIf(!DATABASE || !REDIS)('two instances behind a load balancer', () => {
  it('a session made on one instance is valid on the other', async () => {
    const u = await user();
    const before = [a.port, b.port].map((p) => balancer.hits(p));
    for (let i = 0; i < 4; i++) {
      const me = await http('GET', `${balancer.url}/api/user/me`, u.cookie);
      expect(me.status).toBe(200);
    }
    // Round robin: both instances answered.
    expect(balancer.hits(a.port)).toBeGreaterThan(before[0]!);
    expect(balancer.hits(b.port)).toBeGreaterThan(before[1]!);
    for (const i of [a, b]) expect((await http('GET', `${i.url}/api/user/me`, u.cookie)).status).toBe(200);
  });

  it('a file uploaded through A downloads through B', async () => {
    const config = await http('GET', `${a.url}/api/system/config`, admin);
    const saved = config.json.result as { openai_web: { file_upload_strategy: string } };
    saved.openai_web.file_upload_strategy = 'server_upload_only';
    expect((await http('PUT', `${a.url}/api/system/config`, admin, saved)).status).toBe(200);
    const bytes = randomBytes(4096);
    const form = multipartFile(bytes, { filename: 'notes.bin' });
    const up = await fetch(`${a.url}/api/files/local/upload`, {
      method: 'POST',
      headers: { ...form.headers, cookie: admin },
      body: form.payload,
    });
    expect(up.status).toBe(201);
    const { id } = ((await up.json()) as { result: { id: string } }).result;
    const down = await fetch(`${b.url}/api/files/local/download/${id}`, { headers: { cookie: admin } });
    expect(down.status).toBe(200);
    expect(Buffer.from(await down.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('a config change saved on A is in force on B at once', async () => {
    const read = async (i: Instance) =>
      (
        (await http('GET', `${i.url}/api/system/config`, admin)).json.result as {
          openai_api: { queue_timeout: number };
        }
      ).openai_api.queue_timeout;
    const config = (await http('GET', `${a.url}/api/system/config`, admin)).json.result as {
      openai_api: { queue_timeout: number };
    };
    const next = config.openai_api.queue_timeout + 7;
    config.openai_api.queue_timeout = next;
    expect((await http('PUT', `${a.url}/api/system/config`, admin, config)).status).toBe(200);
    // Told over Redis pub/sub (about 30 ms here; shared-state.test.ts shows it is the notification that does it);
    // the deadline leaves room for a busy machine and stays far below the 30 s periodic refresh.
    await waitFor('the change on B', async () => (await read(b)) === next, 5000, 20);
  });

  it('quota race across instances: exactly the allowed number of asks is charged', async () => {
    up.auto = true;
    const u = await user(3);
    let answered = 0;
    for (let round = 0; round < 20 && answered < 4; round++) {
      const pair = await Promise.all([a, b].map((i) => ask(i.url, u.cookie, `race ${round}`)));
      const closes = await Promise.all(pair.map((c) => c.closed));
      answered += closes.filter((c) => c.code === 1000).length;
      const reasons = pair.map((c) => refused(c)?.tip).filter(Boolean);
      expect(
        reasons.every(
          (r) => r === 'errors.cannotConnectMoreThanOneClient' || r === 'errors.noAvailableTotalAskCount',
        ),
      ).toBe(true);
      if (reasons.includes('errors.noAvailableTotalAskCount')) break;
    }
    expect(answered).toBe(3);
    expect(await remaining(u.id)).toBe(0);
    expect((await askLogs(u.id)).filter((l) => l.charged === 1)).toHaveLength(3);
  });

  it(`capacity ${CAPACITY} is never exceeded across instances`, async () => {
    up.auto = false;
    up.peak = up.active;
    const users = await Promise.all([1, 2, 3, 4].map(() => user()));
    const asks = await Promise.all(users.map((u, i) => ask(i % 2 ? a.url : b.url, u.cookie, `cap ${i}`)));
    const first = await held(CAPACITY);
    await waitFor(
      'two asks queueing',
      () => asks.filter((c) => c.frames.some((f) => f.type === 'queueing')).length >= 2,
      10_000,
    );
    expect(up.active).toBe(CAPACITY);
    for (const s of first) answer(s);
    const rest = await held(2);
    for (const s of rest) answer(s);
    for (const c of asks)
      expect(await c.closed, JSON.stringify(c.frames.slice(-2))).toEqual({
        code: 1000,
        reason: 'tips.finished',
      });
    expect(up.peak).toBe(CAPACITY);
  });

  it('Redis outage: nothing crashes, logins work, asks are refused fast, answers finish; capacity holds after an empty restart', async () => {
    up.auto = false;
    up.peak = up.active;
    const [r1, r2, r3] = await Promise.all([user(), user(), user()]);
    const running = await Promise.all([ask(a.url, r1.cookie, 'long one'), ask(b.url, r2.cookie, 'long two')]);
    const streams = await held(2);
    proxy.cut();
    // "Restarted empty": every key of the deployment's prefix is gone when Redis comes back.
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    const cookie = await login(r3.username, 'user-pass-123');
    for (const i of [a, b]) {
      const me = await http('GET', `${i.url}/api/user/me`, cookie);
      expect(me.status).toBe(200);
      expect(
        (me.json.result as { setting: { openai_web_chat_status: string } }).setting.openai_web_chat_status,
      ).toBe('unknown');
    }
    const startedAt = Date.now();
    const refusedAsk = await ask(balancer.url, cookie, 'now?');
    expect(await refusedAsk.closed).toEqual({ code: 1013, reason: 'errors.temporarilyUnavailable' });
    const refusedMs = Date.now() - startedAt;
    expect(refusedMs).toBeLessThan(5_000);
    // The answers in flight go on.
    for (const s of streams) s.send('during the outage ');
    await waitFor(
      'text during the outage',
      () => running.every((c) => text(c.frames) === 'during the outage '),
      10_000,
    );

    proxy.restore();
    await waitFor(
      'both ready',
      async () =>
        (await probe(`${a.url}/api/readyz`)) === 200 && (await probe(`${b.url}/api/readyz`)) === 200,
      15_000,
    );
    // Both slots are still taken by the answers in flight: a new ask waits, even after the rebuild window.
    const waiting = await ask(balancer.url, cookie, 'after');
    await waitFor('queued', () => waiting.frames.some((f) => f.type === 'queueing'), 10_000);
    const rebuiltBy = Date.now() + LEASE_REBUILD_MS;
    await waitFor(
      'rebuilt',
      async () => Date.now() > rebuiltBy && (await redis.exists(`${prefix}rebuild`)) === 0,
      15_000,
    );
    expect(await redis.zcard(`${prefix}l:default:openai_api`)).toBe(CAPACITY);
    expect(up.held).toHaveLength(0);
    for (const s of streams) answer(s);
    for (const c of running) expect(await c.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    answer((await held(1))[0]!);
    expect((await waiting.closed).code).toBe(1000);
    expect(up.peak).toBe(CAPACITY);
    expect(a.running && b.running, logs()).toBe(true);
    console.info(`Redis outage: a new ask was refused after ${refusedMs} ms`);
  }, 60_000);

  it('kill -9: its users ask again through the other instance within 10 s, its slots are free within 10 s, its answers are settled as interrupted', async () => {
    up.auto = false;
    const [k1, k2] = await Promise.all([user(10), user(10)]);
    // Both answers run on A, the instance about to die.
    await Promise.all([ask(a.url, k1.cookie, 'partly answered'), ask(a.url, k2.cookie, 'not answered')]);
    const s1 = streamOf(await held(2), 'partly answered');
    s1.send('Partial answer');
    await waitFor(
      // (The stream is saved at most ~1 s behind.)
      'the partial answer is stored',
      async () => {
        const r = await db.query('SELECT conversation_id FROM running_asks WHERE user_id = $1', [k1.id]);
        return (
          r.rows[0]?.conversation_id != null &&
          JSON.stringify(await assistantMessages(k1.id)).includes('Partial')
        );
      },
      10_000,
    );

    a.kill('SIGKILL');
    const killedAt = Date.now();
    // Both users retry through the balancer (to B) until they are no longer refused as "already asking".
    const tries: string[] = [];
    const again = async (u: { cookie: string }) => {
      for (;;) {
        const c = await ask(balancer.url, u.cookie, 'again');
        if (c.frames.some((f) => f.type === 'queueing' || f.type === 'waiting'))
          return { c, at: Date.now() - killedAt };
        const closed = await c.closed;
        tries.push(`${closed.code} ${closed.reason}`);
        if (Date.now() - killedAt > 20_000)
          throw new Error(`still refused 20 s after kill -9: ${tries.join(', ')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const [r1, r2] = await Promise.all([again(k1), again(k2)]);
    const fresh = await held(2).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${JSON.stringify([tries, r1.c.frames, r2.c.frames])}\n${logs()}`);
    });
    const slotsMs = Date.now() - killedAt;
    for (const s of fresh) answer(s);
    for (const r of [r1, r2]) expect((await r.c.closed).code).toBe(1000);
    console.info(
      `kill -9: users asked again after ${r1.at} and ${r2.at} ms, both slots free after ${slotsMs} ms`,
    );
    expect(Math.max(r1.at, r2.at)).toBeLessThan(10_000);
    expect(slotsMs).toBeLessThan(10_000);

    // Another instance settles the dead one's asks: interrupted and refunded, answered or not (the cut-off answer
    // is not its user's to pay for).
    // Each record is settled once its own heartbeat is old: the answered one was touched later, so it may be
    // settled by a later sweep than the other (wait for both).
    const settled = async (id: number) => (await askLogs(id)).some((l) => l.outcome === 'interrupted');
    await waitFor(
      'interrupted asks settled',
      async () => (await settled(k1.id)) && (await settled(k2.id)),
      30_000,
    );
    expect(await askLogs(k1.id)).toEqual(expect.arrayContaining([{ outcome: 'interrupted', charged: 0 }]));
    expect(await askLogs(k2.id)).toEqual(expect.arrayContaining([{ outcome: 'interrupted', charged: 0 }]));
    expect(await remaining(k1.id)).toBe(9);
    expect(await remaining(k2.id)).toBe(9);
    // The cut-off answer is kept.
    expect(JSON.stringify(await assistantMessages(k1.id))).toContain('Partial answer');
    // …and finished (no longer marked as streaming).
    const marked = await db.query(
      'SELECT m.streaming FROM messages m JOIN conversations c ON c.conversation_id = m.conversation_id WHERE c.user_id = $1',
      [k1.id],
    );
    expect(marked.rows.map((r: { streaming: number }) => r.streaming)).not.toContain(1);

    await a.start();
  }, 90_000);

  it('SIGTERM drains: not ready, no new asks, running answers finish or are cut off, locks released, exit 0', async () => {
    up.auto = false;
    const [d1, d2, d3] = await Promise.all([user(), user(), user()]);
    const [finishes, cut] = await Promise.all([
      ask(a.url, d1.cookie, 'finishes'),
      ask(a.url, d2.cookie, 'cut off'),
    ]);
    const streams = await held(2);
    const s1 = streamOf(streams, 'finishes');
    s1.send('Done soon');
    streamOf(streams, 'cut off').send('Cut off here');
    await waitFor('text', () => text(cut.frames) === 'Cut off here', 10_000);

    a.kill('SIGTERM');
    const termAt = Date.now();
    await waitFor('a not ready', async () => (await probe(`${a.url}/api/readyz`)) === 503, 5_000, 50);
    const refusedHere = connect(a.url, question('here?'), d3.cookie);
    expect(await refusedHere.closed).toEqual({ code: 1012, reason: 'errors.serverRestarting' });

    answer(s1);
    expect(await finishes.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    expect(await cut.closed).toEqual({ code: 1001, reason: 'tips.interrupted' });
    const cutMs = Date.now() - termAt;
    // Its user asks again at once, through the other instance.
    up.auto = true;
    const next = await ask(balancer.url, d2.cookie, 'again');
    expect(await next.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    expect(await a.exited).toBe(0);
    const exitMs = Date.now() - termAt;
    expect(await askLogs(d2.id)).toEqual([
      { outcome: 'interrupted', charged: 0 },
      { outcome: 'success', charged: 1 },
    ]);
    expect(await askLogs(d1.id)).toEqual([{ outcome: 'success', charged: 1 }]);
    console.info(
      `SIGTERM: the unfinished answer was cut off after ${cutMs} ms, the process exited 0 after ${exitMs} ms`,
    );
    expect(cutMs).toBeGreaterThanOrEqual(DRAIN_SECONDS * 1000 - 500);
  }, 60_000);
});
