/* global window, document, requestAnimationFrame */
// `npm run bench:client [-- --label NAME] [--runs N] [--port P] [--build]`: the web client in Chromium against the real
// product (the compiled server and its in-process upstream emulator, started the way e2e/serve.mjs does). Measures
//  1. streaming: main-thread busy time (CDP Performance.getMetrics: TaskDuration, and ThreadTime, the main thread's
//     CPU time, which depends less on how busy the machine is; ScriptDuration, LayoutCount) while a 20,000-character
//     answer arrives in 1,000 chunks (emulator knobs: 20 characters a chunk, paced at 200 chunks/s);
//  2. opening a 1,000-message conversation (imported through /api/conv/import): time from navigation start until
//     its last message is rendered (markdown) and on screen, median of N runs;
//  3. first load: JS and CSS of a cold /login (bytes gzip-compressed at level 9, as Vite reports them), and the
//     scripts a logged-out visitor of /conversation downloads before landing on /login.
// Prints a table and saves everything as JSON (bench/results/client.json, or client-<label>.json with --label).
// Builds apps/web/dist when it is missing (or always with --build); the server bundle is built by serve.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    label: { type: 'string' },
    runs: { type: 'string', default: '3' },
    port: { type: 'string', default: process.env.BENCH_PORT ?? '8140' },
    build: { type: 'boolean', default: false },
    /** Also write CPU profiles of the first runs (bench/results/client-open.cpuprofile, client-stream.cpuprofile). */
    profile: { type: 'boolean', default: false },
    /**
     * Also write Chromium traces of the first runs (bench/results/client-open.trace.json, client-stream.trace.json).
     */
    trace: { type: 'boolean', default: false },
  },
});
const PORT = Number(values.port);
const RUNS = Number(values.runs);
const base = `http://127.0.0.1:${PORT}`;
const MESSAGES = 1000;
const CHUNKS = 1000;
const CHUNK_CHARS = 20;
/** Words of the emulator's `#long N` answer that make about 20,000 characters. */
const LONG_WORDS = 2950;
const CHUNKS_PER_SECOND = 200;

if (values.build || !existsSync(path.join(root, 'apps/web/dist/index.html'))) {
  const built = spawnSync('npm', ['run', 'build', '-w', '@cc/web'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

// The product, as the end-to-end suite runs it (fresh data dir, admin password, demo emulator on PORT + 1).
const server = spawn(process.execPath, [path.join(root, 'e2e/serve.mjs')], {
  cwd: root,
  env: { ...process.env, CC_PORT: String(PORT), CC_LOG_LEVEL: 'WARNING' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stopServer = () => {
  if (server.exitCode === null) server.kill('SIGTERM');
};
process.on('exit', stopServer);
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/api/healthz`)).ok) break;
  } catch {
    // not up yet
  }
  if (i > 600 || server.exitCode !== null) throw new Error('the server did not start');
  await sleep(200);
}
const emulator = `http://127.0.0.1:${PORT + 1}`;
const knobs = await fetch(`${emulator}/__control/knobs`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ chunkSize: CHUNK_CHARS, tokensPerSecond: (CHUNKS_PER_SECOND * CHUNK_CHARS) / 4 }),
});
if (!knobs.ok) throw new Error(`emulator knobs: ${knobs.status}`);

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
const newContext = () =>
  browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', serviceWorkers: 'block' });
const english = () => localStorage.setItem('language', 'en-US');

// ---- 3. first load (cold contexts, before anything else warms a cache)
async function scriptsAndStyles(url, waitForPath) {
  const context = await newContext();
  await context.addInitScript(english);
  const page = await context.newPage();
  const files = [];
  page.on('response', async (response) => {
    const type = response.request().resourceType();
    if (type !== 'script' && type !== 'stylesheet') return;
    const body = await response.body().catch(() => Buffer.alloc(0));
    files.push({
      type: type === 'script' ? 'js' : 'css',
      name: new URL(response.url()).pathname.replace(/^\/assets\//, ''),
      bytes: body.length,
      gzip: gzipSync(body, { level: 9 }).length,
    });
  });
  await page.goto(`${base}${url}`);
  await page.waitForURL((u) => u.pathname === waitForPath);
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  await page.waitForLoadState('networkidle');
  await context.close();
  return files;
}
const sum = (files, type, key) => files.filter((f) => f.type === type).reduce((a, f) => a + f[key], 0);
const loginFiles = await scriptsAndStyles('/login', '/login');
const guardedFiles = await scriptsAndStyles('/conversation', '/login');
/**
 * The app's shell: the scripts its page (index.html) loads before any route, and the login page's own. A logged-out
 * visit of /conversation may fetch these; anything else it fetches before /login is code of a guarded page.
 */
const shellNames = new Set([
  ...loginFiles.map((f) => f.name),
  ...[
    ...readFileSync(path.join(root, 'apps/web/dist/index.html'), 'utf8').matchAll(
      /\/assets\/([^"]+\.(?:js|css))"/g,
    ),
  ].map((m) => m[1]),
]);
const firstLoad = {
  login: {
    jsGzipKb: +(sum(loginFiles, 'js', 'gzip') / 1024).toFixed(1),
    cssGzipKb: +(sum(loginFiles, 'css', 'gzip') / 1024).toFixed(1),
    jsKb: +(sum(loginFiles, 'js', 'bytes') / 1024).toFixed(1),
    cssKb: +(sum(loginFiles, 'css', 'bytes') / 1024).toFixed(1),
    files: loginFiles,
  },
  loggedOutConversation: {
    scripts: guardedFiles.filter((f) => f.type === 'js').map((f) => f.name),
    /** Scripts beyond the app's shell and the login page: guarded pages' code fetched before the redirect. */
    beyondShell: guardedFiles.filter((f) => !shellNames.has(f.name)).map((f) => f.name),
  },
};

// ---- log in, import the long conversation
const context = await newContext();
await context.addInitScript(english);
const page = await context.newPage();
await page.goto(`${base}/login`);
await page.getByLabel('Username').fill('admin');
await page.getByLabel('Password', { exact: true }).fill('admin-pass-123');
await page.getByRole('button', { name: 'Log in' }).click();
await page.getByTestId('user-menu').waitFor({ timeout: 60_000 });

const now = new Date().toISOString();
const answer = (i) =>
  `### Answer ${i}\n\nHere is **markdown** with math $x_${i}^2$ and a list:\n\n- one\n- two\n\n` +
  `\`\`\`python\nprint(${i})\n\`\`\`\n\nThe end of answer ${i}.`;
const mapping = {};
let parent = null;
for (let i = 0; i < MESSAGES; i++) {
  const id = `00000000-0000-4000-8000-${String(i + 10).padStart(12, '0')}`;
  const role = i % 2 === 0 ? 'user' : 'assistant';
  mapping[id] = {
    id,
    source: 'openai_api',
    role,
    model: 'gpt_3_5',
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
async function importConversation(title, messages, currentNode) {
  const imported = await page.request.post(`${base}/api/conv/import`, {
    headers: { origin: base },
    data: {
      _id: '00000000-0000-4000-8000-000000000001',
      source: 'openai_api',
      title,
      create_time: now,
      update_time: now,
      mapping: messages,
      current_node: currentNode,
      current_model: 'gpt_3_5',
    },
  });
  if (!imported.ok()) throw new Error(`import: ${imported.status()} ${await imported.text()}`);
  return (await imported.json()).result.conversation_id;
}
const conversationId = await importConversation('Benchmark: 1,000 messages', mapping, parent);
// The streaming runs ask in a short conversation (one question and answer) of their own.
const shortMapping = {};
for (const [i, id] of Object.keys(mapping).slice(0, 2).entries())
  shortMapping[id] = { ...mapping[id], children: i === 0 ? [Object.keys(mapping)[1]] : [] };
const shortId = await importConversation('Benchmark: streaming', shortMapping, Object.keys(mapping)[1]);
const lastMarker = `The end of answer ${MESSAGES - 1}.`;

// ---- 2. open the long conversation (each run a fresh page of the logged-in context: warm HTTP cache)
const openRuns = [];
for (let run = 0; run < RUNS; run++) {
  const p = await context.newPage();
  await p.addInitScript((marker) => {
    // Every frame: is the last message rendered (markdown, not the plain-text fallback) and inside the list's view?
    const check = () => {
      const list = document.querySelector('[data-testid=message-list]');
      const rows = list?.querySelectorAll('article');
      const last = rows?.[rows.length - 1];
      if (last && last.querySelector('.cc-markdown') && last.textContent?.includes(marker)) {
        const r = last.getBoundingClientRect();
        const l = list.getBoundingClientRect();
        if (r.bottom <= l.bottom + 2 && r.bottom > l.top) {
          window.__lastVisibleAt = performance.now();
          return;
        }
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }, lastMarker);
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Performance.enable');
  const profiling = values.profile && run === 0;
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  const tracingOpen = values.trace && run === 0;
  if (tracingOpen)
    await browser.startTracing(p, {
      path: path.join(root, 'bench/results/client-open.trace.json'),
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'],
    });
  await p.goto(`${base}/conversation?id=${conversationId}`);
  await p.waitForFunction(() => window.__lastVisibleAt !== undefined, null, { timeout: 60_000 });
  if (tracingOpen) await browser.stopTracing();
  const metrics = Object.fromEntries(
    (await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]),
  );
  if (profiling) {
    const { profile } = await cdp.send('Profiler.stop');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/client-open.cpuprofile'), JSON.stringify(profile));
  }
  openRuns.push({
    mainThreadCpuMs: Math.round(metrics.ThreadTime * 1000),
    lastMessageVisibleMs: Math.round(await p.evaluate(() => window.__lastVisibleAt)),
    mainThreadMs: Math.round(metrics.TaskDuration * 1000),
    rowsInDom: await p.evaluate(() => document.querySelectorAll('[data-testid=message-list] article').length),
    scripts: await p.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .filter((name) => name.endsWith('.js')),
    ),
    domNodes: await p.evaluate(() => document.getElementsByTagName('*').length),
    // With --profile: when each script, stylesheet and API call started and ended (ms after navigation).
    ...(values.profile
      ? {
          resources: await p.evaluate(() =>
            performance
              .getEntriesByType('resource')
              .map((e) => [
                e.name.replace(/^.*\/(assets|api)\//, '$1/'),
                Math.round(e.startTime),
                Math.round(e.responseEnd),
              ]),
          ),
        }
      : {}),
  });
  await p.close();
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
// The scripts opening a conversation loads, and whether the schema library (zod) is among them: the chat page has
// no use for it (its dialogs that validate with the contract's schemas load it when they open).
const openScripts = openRuns[0]?.scripts ?? [];
const schemaLibraryScripts = openScripts.filter((name) => {
  const file = path.join(root, 'apps/web/dist', name);
  return existsSync(file) && /\$ZodType|ZodError/.test(readFileSync(file, 'utf8'));
});
const open = {
  scripts: openScripts.length,
  schemaLibraryScripts,
  messages: MESSAGES,
  runs: openRuns,
  lastMessageVisibleMs: median(openRuns.map((r) => r.lastMessageVisibleMs)),
  mainThreadMs: median(openRuns.map((r) => r.mainThreadMs)),
  mainThreadCpuMs: median(openRuns.map((r) => r.mainThreadCpuMs)),
};

// ---- 1. stream a long answer into a new conversation
/** How far the page's message list is from its bottom (px; -1 without a list). */
const bottomGap = (p) =>
  p.evaluate(() => {
    const el = document.querySelector('[data-testid=message-list]');
    return el ? Math.round(el.scrollHeight - el.scrollTop - el.clientHeight) : -1;
  });
const streamRuns = [];
for (let run = 0; run < RUNS; run++) {
  const p = await context.newPage();
  await p.addInitScript(() => {
    // Counts the chat socket's frames and notes when the answer's socket closes.
    const Native = WebSocket;
    window.__ws = { frames: 0, chars: 0, closedAt: null };
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        const counter = window.__ws;
        this.addEventListener('message', (event) => {
          counter.frames++;
          try {
            // A binary message is appended text (read as the app's socket reads it: an ArrayBuffer).
            const frame =
              typeof event.data === 'string'
                ? JSON.parse(event.data)
                : { type: 'append', text: new TextDecoder().decode(event.data) };
            counter.chars += (frame.type === 'append' ? frame.text : frame.delta?.append)?.length ?? 0;
          } catch {
            // not a JSON frame
          }
        });
        this.addEventListener('close', () => {
          counter.closedAt = performance.now();
          window.__wsClosed?.();
        });
      }
    };
  });
  await p.goto(`${base}/conversation?id=${shortId}`);
  await p.getByTestId('chat-input').waitFor();
  await p.locator('[data-testid=message-list] article .cc-markdown').first().waitFor();
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Performance.enable');
  const read = async () =>
    Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await p.getByTestId('chat-input').fill(`#long ${LONG_WORDS} benchmark`);
  await p.evaluate(() => {
    // Only the answer's socket counts (not the one that looked for an answer in flight when the page opened).
    // Nothing else of the benchmark runs in the page while it streams (no frame counter: it would be measured too).
    window.__ws = { frames: 0, chars: 0, closedAt: null };
  });
  const profiling = values.profile && run === 0;
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  const tracing = values.trace && run === 0;
  if (tracing)
    await browser.startTracing(p, {
      path: path.join(root, 'bench/results/client-stream.trace.json'),
      categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'],
    });
  const before = await read();
  const t0 = Date.now();
  // The end of the answer is awaited without polling the page (waitForFunction polls every animation frame: that
  // was measured as the page's own work).
  await p.evaluate(() => {
    window.__answerEnded = new Promise((resolve) => (window.__wsClosed = resolve));
  });
  await p.getByTestId('chat-input').press('Enter');
  // Is the list following the answer? Its distance from the bottom, read four times a second while it streams
  // (a read costs the page next to nothing).
  let ended = false;
  const gaps = [];
  const sampling = (async () => {
    while (!ended) {
      await sleep(250);
      if (ended) break;
      gaps.push(await bottomGap(p));
    }
  })();
  await Promise.race([
    p.evaluate(() => window.__answerEnded),
    sleep(120_000, null, { ref: false }).then(() => Promise.reject(new Error('the answer did not end'))),
  ]);
  ended = true;
  await sampling;
  // Let the last frame render and the page settle.
  await p.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await sleep(300);
  const after = await read();
  const wallMs = Date.now() - t0;
  if (tracing) await browser.stopTracing();
  if (profiling) {
    const { profile } = await cdp.send('Profiler.stop');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    writeFileSync(path.join(root, 'bench/results/client-stream.cpuprofile'), JSON.stringify(profile));
  }
  const answerChars = await p.evaluate(() => window.__ws.chars);
  const d = (key) => after[key] - before[key];
  streamRuns.push({
    // CPU time of the page's main thread: unlike the tasks' wall time it hardly depends on what else the
    // machine is doing.
    mainThreadCpuMs: Math.round(d('ThreadTime') * 1000),
    mainThreadMs: Math.round(d('TaskDuration') * 1000),
    scriptMs: Math.round(d('ScriptDuration') * 1000),
    layoutMs: Math.round(d('LayoutDuration') * 1000),
    recalcStyleMs: Math.round(d('RecalcStyleDuration') * 1000),
    layouts: d('LayoutCount'),
    recalcStyles: d('RecalcStyleCount'),
    socketFrames: await p.evaluate(() => window.__ws.frames),
    /** Reads of the list's distance from its bottom while the answer streamed (px), and how many were > 2 px. */
    bottomGapSamples: gaps.length,
    bottomGapMaxPx: Math.max(0, ...gaps),
    bottomGapOver2: gaps.filter((g) => g > 2).length,
    bottomGapAtEndPx: await bottomGap(p),
    answerChars,
    wallMs,
  });
  await p.close();
}
const pick = (key) => median(streamRuns.map((r) => r[key]));
const stream = {
  chunks: CHUNKS,
  chunkChars: CHUNK_CHARS,
  chunksPerSecond: CHUNKS_PER_SECOND,
  runs: streamRuns,
  mainThreadMs: pick('mainThreadMs'),
  mainThreadCpuMs: pick('mainThreadCpuMs'),
  scriptMs: pick('scriptMs'),
  layouts: pick('layouts'),
  socketFrames: pick('socketFrames'),
  answerChars: pick('answerChars'),
  /** Reads while streaming that found the list more than 2 px above its bottom (all runs), and the largest gap. */
  bottomGapOver2: streamRuns.reduce((n, r) => n + r.bottomGapOver2, 0),
  bottomGapSamples: streamRuns.reduce((n, r) => n + r.bottomGapSamples, 0),
  bottomGapMaxPx: Math.max(...streamRuns.map((r) => r.bottomGapMaxPx)),
};
await browser.close();
stopServer();

const report = {
  label: values.label ?? null,
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? null, load1: os.loadavg()[0] },
  targets: {
    streamMainThreadMs: 1000,
    openLastMessageMs: 500,
    loginJsGzipKb: 150,
    loginCssGzipKb: 25,
    loggedOutConversationChatChunks: 0,
  },
  stream,
  open,
  firstLoad,
};
const rows = [
  ['stream 1,000 chunks: main-thread busy ms (tasks)', stream.mainThreadMs, '≤ 1000'],
  ['  main-thread CPU ms', stream.mainThreadCpuMs, ''],
  [
    '  script ms / layouts / socket frames',
    `${stream.scriptMs} / ${stream.layouts} / ${stream.socketFrames}`,
    '',
  ],
  ['  answer characters', stream.answerChars, '≈ 20000'],
  [
    '  list off its bottom while streaming: reads / largest gap px',
    `${stream.bottomGapOver2} of ${stream.bottomGapSamples} / ${stream.bottomGapMaxPx}`,
    '0',
  ],
  ['open 1,000 messages: last message shown ms', open.lastMessageVisibleMs, '≤ 500'],
  [
    '  main-thread busy ms / CPU ms / rows in DOM',
    `${open.mainThreadMs} / ${open.mainThreadCpuMs} / ${openRuns[0]?.rowsInDom}`,
    '',
  ],
  [
    '  scripts loaded / of them the schema library',
    `${open.scripts} / ${schemaLibraryScripts.length}`,
    '/ 0',
  ],
  ['/login JS kB gzip', firstLoad.login.jsGzipKb, '≤ 150'],
  ['/login CSS kB gzip', firstLoad.login.cssGzipKb, '≤ 25'],
  [
    'logged-out /conversation: scripts beyond the shell',
    firstLoad.loggedOutConversation.beyondShell.length,
    '0',
  ],
];
console.log(
  `\nclient benchmark${values.label ? ` (${values.label})` : ''}: ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`,
);
for (const [name, value, target] of rows)
  console.log(`${name.padEnd(58)} ${String(value).padStart(22)}  ${target}`);
if (firstLoad.loggedOutConversation.beyondShell.length)
  console.log(`  fetched before the redirect: ${firstLoad.loggedOutConversation.beyondShell.join(', ')}`);
const dir = path.join(root, 'bench/results');
mkdirSync(dir, { recursive: true });
const out = path.join(dir, values.label ? `client-${values.label}.json` : 'client.json');
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`saved ${path.relative(root, out)}`);
process.exit(0);
