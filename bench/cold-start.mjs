// `node bench/cold-start.mjs [--runs N] [--label NAME] [--out FILE] [-- command args…]`: how long the server takes
// from spawn to its first answer on /api/healthz, on a fresh data dir each run (first start: database created,
// migrations, initial admin, demo upstream), and its resident memory once idle. Prints min/median/max and writes
// the figures as JSON (default bench/results/cold-start-<label>.json). The default command is what `npm start`
// runs (`node scripts/start.mjs`), without npm's own start-up.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dashdash = process.argv.indexOf('--');
const { values } = parseArgs({
  args: process.argv.slice(2, dashdash === -1 ? undefined : dashdash),
  options: {
    runs: { type: 'string', default: '7' },
    label: { type: 'string', default: 'current' },
    out: { type: 'string' },
    /** Seconds to let the server settle before reading its memory. */
    idle: { type: 'string', default: '3' },
  },
});
const command =
  dashdash === -1
    ? [process.execPath, path.join(root, 'scripts/start.mjs')]
    : process.argv.slice(dashdash + 1);
const runs = Number(values.runs);
const idleMs = Number(values.idle) * 1000;
const TIMEOUT_MS = 60_000;

/** A port nobody listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The process and all its descendants (Linux /proc). */
function processTree(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  const tree = [];
  const walk = (p) => {
    tree.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return tree;
}

/** Resident set size in kB of a process tree: the whole tree and its largest process (the server). */
function treeRssKb(pid) {
  const rss = (p) => {
    try {
      return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  const perProcess = processTree(pid).map(rss);
  return { total: perProcess.reduce((a, b) => a + b, 0), largest: Math.max(...perProcess) };
}

/**
 * CPU time (user + system, ms) the process tree has used so far: unlike wall time, it hardly depends on what
 * else the machine is doing, so it compares two builds fairly on a busy machine. Children that already exited
 * (npm's build steps) are counted through their parent's cutime/cstime.
 */
function treeCpuMs(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime, stime, cutime, cstime: fields 14–17 of stat(5), 12–15 after the command name.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // ended meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS;
}
/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

async function healthy(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/healthz`);
    return res.ok;
  } catch {
    return false;
  }
}

async function oneRun() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cc-cold-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), {
    cwd: root,
    env: {
      ...process.env,
      CC_HOST: '127.0.0.1',
      CC_PORT: String(port),
      CC_DATA_DIR: dataDir,
      CC_INITIAL_ADMIN_PASSWORD: 'bench-admin-pass',
      CC_LOG_LEVEL: 'WARNING',
      CC_DATABASE_URL: '',
      CC_REDIS_URL: '',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    while (!(await healthy(port))) {
      if (exited) throw new Error(`the server exited before answering (${command.join(' ')})`);
      if (performance.now() - started > TIMEOUT_MS) throw new Error('no answer on /api/healthz within 60 s');
      await sleep(10);
    }
    const ms = performance.now() - started;
    const cpuMs = treeCpuMs(child.pid);
    await sleep(idleMs);
    const rss = treeRssKb(child.pid);
    return { ms, cpuMs, rssKb: rss.largest, treeRssKb: rss.total };
  } finally {
    if (!exited) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { min: s[0], median, max: s[s.length - 1] };
};

const results = [];
for (let i = 0; i < runs; i++) {
  const r = await oneRun();
  results.push(r);
  console.log(
    `run ${i + 1}/${runs}: ${r.ms.toFixed(0)} ms to /api/healthz (CPU ${r.cpuMs.toFixed(0)} ms), ` +
      `server RSS ${(r.rssKb / 1024).toFixed(1)} MB`,
  );
}
const time = stats(results.map((r) => r.ms));
const cpu = stats(results.map((r) => r.cpuMs));
const rss = stats(results.map((r) => r.rssKb / 1024));
const treeRss = stats(results.map((r) => r.treeRssKb / 1024));
const fmt = (s, unit, digits) =>
  `min ${s.min.toFixed(digits)} / median ${s.median.toFixed(digits)} / max ${s.max.toFixed(digits)} ${unit}`;
console.log(`\n${command.join(' ')}`);
console.log(`cold start to /api/healthz: ${fmt(time, 'ms', 0)}`);
console.log(`CPU time used until then: ${fmt(cpu, 'ms', 0)}`);
console.log(`idle RSS after ${values.idle} s, server process: ${fmt(rss, 'MB', 1)}`);
console.log(`idle RSS, whole process tree: ${fmt(treeRss, 'MB', 1)}`);

const out = values.out ?? path.join(root, 'bench/results', `cold-start-${values.label}.json`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      label: values.label,
      command,
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg(),
      date: new Date().toISOString(),
      coldStartMs: time,
      cpuMs: cpu,
      idleRssMb: rss,
      idleTreeRssMb: treeRss,
      runs: results,
    },
    null,
    2,
  ) + '\n',
);
console.log(`saved ${path.relative(root, out)}`);
