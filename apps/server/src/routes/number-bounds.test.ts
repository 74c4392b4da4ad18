import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigWriteInput, UserReadAdmin } from '@cc/contracts';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp({}, undefined, { demo: false });
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { cookie: admin },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** A refused value: 422 with the field named in the detail, never a value quietly corrected. */
async function expectRefused(res: Awaited<ReturnType<typeof call>>, loc: (string | number)[]) {
  expect(res.statusCode, res.body).toBe(422);
  const body = res.json();
  expect(body.code).toBe(422);
  expect(body.result.detail).toEqual(
    expect.arrayContaining([expect.objectContaining({ loc: ['body', ...loc] })]),
  );
}

describe('admin numbers out of range are refused with 422, not rewritten', () => {
  it("a user's settings: a negative count, a window of 0, negative credits; nothing is saved", async () => {
    const u = await t.createUser();
    const before = (await call('GET', `/api/user/${u.row.id}`)).json().result as UserReadAdmin;
    const { openai_web, openai_api, credits } = before.setting;
    const body = { credits, openai_web, openai_api };

    await expectRefused(
      await call('PATCH', `/api/user/${u.row.id}/setting`, {
        ...body,
        openai_web: { ...openai_web, total_ask_count: -5 },
      }),
      ['openai_web', 'total_ask_count'],
    );
    await expectRefused(
      await call('PATCH', `/api/user/${u.row.id}/setting`, {
        ...body,
        openai_api: { ...openai_api, rate_limits: [{ window_seconds: 0, max_requests: 5 }] },
      }),
      ['openai_api', 'rate_limits', 0, 'window_seconds'],
    );
    await expectRefused(
      await call('PATCH', `/api/user/${u.row.id}/setting`, {
        ...body,
        openai_web: { ...openai_web, per_model_ask_count: { gpt_4: -2 } },
      }),
      ['openai_web', 'per_model_ask_count', 'gpt_4'],
    );
    await expectRefused(await call('PATCH', `/api/user/${u.row.id}/setting`, { ...body, credits: -5 }), [
      'credits',
    ]);

    const after = (await call('GET', `/api/user/${u.row.id}`)).json().result as UserReadAdmin;
    expect(after.setting).toEqual(before.setting);
  });

  it('the config, a server, a task interval and the log filters', async () => {
    const config = (await call('GET', '/api/system/config')).json().result as ConfigWriteInput;
    await expectRefused(
      await call('PUT', '/api/system/config', {
        ...config,
        openai_web: { ...config.openai_web, gpt4_cap_per_3_hours: -5 },
      }),
      ['openai_web', 'gpt4_cap_per_3_hours'],
    );
    expect(t.ctx.runtime.current().openai_web.gpt4_cap_per_3_hours).toBe(50);

    const server = {
      source: 'openai_api',
      hostname: 'bounds',
      ip_address: '127.0.0.1',
      port: 9,
      status: 'disabled',
    };
    await expectRefused(await call('POST', '/api/system/addMachine', { ...server, weight: 0 }), ['weight']);
    await expectRefused(await call('POST', '/api/system/addMachine', { ...server, max_concurrency: -5 }), [
      'max_concurrency',
    ]);
    await expectRefused(await call('POST', '/api/system/addMachine', { ...server, port: 70000 }), ['port']);
    expect((await call('GET', '/api/system/getAllMachine')).json().result).toEqual([]);

    await expectRefused(await call('PATCH', '/api/system/task/stats_retention', { interval_seconds: 0 }), [
      'interval_seconds',
    ]);
    await expectRefused(await call('PATCH', '/api/system/task/stats_retention', { interval_seconds: -5 }), [
      'interval_seconds',
    ]);
    const task = (
      (await call('GET', '/api/system/queryTask')).json().result as {
        name: string;
        interval_seconds: number;
      }[]
    ).find((x) => x.name === 'stats_retention');
    expect(task?.interval_seconds).toBe(3600);

    await expectRefused(await call('POST', '/api/system/logs/server', { max_lines: 0 }), ['max_lines']);
    const res = await call('GET', '/api/system/logs/completions?max_results=-5');
    expect(res.statusCode).toBe(422);
    expect(res.json().result.detail[0].loc).toEqual(['querystring', 'max_results']);
  });
});
