import { createServer } from 'node:net';
import { startEmulator } from '@cc/upstream-emulator';
import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAsk, ask, openAsk, until } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let a: Emulator;
let b: Emulator;

beforeAll(async () => {
  t = await createTestApp({ openai_api: { connect_timeout: 2, read_timeout: 5 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  a = await startEmulator();
  b = await startEmulator();
});
afterAll(async () => {
  await t.close();
  await a.close();
  await b.close().catch(() => undefined);
});

const port = (e: Emulator) => Number(new URL(e.url).port);
const post = (path: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: path, headers: { cookie: admin }, payload: payload as object });
const get = (path: string) => t.app.inject({ url: path, headers: { cookie: admin } });
const machine = (e: Emulator, hostname: string) => ({
  source: 'openai_api',
  hostname,
  ip_address: '127.0.0.1',
  port: port(e),
  base_path: '/v1/',
  status: 'online',
  max_concurrency: 1,
});
const completions = (e: Emulator) =>
  e.requests.filter((r) => r.path === '/v1/chat/completions' && (r.body as { stream?: boolean }).stream)
    .length;

describe('servers', () => {
  it('validates hostname, IP address and status with the SPEC message, and the port range', async () => {
    const res = await post('/api/system/addMachine', { source: 'openai_api', port: 70000 });
    expect(res.statusCode).toBe(422);
    const detail = res.json().result.detail as { loc: string[]; msg: string }[];
    const byField = Object.fromEntries(detail.map((d) => [d.loc[1], d.msg]));
    expect(byField).toMatchObject({
      hostname: 'validation.machineFieldsRequired',
      ip_address: 'validation.machineFieldsRequired',
      status: 'validation.machineFieldsRequired',
    });
    expect(byField.port).toBeDefined();
  });

  it('spreads asks over online servers, fails over before the first token, and the health check marks a dead one offline', async () => {
    const added = await post('/api/system/addMachine', machine(a, 'alpha'));
    expect(added.statusCode).toBe(201);
    const alpha = added.json().result;
    expect(alpha).toMatchObject({ hostname: 'alpha', status: 'online', created_at: expect.any(String) });
    const beta = (await post('/api/system/addMachine', machine(b, 'beta'))).json().result;
    expect((await get('/api/system/getAllMachine')).json().result).toHaveLength(2);

    // Two slow asks at once: one per server.
    a.setKnobs({ tokensPerSecond: 200, chunkSize: 4 });
    b.setKnobs({ tokensPerSecond: 200, chunkSize: 4 });
    const u1 = await t.createUser();
    const u2 = await t.createUser();
    const c1 = await t.login(u1.row.username, u1.password);
    const c2 = await t.login(u2.row.username, u2.password);
    const first = openAsk(url, apiAsk('#long 120'), c1);
    const second = openAsk(url, apiAsk('#long 120'), c2);
    await until(
      () => first.frames.some((f) => f.type === 'message') && second.frames.some((f) => f.type === 'message'),
    );
    const info = (await get('/api/system/queryMachineInfo')).json().result as {
      hostname: string;
      in_flight: number;
    }[];
    expect(info.map((i) => i.in_flight)).toEqual([1, 1]);
    expect((await first.closed).code).toBe(1000);
    expect((await second.closed).code).toBe(1000);
    expect([completions(a), completions(b)]).toEqual([1, 1]);

    // Beta dies; asks still succeed (failover before the first token), all on alpha.
    await b.close();
    const beforeA = completions(a);
    for (let i = 0; i < 3; i++) {
      const r = await ask(
        url,
        { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: `after ${i}` },
        { cookie: c1 },
      );
      expect(r.code).toBe(1000);
    }
    expect(completions(a) - beforeA).toBe(3);

    const summary = (await post('/api/system/checkMachines', {})).json().result as string;
    expect(summary).toContain('beta: offline');
    const rows = (await get('/api/system/getAllMachine')).json().result as {
      id: number;
      status: string;
      last_error: string | null;
      last_check_time: string | null;
    }[];
    expect(rows.find((r) => r.id === beta.id)).toMatchObject({
      status: 'offline',
      last_error: expect.any(String),
      last_check_time: expect.any(String),
    });
    expect(rows.find((r) => r.id === alpha.id)).toMatchObject({ status: 'online', last_error: null });
    const offline = (await get('/api/system/queryMachine?status=offline')).json().result as { id: number }[];
    expect(offline.map((r) => r.id)).toEqual([beta.id]);

    // Update and delete.
    const updated = await post('/api/system/updateMachine', { id: alpha.id, weight: 3, status: 'disabled' });
    expect(updated.json().result).toMatchObject({ weight: 3, status: 'disabled' });
    const none = await ask(url, apiAsk('nobody'), { cookie: c1 });
    expect(none.frames.pop()).toMatchObject({ type: 'error', tip: 'errors.config' });
    for (const id of [alpha.id, beta.id]) {
      expect(
        (
          await t.app.inject({
            method: 'DELETE',
            url: `/api/system/delMachine/${id}`,
            headers: { cookie: admin },
          })
        ).statusCode,
      ).toBe(200);
    }
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/system/delMachine/${alpha.id}`,
          headers: { cookie: admin },
        })
      ).statusCode,
    ).toBe(404);
    // Without servers the configured (demo) upstream serves again.
    const back = await ask(url, apiAsk('back'), { cookie: c1 });
    expect(back.code).toBe(1000);
  });

  it('refuses an address that is neither an IP nor a host name, and a port out of range', async () => {
    for (const [field, value] of [
      ['ip_address', '999.1.1.1'],
      ['ip_address', '10.0.0'],
      ['ip_address', 'http://10.0.0.1'],
      ['hostname', 'bad host'],
    ] as const) {
      const res = await post('/api/system/addMachine', { ...machine(a, 'gamma'), [field]: value });
      expect(res.statusCode, `${field}=${value}`).toBe(422);
      expect(res.json().result.detail).toEqual([
        expect.objectContaining({ loc: ['body', field], msg: 'validation.machineAddress' }),
      ]);
    }
    for (const port of [0, 65536, 80.5]) {
      const res = await post('/api/system/addMachine', { ...machine(a, 'gamma'), port });
      expect(res.statusCode).toBe(422);
      expect(res.json().result.detail[0].loc).toEqual(['body', 'port']);
    }
    const ok = await post('/api/system/addMachine', { ...machine(a, 'gamma'), status: 'disabled' });
    expect(ok.statusCode).toBe(201);
    const id = ok.json().result.id as number;
    const bad = await post('/api/system/updateMachine', { id, ip_address: '300.1.1.1' });
    expect(bad.statusCode).toBe(422);
    expect((await get(`/api/system/queryMachine?id=${id}`)).json().result[0].ip_address).toBe('127.0.0.1');
    await t.app.inject({ method: 'DELETE', url: `/api/system/delMachine/${id}`, headers: { cookie: admin } });
  });

  it('a new or edited server takes traffic only after a check passes', async () => {
    // A port nobody listens on.
    const dead = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const { port: p } = srv.address() as { port: number };
        srv.close(() => resolve(p));
      });
    });
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const asked = () => ask(url, apiAsk('checked?'), { cookie });

    const added = await post('/api/system/addMachine', { ...machine(a, 'typo'), port: dead });
    expect(added.statusCode).toBe(201);
    const typo = added.json().result;
    expect(typo).toMatchObject({
      status: 'offline',
      last_error: expect.any(String),
      last_check_time: expect.any(String),
    });
    // The only server of the source failed its check: no ask is sent to it.
    expect((await asked()).frames.pop()).toMatchObject({ type: 'error', tip: 'errors.config' });

    // Fixed to a reachable port: checked at once, online, and asks go there.
    const fixed = await post('/api/system/updateMachine', { id: typo.id, port: port(a), status: 'online' });
    expect(fixed.json().result).toMatchObject({ status: 'online', last_error: null });
    const before = completions(a);
    expect((await asked()).code).toBe(1000);
    expect(completions(a)).toBe(before + 1);

    // Moved to a dead port while online: checked again, and offline until a check passes.
    const moved = await post('/api/system/updateMachine', { id: typo.id, port: dead });
    expect(moved.json().result).toMatchObject({ status: 'offline', last_error: expect.any(String) });
    expect((await asked()).frames.pop()).toMatchObject({ type: 'error', tip: 'errors.config' });

    // A change that does not move it (weight) keeps its status without a check.
    await post('/api/system/updateMachine', { id: typo.id, port: port(a), status: 'online' });
    const probes = a.requests.filter((r) => r.path === '/v1/models').length;
    const weighted = await post('/api/system/updateMachine', { id: typo.id, weight: 4 });
    expect(weighted.json().result).toMatchObject({ status: 'online', weight: 4 });
    expect(a.requests.filter((r) => r.path === '/v1/models').length).toBe(probes);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/system/delMachine/${typo.id}`,
      headers: { cookie: admin },
    });
  });
});
