/* global document, window */
// Rendering benchmark of the sidebar's conversation list with 1,000 conversations, in Chromium, with /api mocked
// in the browser (no server): time from navigation until the first conversation is on screen, rows and DOM nodes
// on the page then, long tasks, and (when the list is paged) the time to scroll to the last conversation.
// The mock answers `GET /api/conv` as the server does: every conversation without `limit`, one page with it.
// Usage: node bench/conversation-list.mjs [--conversations 1000] [--runs 5]. CC_WEB_DIST picks the built app
// (default apps/web/dist, built when missing).
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
const COUNT = arg('conversations', 1000);
const RUNS = arg('runs', 5);

if (!existsSync(path.join(dist, 'index.html'))) {
  const built = spawnSync('npm', ['run', 'build', '-w', '@cc/web'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.svg': 'image/svg+xml' };
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  let file = path.join(dist, path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ''));
  if (!file.startsWith(dist) || !existsSync(file) || url.pathname === '/')
    file = path.join(dist, 'index.html');
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const now = Date.now();
const iso = (ms) => new Date(ms).toISOString();
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
  last_active_time: iso(now),
  create_time: iso(now),
  avatar: null,
  setting: {
    id: 1,
    user_id: 1,
    credits: -1,
    openai_web_chat_status: 'idling',
    openai_web: { ...setting(['gpt_3_5', 'gpt_4']), allow_uploading_attachments: false },
    openai_api: {
      ...setting(['gpt_3_5', 'gpt_4']),
      allow_custom_openai_api: false,
      custom_openai_api_settings: { url: null, key: null },
    },
  },
};
const MODELS = [
  'gpt_3_5',
  'gpt_4',
  'gpt_4_browsing',
  'gpt_4_plugins',
  'gpt_4_code_interpreter',
  'gpt_4_dalle',
];
// One every 6 hours back from now: today, yesterday, the last week, month and about eight months before.
const conversations = Array.from({ length: COUNT }, (_, i) => ({
  id: COUNT - i,
  source: i % 2 ? 'openai_api' : 'openai_web',
  conversation_id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
  title: `Conversation ${i + 1} about something`,
  user_id: 1,
  is_valid: true,
  is_public: false,
  current_model: MODELS[i % MODELS.length],
  create_time: iso(now - i * 6 * 3_600_000),
  update_time: iso(now - i * 6 * 3_600_000),
  pinned_at: i === 500 || i === 900 ? iso(now) : null,
}));
const ordered = [...conversations.filter((c) => c.pinned_at), ...conversations.filter((c) => !c.pinned_at)];
function listConversations(params) {
  const limit = params.get('limit');
  if (!limit) return ordered;
  const after = params.get('after');
  const start = after ? ordered.findIndex((c) => c.conversation_id === after) + 1 : 0;
  return ordered.slice(start, start + Number(limit));
}
const envelope = (result) => JSON.stringify({ code: 200, message: 'tips.requestSuccess', result });
const routes = {
  '/api/user/me': () => user,
  '/api/conv': listConversations,
  '/api/status/common': () => ({
    active_user_in_5m: 1,
    active_user_in_1h: 1,
    active_user_in_1d: 1,
    is_chatbot_busy: false,
    chatbot_waiting_count: 0,
    gpt4_count_in_3_hours: 0,
  }),
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-sync',
  ],
});

async function run() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  let requests = 0;
  await context.route('**/api/**', (route) => {
    const url = new URL(route.request().url());
    const handler = routes[url.pathname];
    if (url.pathname === '/api/conv') requests++;
    return route.fulfill({
      status: handler ? 200 : 404,
      contentType: 'application/json',
      body: handler
        ? envelope(handler(url.searchParams))
        : JSON.stringify({ code: 404, message: 'errors.notFound', result: url.pathname }),
    });
  });
  await context.addInitScript(() => {
    localStorage.setItem('loginExpiresAt', String(Date.now() + 86_400_000));
    localStorage.setItem('language', 'en-US');
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const page = await context.newPage();
  await page.goto(`${base}/conversation`);
  await page.waitForSelector('[data-conversation-id]', { timeout: 60_000 });
  const first = await page.evaluate(() => ({
    firstRowMs: Math.round(performance.now()),
    rows: document.querySelectorAll('[data-conversation-id]').length,
    domNodes: document.getElementsByTagName('*').length,
    longTasks: window.__longTasks.length,
    longestTaskMs: Math.round(Math.max(0, ...window.__longTasks)),
  }));
  // Scroll the list to its end until the last conversation is there (paged: loads as it goes).
  const last = ordered[ordered.length - 1].conversation_id;
  const t0 = Date.now();
  for (let i = 0; i < 200; i++) {
    if (await page.locator(`[data-conversation-id="${last}"]`).count()) break;
    await page.evaluate(() => {
      const list = document.querySelector('[data-testid=conversation-list]');
      let el = list;
      while (el && el.scrollHeight <= el.clientHeight) el = el.parentElement;
      if (el) el.scrollTop = el.scrollHeight;
    });
    await page.waitForTimeout(50);
  }
  const scrolledToEndMs = Date.now() - t0;
  const end = await page.evaluate(() => ({
    rows: document.querySelectorAll('[data-conversation-id]').length,
    domNodes: document.getElementsByTagName('*').length,
    longestTaskMs: Math.round(Math.max(0, ...window.__longTasks)),
  }));
  await context.close();
  return {
    ...first,
    listRequests: requests,
    scrolledToEndMs,
    rowsAtEnd: end.rows,
    domNodesAtEnd: end.domNodes,
    longestTaskMsOverall: end.longestTaskMs,
  };
}

const runs = [];
for (let i = 0; i < RUNS; i++) runs.push(await run());
await browser.close();
server.close();
const median = (key) => {
  const v = runs.map((r) => r[key]).sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
console.log(
  JSON.stringify(
    {
      conversations: COUNT,
      dist: path.relative(root, dist) || dist,
      median: Object.fromEntries(Object.keys(runs[0]).map((k) => [k, median(k)])),
      runs,
    },
    null,
    2,
  ),
);
