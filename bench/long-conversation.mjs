/* global window, document, requestAnimationFrame */
// Rendering benchmark of the built web app, with /api mocked in the browser (no server needed):
//  1. open a 1,000-message conversation: time until its latest message is on screen, DOM size, rows in the DOM;
//  2. stream a long answer (3,000 delta chunks through a fake websocket): time of the first and the last 500
//     chunks, long tasks — the per-chunk cost must not grow with the answer.
// Usage: node bench/long-conversation.mjs [--messages 1000] [--chunks 3000]. Builds apps/web/dist when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = process.env.CC_WEB_DIST ?? path.join(root, 'apps/web/dist');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const MESSAGES = arg('messages', 1000);
const CHUNKS = arg('chunks', 3000);

if (!existsSync(path.join(dist, 'index.html'))) {
  const built = spawnSync('npm', ['run', 'build', '-w', '@cc/web'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const TYPES = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.svg': 'image/svg+xml',
};
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  let file = path.join(dist, path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ''));
  if (!file.startsWith(dist) || !existsSync(file) || url.pathname === '/')
    file = path.join(dist, 'index.html');
  try {
    const body = readFileSync(file);
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(readFileSync(path.join(dist, 'index.html')));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const now = new Date().toISOString();
const setting = (models) => ({
  allow_to_use: true,
  valid_until: null,
  max_conv_count: -1,
  total_ask_count: -1,
  rate_limits: [],
  daily_available_time_slots: [],
  available_models: models,
  per_model_ask_count: {},
});
const user = {
  id: 1,
  email: 'a@example.com',
  is_active: true,
  is_superuser: false,
  is_verified: true,
  username: 'bench',
  nickname: 'Bench',
  last_active_time: now,
  create_time: now,
  avatar: null,
  setting: {
    id: 1,
    user_id: 1,
    credits: -1,
    openai_web_chat_status: 'idling',
    openai_web: {
      ...setting(['gpt_3_5', 'gpt_4']),
      allow_uploading_attachments: true,
      allow_uploading_multimodal_images: true,
    },
    openai_api: {
      ...setting(['gpt_3_5', 'gpt_4']),
      allow_custom_openai_api: false,
      custom_openai_api_settings: { url: null, key: null },
    },
  },
};
const CONV = '00000000-0000-4000-8000-000000000001';
function answer(i) {
  return `### Answer ${i}\n\nHere is **markdown** with math $x_${i}^2$ and a list:\n\n- one\n- two\n\n\`\`\`python\nprint(${i})\n\`\`\`\n\nThe end of answer ${i}.`;
}
const mapping = {};
let parent = null;
for (let i = 0; i < MESSAGES; i++) {
  const id = `00000000-0000-4000-8000-${String(i + 10).padStart(12, '0')}`;
  const role = i % 2 === 0 ? 'user' : 'assistant';
  mapping[id] = {
    id,
    source: 'openai_api',
    role,
    model: 'gpt_4',
    create_time: now,
    parent,
    children: [],
    content: {
      content_type: 'text',
      text: role === 'user' ? `Question ${i}: tell me about ${i}` : answer(i),
    },
    metadata: {},
  };
  if (parent) mapping[parent].children.push(id);
  parent = id;
}
const history = {
  _id: CONV,
  source: 'openai_api',
  title: 'Benchmark',
  create_time: now,
  update_time: now,
  mapping,
  current_node: parent,
  current_model: 'gpt_4',
};
const envelope = (result) => JSON.stringify({ code: 200, message: 'tips.requestSuccess', result });
const routes = {
  '/api/user/me': user,
  '/api/conv': [
    {
      id: 1,
      source: 'openai_api',
      conversation_id: CONV,
      title: 'Benchmark',
      user_id: 1,
      is_valid: true,
      is_public: false,
      current_model: 'gpt_4',
      create_time: now,
      update_time: now,
    },
  ],
  [`/api/conv/${CONV}`]: history,
  '/api/status/common': {
    active_user_in_5m: 1,
    active_user_in_1h: 1,
    active_user_in_1d: 1,
    is_chatbot_busy: false,
    chatbot_waiting_count: 0,
    gpt4_count_in_3_hours: 0,
  },
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
await context.route('**/api/**', (route) => {
  const p = new URL(route.request().url()).pathname;
  const body = routes[p];
  return route.fulfill({
    status: body ? 200 : 404,
    contentType: 'application/json',
    body: body ? envelope(body) : JSON.stringify({ code: 404, message: 'errors.notFound', result: p }),
  });
});
await context.addInitScript(
  ({ chunks }) => {
    localStorage.setItem('loginExpiresAt', String(Date.now() + 86_400_000));
    localStorage.setItem('language', 'en-US');
    // A fake chat socket: echoes the question, then streams `chunks` deltas as fast as the page takes them.
    class FakeSocket {
      static CONNECTING = 0;
      static OPEN = 1;
      static CLOSING = 2;
      static CLOSED = 3;
      readyState = 0;
      constructor() {
        setTimeout(() => {
          this.readyState = 1;
          this.onopen?.({});
        }, 0);
      }
      send(raw) {
        const req = JSON.parse(raw);
        const conv = req.conversation_id;
        const emit = (frame) => this.onmessage?.({ data: JSON.stringify(frame) });
        const userId = 'u-stream',
          aid = 'a-stream';
        emit({
          type: 'message',
          conversation_id: conv,
          message: {
            id: userId,
            source: 'openai_api',
            role: 'user',
            children: [],
            parent: req.parent,
            content: { content_type: 'text', text: req.text_content },
            metadata: {},
          },
        });
        emit({
          type: 'message',
          conversation_id: conv,
          message: {
            id: aid,
            source: 'openai_api',
            role: 'assistant',
            model: 'gpt_4',
            children: [],
            parent: userId,
            content: { content_type: 'text', text: '' },
            metadata: {},
          },
        });
        // Paced like a fast model (CHUNKS_PER_TICK every 16 ms ≈ 500 chunks/s); every animation frame's interval
        // is recorded with the answer's length at that moment.
        const frames = (window.__frames = []);
        let last = performance.now();
        const onFrame = (t) => {
          frames.push([t - last, i]);
          last = t;
          if (window.__streamDone === undefined) requestAnimationFrame(onFrame);
        };
        requestAnimationFrame(onFrame);
        let i = 0;
        const pump = () => {
          for (let k = 0; k < 8 && i < chunks; k++, i++) {
            const piece =
              i % 12 === 11
                ? 'end of paragraph.\n\n'
                : i % 40 === 20
                  ? '\n```js\nconst x = 1;\n```\n\n'
                  : `word${i} $y^${i % 9}$ `;
            emit({ type: 'message', conversation_id: conv, delta: { message_id: aid, append: piece } });
          }
          if (i < chunks) setTimeout(pump, 16);
          else
            setTimeout(() => {
              this.readyState = 3;
              window.__streamDone = performance.now();
              window.__answerChars =
                [...document.querySelectorAll('[data-testid=message-list] article')].pop()?.textContent
                  ?.length ?? 0;
              this.onclose?.({ code: 1000, reason: 'tips.finished' });
            }, 50);
        };
        window.__streamStart = performance.now();
        setTimeout(pump, 0);
      }
      close() {
        this.readyState = 3;
      }
    }
    window.WebSocket = FakeSocket;
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  },
  { chunks: CHUNKS },
);

const page = await context.newPage();
const lastId = parent;
const t0 = Date.now();
await page.goto(`${base}/conversation?id=${CONV}`);
await page.waitForSelector(`[data-group-id="${lastId}"] .katex`, { timeout: 60_000 });
// The latest message must be in view (the list opened at its end).
await page
  .waitForFunction(
    (id) => {
      const el = document.querySelector(`[data-group-id="${id}"]`);
      const list = document.querySelector('[data-testid=message-list]');
      if (!el || !list) return false;
      const r = el.getBoundingClientRect();
      const l = list.getBoundingClientRect();
      return r.bottom <= l.bottom + 2 && r.bottom > l.top;
    },
    lastId,
    { timeout: 30_000 },
  )
  .catch(async (e) => {
    console.error(
      await page.evaluate((id) => {
        const list = document.querySelector('[data-testid=message-list]');
        const el = document.querySelector(`[data-group-id="${id}"]`);
        return {
          top: list?.scrollTop,
          height: list?.scrollHeight,
          client: list?.clientHeight,
          el: el?.getBoundingClientRect().toJSON(),
          list: list?.getBoundingClientRect().toJSON(),
        };
      }, lastId),
    );
    await page.screenshot({ path: '/tmp/shots/bench-fail.png' });
    throw e;
  });
const openMs = Date.now() - t0;
const open = await page.evaluate(() => ({
  domNodes: document.getElementsByTagName('*').length,
  rows: document.querySelectorAll('[data-testid=message-list] article').length,
  navToVisibleMs: Math.round(performance.now()),
}));

await page.fill('[data-testid=chat-input]', 'stream please');
await page.keyboard.press('Enter');
await page.waitForFunction(() => window.__streamDone !== undefined, null, { timeout: 120_000 });
await page.waitForTimeout(300);
const stream = await page.evaluate((chunks) => {
  const frames = window.__frames.filter(([, i]) => i > 0 && i < chunks);
  const third = Math.floor(frames.length / 3);
  const stats = (list) => {
    const d = list.map(([ms]) => ms).sort((a, b) => a - b);
    const q = (p) => Math.round(d[Math.min(d.length - 1, Math.floor(p * d.length))] ?? 0);
    return { frames: d.length, p50: q(0.5), p95: q(0.95), max: q(1) };
  };
  return {
    totalMs: Math.round(window.__streamDone - window.__streamStart),
    frameMsFirstThird: stats(frames.slice(0, third)),
    frameMsLastThird: stats(frames.slice(-third)),
    longTasks: window.__longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...window.__longTasks)),
    domNodes: document.getElementsByTagName('*').length,
    answerChars: window.__answerChars,
  };
}, CHUNKS);
await browser.close();
server.close();

const report = {
  conversation: { messages: MESSAGES, wallClockToLatestVisibleMs: openMs, ...open },
  streaming: { chunks: CHUNKS, ...stream },
};
console.log(JSON.stringify(report, null, 2));
