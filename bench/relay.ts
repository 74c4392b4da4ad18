/**
 * Relay benchmark: many users asking at once through the real app (SQLite, in-process emulator upstream).
 * Reports wall time, time to first token (p50/p95), frames per second, bytes sent in full vs delta mode, and
 * peak RSS. Run: `node --import tsx bench/relay.ts [users=100] [words=400]`.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { login } from '../apps/server/src/services/auth.service';
import { updateUserSettings } from '../apps/server/src/services/user.service';
import { joinSettings } from '../apps/server/src/presenters/user.presenter';
import { createTestApp } from '../apps/server/src/test/harness';

const users = Number(process.argv[2] ?? 100);
const words = Number(process.argv[3] ?? 400);

const t = await createTestApp({ openai_api: { max_completion_concurrency: 64 } });
const url = (await t.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws');
t.ctx.demo!.emulator.setKnobs({ chunkSize: 6, tokensPerSecond: 0 });
const cookies: string[] = [];
for (let i = 0; i < users; i++) {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_api.rate_limits = [];
  s.openai_api.total_ask_count = -1;
  s.openai_api.max_conv_count = -1;
  await updateUserSettings(t.ctx, u.row.id, s);
  const session = await login(t.ctx, {
    username: u.row.username,
    password: u.password,
    ip: `10.1.${i >> 8}.${i & 255}`,
    userAgent: 'bench',
  });
  cookies.push(`cc_session=${session.token}`);
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

async function round(mode: 'full' | 'delta') {
  const firstToken: number[] = [];
  let frames = 0;
  let bytes = 0;
  const start = performance.now();
  await Promise.all(
    cookies.map(
      (cookie) =>
        new Promise<void>((resolve, reject) => {
          const began = performance.now();
          let first = false;
          const ws = new WebSocket(`${url}/api/chat`, { headers: { cookie } });
          ws.on('open', () =>
            ws.send(
              JSON.stringify({
                source: 'openai_api',
                model: 'gpt_3_5',
                new_conversation: true,
                text_content: `#long ${words}`,
                stream_mode: mode,
              }),
            ),
          );
          ws.on('message', (data: Buffer) => {
            frames++;
            bytes += data.length;
            if (!first && data.includes('"assistant"')) {
              first = true;
              firstToken.push(performance.now() - began);
            }
          });
          ws.on('close', (code) => (code === 1000 ? resolve() : reject(new Error(`closed ${code}`))));
          ws.on('error', reject);
        }),
    ),
  );
  const wall = performance.now() - start;
  firstToken.sort((a, b) => a - b);
  const pct = (p: number) =>
    firstToken[Math.min(firstToken.length - 1, Math.floor(p * firstToken.length))]!.toFixed(0);
  return {
    mode,
    wall_ms: wall.toFixed(0),
    ttft_p50_ms: pct(0.5),
    ttft_p95_ms: pct(0.95),
    frames,
    frames_per_s: (frames / (wall / 1000)).toFixed(0),
    mb_sent: (bytes / 1e6).toFixed(2),
  };
}

const results = [await round('full'), await round('delta')];
clearInterval(sampler);
console.log(`relay: ${users} concurrent asks of ${words} words (openai_api, emulator, SQLite)`);
console.table(results);
console.log(`peak RSS: ${(peakRss / 1e6).toFixed(0)} MB`);
await t.close();
process.exit(0);
