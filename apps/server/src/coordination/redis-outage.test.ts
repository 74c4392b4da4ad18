import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AskRequestInput } from '@cc/contracts';
import { answerText, connect, until, within } from '../test/chat-client';
import { chatUser } from '../test/chat-users';
import { ControlledUpstream } from '../test/controlled-upstream';
import type { ControlledStream } from '../test/controlled-upstream';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { dropRedisKeys, testRedisPrefix } from '../test/redis-keys';
import { TcpProxy } from '../test/tcp-proxy';
import { LEASE_REBUILD_MS } from './leases';

// Redis goes away mid-stream (a proxy of the test's own is cut; the machine's Redis is never touched), and comes
// back empty. Runs in the PostgreSQL + Redis suite (CC_TEST_REDIS_URL).
const REDIS = process.env.CC_TEST_REDIS_URL;

let t: TestApp;
let url: string;
let proxy: TcpProxy;
let upstream: ControlledUpstream;
let direct: Redis;
const prefix = testRedisPrefix();
/** Streams the upstream is serving right now, and the most ever served at once. */
let active = 0;
let peak = 0;

/** The next streamed request, counted as active until it finishes. */
async function nextStream(): Promise<ControlledStream> {
  const s = await upstream.next();
  active += 1;
  peak = Math.max(peak, active);
  const finish = s.finish.bind(s);
  s.finish = (options) => {
    active -= 1;
    finish(options);
  };
  return s;
}

beforeAll(async () => {
  if (!REDIS) return;
  upstream = new ControlledUpstream();
  const upstreamUrl = await upstream.listen();
  const proxied = await TcpProxy.forUrl(REDIS);
  proxy = proxied.proxy;
  direct = new Redis(REDIS);
  t = await createTestApp({
    data: { redis_url: proxied.url, redis_prefix: prefix },
    openai_api: { openai_base_url: upstreamUrl, max_completion_concurrency: 1, read_timeout: 60 },
  });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  if (!REDIS) return;
  await t.close();
  await proxy.close();
  await upstream.close();
  await dropRedisKeys(REDIS, prefix);
  direct.disconnect();
});

const question = (text: string): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  new_title: 'Outage',
  text_content: text,
  stream_mode: 'delta',
});

const ready = async () => (await t.app.inject({ url: '/api/readyz' })).statusCode === 200;

describe.skipIf(!REDIS)('Redis outage (through a proxy the test cuts)', () => {
  afterEach(() => proxy.restore());

  it('mid-stream: the answer finishes, logins and /me keep working, new asks are refused fast', async () => {
    const a = await chatUser(t);
    const b = await chatUser(t);
    const first = connect(url, question('keep going'), a.cookie);
    const stream = await within(nextStream(), 10_000, 'the first ask reaching the upstream');
    stream.send('Hello ');
    await until(() => answerText(first.frames) === 'Hello ');

    proxy.cut();
    // Logging in and reading oneself work; the chat status is unknown rather than a 500.
    const cookie = await t.login(b.username, b.password);
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().result.setting.openai_web_chat_status).toBe('unknown');
    expect((await t.app.inject({ url: '/api/status/common', headers: { cookie } })).statusCode).toBe(200);
    expect(await ready()).toBe(false);

    // A new ask is refused within seconds, with a clear reason and nothing charged.
    const startedAt = Date.now();
    const refused = connect(url, question('now?'), cookie);
    const closed = await within(refused.closed, 10_000, 'the ask during the outage closing');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(closed).toEqual({ code: 1013, reason: 'errors.temporarilyUnavailable' });
    expect(refused.frames).toEqual([
      expect.objectContaining({ type: 'error', tip: 'errors.temporarilyUnavailable' }),
    ]);

    // The running answer finishes and is kept.
    stream.send('world');
    stream.finish();
    expect(await within(first.closed, 10_000, 'the running answer finishing')).toEqual({
      code: 1000,
      reason: 'tips.finished',
    });
    expect(answerText(first.frames)).toBe('Hello world');

    proxy.restore();
    await until(ready, 10_000);
    const again = connect(url, question('and now?'), cookie);
    const next = await within(nextStream(), 15_000, 'an ask after the outage reaching the upstream');
    next.send('Back');
    next.finish();
    expect(await within(again.closed, 10_000, 'the ask after the outage finishing')).toEqual({
      code: 1000,
      reason: 'tips.finished',
    });
  }, 30_000);

  it('capacity 1, Redis restarted empty mid-stream: never two streams at once', async () => {
    const a = await chatUser(t);
    const b = await chatUser(t);
    peak = active;
    const first = connect(url, question('long answer'), a.cookie);
    const stream = await nextStream();
    stream.send('Part one ');
    await until(() => answerText(first.frames) === 'Part one ');

    // "Restarted empty": cut, every key of the prefix gone, back.
    proxy.cut();
    const keys = await direct.keys(`${prefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    proxy.restore();
    await until(ready, 10_000);

    // B asks at once: the slot is still A's, so B waits in the queue.
    const second = connect(url, question('my turn?'), b.cookie);
    await until(() => second.frames.some((f) => f.type === 'queueing'), 10_000);
    // Past the rebuild window, A's slot is back in Redis and B still waits.
    const rebuiltBy = Date.now() + LEASE_REBUILD_MS;
    await until(
      async () => Date.now() > rebuiltBy && (await direct.exists(`${prefix}rebuild`)) === 0,
      15_000,
    );
    expect(await direct.zcard(`${prefix}l:default:openai_api`)).toBe(1);
    expect(second.frames.some((f) => f.type === 'waiting')).toBe(false);
    // A's user lock came back too: A cannot start a second ask meanwhile.
    const twice = connect(url, question('twice'), a.cookie);
    expect((await twice.closed).reason).toBe('errors.cannotConnectMoreThanOneClient');

    stream.send('part two');
    stream.finish();
    expect(await first.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    const next = await nextStream();
    next.send('Yes');
    next.finish();
    expect(await second.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    expect(peak).toBe(1);
  }, 40_000);
});
