import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { updateUserSettings } from '../services/user.service';
import { apiAsk, ask, connect, until } from '../test/chat-client';
import { ControlledUpstream } from '../test/controlled-upstream';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

const TOKEN = 'metrics-token-0123456789';

let t: TestApp;
let url: string;
let admin: string;
let upstream: ControlledUpstream;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = new ControlledUpstream();
  upstreamUrl = await upstream.listen();
  t = await createTestApp({ auth: { metrics_token: TOKEN }, openai_api: { read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (label values here never hold quotes or commas). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[pair[1]!] = pair[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample named so whose labels include `labels`; 0 when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value ?? 0;
}

async function scrape(): Promise<Sample[]> {
  const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode, res.body).toBe(200);
  return parse(res.body);
}

async function apiUser(patch?: (s: ReturnType<typeof joinSettings>) => void) {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_api.rate_limits = [];
  s.openai_api.allow_custom_openai_api = true;
  s.openai_api.custom_openai_api_settings = { url: upstreamUrl, key: 'sk-test' };
  patch?.(s);
  await updateUserSettings(t.ctx, u.row.id, s);
  return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
}

const question = apiAsk('hi');

describe('/metrics access', () => {
  it('refuses a caller without credentials (401) or with a wrong token (401), and an ordinary user (403)', async () => {
    const anonymous = await t.app.inject({ url: '/metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 10401 });
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    const wrong = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    });
    expect(wrong.statusCode).toBe(401);
    const user = await t.createUser();
    const cookie = await t.login(user.row.username, user.password);
    const ordinary = await t.app.inject({ url: '/metrics', headers: { cookie } });
    expect(ordinary.statusCode).toBe(403);
    expect(ordinary.json()).toMatchObject({ code: 10403 });
    // An ordinary user holding the token reads them (the token is the scraper's credential, whoever sends it).
    const withToken = await t.app.inject({
      url: '/metrics',
      headers: { cookie, authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.statusCode).toBe(200);
  });

  it('serves the Prometheus text format to the token and to a superuser session', async () => {
    const byToken = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(byToken.statusCode).toBe(200);
    expect(byToken.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(byToken.body).toContain('# TYPE cc_asks_total counter');
    // Process metrics come along.
    expect(byToken.body).toContain('process_cpu_user_seconds_total');
    expect(byToken.body).toContain('nodejs_eventloop_lag_seconds');
    const bySession = await t.app.inject({ url: '/metrics', headers: { cookie: admin } });
    expect(bySession.statusCode).toBe(200);
    expect(bySession.body).toContain('# TYPE cc_http_request_duration_seconds histogram');
  });

  it('masks the token in the admin config', async () => {
    const res = await t.app.inject({ url: '/api/system/config', headers: { cookie: admin } });
    expect(res.json().result.auth.metrics_token).toBe(MASKED_SECRET);
    expect(res.body).not.toContain(TOKEN);
  });

  it('without a configured token, a bearer token is never enough', async () => {
    const other = await createTestApp({}, undefined, { demo: false });
    try {
      const res = await other.app.inject({ url: '/metrics', headers: { authorization: 'Bearer ' } });
      expect(res.statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('what the metrics show', () => {
  it('an answer through the websocket: streaming and socket gauges while it runs, then counters and histograms', async () => {
    const u = await apiUser();
    const before = await scrape();
    const labels = { source: 'openai_api', model: 'gpt_3_5', outcome: 'success' };
    const conn = connect(url, question, u.cookie);
    const stream = await upstream.next();
    stream.send('Hello ');
    await until(() => conn.frames.some((f) => f.type === 'message' && f.message?.role === 'assistant'));
    const during = await scrape();
    expect(value(during, 'cc_answers_streaming', { source: 'openai_api' })).toBe(1);
    expect(value(during, 'cc_websockets_open')).toBe(value(before, 'cc_websockets_open') + 1);
    stream.send('world');
    stream.finish();
    expect((await conn.closed).code).toBe(1000);
    // The server sees the socket close once the closing handshake is done: wait for both.
    const settled = (s: Sample[]) =>
      value(s, 'cc_asks_total', labels) === 1 &&
      value(s, 'cc_websockets_open') === value(before, 'cc_websockets_open');
    await until(async () => settled(await scrape()));

    const after = await scrape();
    expect(value(after, 'cc_answers_streaming', { source: 'openai_api' })).toBe(0);
    expect(value(after, 'cc_answer_duration_seconds_count', labels)).toBe(1);
    expect(value(after, 'cc_answer_duration_seconds_sum', labels)).toBeGreaterThan(0);
    expect(
      value(after, 'cc_time_to_first_token_seconds_count', { source: 'openai_api', model: 'gpt_3_5' }),
    ).toBe(1);
    const firstToken = value(after, 'cc_time_to_first_token_seconds_sum', {
      source: 'openai_api',
      model: 'gpt_3_5',
    });
    expect(firstToken).toBeLessThanOrEqual(value(after, 'cc_answer_duration_seconds_sum', labels));
    expect(value(after, 'cc_queue_wait_seconds_count', { source: 'openai_api' })).toBe(
      value(before, 'cc_queue_wait_seconds_count', { source: 'openai_api' }) + 1,
    );
    expect(value(after, 'cc_queue_length', { source: 'openai_api' })).toBe(0);
    expect(value(after, 'cc_queue_length', { source: 'openai_web' })).toBe(0);
    // Before the upstream request: its turn to be admitted, then the checks and the charge.
    for (const step of ['turn', 'checks']) {
      const labels = { source: 'openai_api', step };
      expect(value(after, 'cc_ask_admission_seconds_count', labels)).toBe(
        value(before, 'cc_ask_admission_seconds_count', labels) + 1,
      );
    }
    const checks = { source: 'openai_api', step: 'checks' };
    const checked =
      value(after, 'cc_ask_admission_seconds_sum', checks) -
      value(before, 'cc_ask_admission_seconds_sum', checks);
    // (The checks read and write the database: they take some time, and less than the whole answer.)
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThan(value(after, 'cc_answer_duration_seconds_sum', labels));
  });

  it('an upstream error counts by status; a refused ask counts as refused; other models fold into "other"', async () => {
    const u = await apiUser((s) => {
      s.openai_api.allow_custom_openai_api = false;
    });
    const before = await scrape();
    t.ctx.demo!.emulator.setFault({ status: 429, once: true });
    const failed = await ask(url, question, { cookie: u.cookie });
    expect(failed.frames.pop()).toMatchObject({ type: 'error', tip: 'errors.openai.429' });
    const broke = await apiUser((s) => {
      s.openai_api.allow_custom_openai_api = false;
      s.openai_api.total_ask_count = 0;
    });
    await ask(url, question, { cookie: broke.cookie });
    await ask(url, { ...question, model: 'made-up-model' }, { cookie: broke.cookie });
    const samples = await scrape();
    expect(value(samples, 'cc_upstream_errors_total', { source: 'openai_api', status: '429' })).toBe(1);
    expect(
      value(samples, 'cc_asks_total', { source: 'openai_api', model: 'gpt_3_5', outcome: 'error' }),
    ).toBe(1);
    expect(
      value(samples, 'cc_asks_total', { source: 'openai_api', model: 'gpt_3_5', outcome: 'refused' }),
    ).toBe(1);
    expect(
      value(samples, 'cc_asks_total', { source: 'openai_api', model: 'other', outcome: 'refused' }),
    ).toBe(1);
    expect(samples.some((s) => s.labels.model === 'made-up-model')).toBe(false);
    // Every ask waited for its turn; only the admitted one (the upstream's 429 came after) passed the checks.
    const admitted = (samples: Sample[], step: string) =>
      value(samples, 'cc_ask_admission_seconds_count', { source: 'openai_api', step });
    expect(admitted(samples, 'turn') - admitted(before, 'turn')).toBe(3);
    expect(admitted(samples, 'checks') - admitted(before, 'checks')).toBe(1);
  });

  it('HTTP durations by route pattern, never by raw URL', async () => {
    const u = await apiUser();
    await t.app.inject({
      url: '/api/conv/00000000-0000-4000-8000-000000000001',
      headers: { cookie: u.cookie },
    });
    await t.app.inject({ url: '/api/no/such/route' });
    const samples = await scrape();
    const count = (route: string) =>
      samples
        .filter((s) => s.name === 'cc_http_request_duration_seconds_count' && s.labels.route === route)
        .reduce((n, s) => n + s.value, 0);
    expect(count('/api/conv/:conversation_id')).toBeGreaterThanOrEqual(1);
    expect(count('unmatched')).toBeGreaterThanOrEqual(1);
    expect(count('/api/auth/login')).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.labels.route?.includes('00000000-'))).toBe(false);
    expect(
      value(samples, 'cc_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/auth/login',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});
