import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskRequestInput, ConversationHistory } from '@cc/contracts';
import { messageText } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { login } from '../services/auth.service';
import { updateUserSettings } from '../services/user.service';
import { connect, replay, until } from '../test/chat-client';
import { ControlledUpstream } from '../test/controlled-upstream';
import { ADMIN, createTestApp, openTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { runScript } from '../test/run-script';
import type { ScriptRun } from '../test/run-script';
import { multipartFile } from '../test/upload';
import { backupDataDir } from './backup';
import { OpsError, SERVER_PID_FILE, markDataDirInUse } from './data-dir';
import { restoreDataDir } from './restore';

let t: TestApp;
let url: string;
let upstream: ControlledUpstream;
let work: string;
let u: { id: number; cookie: string; username: string; password: string };
const uploaded = randomBytes(64 * 1024);
let uploadId: string;

/** The command-line tool in a process of its own, as `npm run db:backup` runs it. */
function cli(args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return runScript('apps/server/src/ops/cli.ts', args, { ...process.env, ...env, INIT_CWD: work });
}

const question = (text: string): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  text_content: text,
  stream_mode: 'delta',
});

const modeOf = (p: string) => statSync(p).mode & 0o777;

async function conversations(app: TestApp, cookie: string): Promise<{ conversation_id: string }[]> {
  const res = await app.app.inject({ url: '/api/conv', headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

async function history(app: TestApp, cookie: string, id: string): Promise<ConversationHistory> {
  const res = await app.app.inject({ url: `/api/conv/${id}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

const assistantTexts = (h: ConversationHistory) =>
  Object.values(h.mapping)
    .filter((m) => m.role === 'assistant')
    .map((m) => messageText(m));

// The archive holds a SQLite database; PostgreSQL is backed up with pg_dump (README): SQLite only.
describe.skipIf(!!process.env.CC_TEST_DATABASE_URL)(
  'backup of a live database, restore into an empty directory',
  () => {
    beforeAll(async () => {
      work = mkdtempSync(path.join(tmpdir(), 'cc-backup-test-'));
      upstream = new ControlledUpstream();
      const upstreamUrl = await upstream.listen();
      t = await createTestApp({
        openai_api: { read_timeout: 60 },
        openai_web: { file_upload_strategy: 'server_upload_only' },
      });
      url = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const created = await t.createUser();
      const s = joinSettings(created.setting, created.counters);
      s.openai_api.rate_limits = [];
      s.openai_api.allow_custom_openai_api = true;
      s.openai_api.custom_openai_api_settings = { url: upstreamUrl, key: 'sk-test' };
      await updateUserSettings(t.ctx, created.row.id, s);
      u = {
        id: created.row.id,
        username: created.row.username,
        password: created.password,
        cookie: await t.login(created.row.username, created.password),
      };
      const form = multipartFile(uploaded, { filename: 'notes.bin' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/files/local/upload',
        headers: { ...form.headers, cookie: u.cookie },
        payload: form.payload,
      });
      expect(res.statusCode, res.body).toBe(201);
      uploadId = res.json().result.id;
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
      rmSync(work, { recursive: true, force: true });
    });

    const archive = () => path.join(work, 'live.tar.gz');
    let finishedId = '';
    let streamingId = '';
    let finalText = '';

    it('backs up while an answer streams and other writes go on', async () => {
      // One finished answer.
      const first = connect(url, question('first'), u.cookie);
      const s1 = await upstream.next();
      s1.send('The finished answer.');
      s1.finish();
      await first.closed;
      finishedId = (await conversations(t, u.cookie))[0]!.conversation_id;

      // One answer streaming, already in the database.
      const live = connect(url, question('second'), u.cookie);
      const s2 = await upstream.next();
      let sent = 'Streaming ';
      s2.send(sent);
      await until(() => live.frames.some((f) => f.type === 'message' && f.message?.role === 'assistant'));
      await until(async () => (await conversations(t, u.cookie)).length === 2);
      streamingId = (await conversations(t, u.cookie)).find(
        (c) => c.conversation_id !== finishedId,
      )!.conversation_id;

      // A config file comes along too.
      writeFileSync(path.join(t.database.dataDir, 'config.yaml'), 'stats:\n  ask_stats_ttl: 1234\n');
      // The backup runs in its own process while the answer goes on and sessions are written.
      let done = false;
      const backup = cli(['backup', 'live.tar.gz'], { CC_DATA_DIR: t.database.dataDir }).finally(
        () => (done = true),
      );
      let writes = 0;
      for (let i = 0; !done && i < 2000; i++) {
        const word = `w${i} `;
        sent += word;
        s2.send(word);
        await until(() => [...replay(live.frames).values()].some((text) => text.endsWith(word)));
        // A session written through the login service: the HTTP route allows 30 logins a minute per address, and
        // a slow backup outlasts that many turns of this loop.
        await login(t.ctx, {
          username: u.username,
          password: u.password,
          ip: '127.0.0.1',
          userAgent: undefined,
        });
        writes += 1;
      }
      const result = await backup;
      expect(result.code, result.err).toBe(0);
      expect(result.out).toContain('Backup written to');
      expect(writes).toBeGreaterThan(0);
      s2.send('end.');
      s2.finish();
      await live.closed;
      finalText = sent + 'end.';
      expect(modeOf(archive())).toBe(0o600);
    });

    it('restores into an empty directory: users, conversations, messages, uploads and keys, owner-only', async () => {
      const target = path.join(work, 'restored');
      mkdirSync(target);
      const summary = await restoreDataDir({ CC_DATA_DIR: target }, archive());
      expect(summary.uploads).toBe(1);
      expect(summary.counts.conversations).toBe(2);
      expect(modeOf(target)).toBe(0o700);
      // The session and credential keys live in the database (a secrets.json of an older install comes along too).
      for (const f of ['database.db', 'config.yaml']) expect(modeOf(path.join(target, f))).toBe(0o600);
      expect(modeOf(path.join(target, 'uploads'))).toBe(0o700);
      const files = readdirSync(path.join(target, 'uploads'));
      expect(files).toHaveLength(1);
      expect(modeOf(path.join(target, 'uploads', files[0]!))).toBe(0o600);
      expect(readdirSync(target).filter((n) => n.startsWith('.restore-'))).toEqual([]);

      const restored = await openTestApp({ url: null, dataDir: target }, {}, undefined, { demo: false });
      try {
        expect(restored.ctx.config.stats.ask_stats_ttl).toBe(1234);
        // The session made before the backup still works: sessions and the key that signs them came along.
        expect(
          (await restored.app.inject({ url: '/api/user/me', headers: { cookie: u.cookie } })).statusCode,
        ).toBe(200);
        const cookie = await restored.login(u.username, u.password);
        const list = await conversations(restored, cookie);
        expect(list.map((c) => c.conversation_id).sort()).toEqual([finishedId, streamingId].sort());
        expect(assistantTexts(await history(restored, cookie, finishedId))).toEqual(['The finished answer.']);
        // The answer that was streaming: what had been written when the copy was taken, a start of the final text.
        const partial = assistantTexts(await history(restored, cookie, streamingId));
        expect(partial).toHaveLength(1);
        expect(partial[0]!.startsWith('Streaming')).toBe(true);
        expect(finalText.startsWith(partial[0]!)).toBe(true);
        const download = await restored.app.inject({
          url: `/api/files/local/download/${uploadId}`,
          headers: { cookie },
        });
        expect(download.statusCode).toBe(200);
        expect(download.rawPayload.equals(uploaded)).toBe(true);
        const admin = await restored.login(ADMIN.username, ADMIN.password);
        const users = await restored.app.inject({ url: '/api/user', headers: { cookie: admin } });
        expect(users.json().result.map((x: { username: string }) => x.username)).toContain(u.username);
      } finally {
        await restored.close();
      }
    });

    it('refuses a directory in use or not empty, and leaves it as it was', async () => {
      // The live app's directory: a database is there.
      await expect(restoreDataDir({ CC_DATA_DIR: t.database.dataDir }, archive())).rejects.toThrow(
        /not empty/,
      );
      // A directory a running server marked (this process stands for it).
      const running = path.join(work, 'running');
      mkdirSync(running);
      const release = markDataDirInUse(running);
      try {
        await expect(restoreDataDir({ CC_DATA_DIR: running }, archive())).rejects.toThrow(
          new RegExp(`process ${process.pid}\\) is running`),
        );
        expect(readdirSync(running)).toEqual([SERVER_PID_FILE]);
      } finally {
        release();
      }
      expect(existsSync(path.join(running, SERVER_PID_FILE))).toBe(false);
      // A stale mark (no such process) is not a running server, but the directory is still not empty.
      writeFileSync(path.join(running, SERVER_PID_FILE), '999999999\n');
      await expect(restoreDataDir({ CC_DATA_DIR: running }, archive())).rejects.toThrow(/not empty/);

      // Through the command line: a clear message and exit code 1.
      const cliRefusal = await cli(['restore', 'live.tar.gz'], { CC_DATA_DIR: t.database.dataDir });
      expect(cliRefusal.code).toBe(1);
      expect(cliRefusal.err).toContain('is not empty');
      expect(cliRefusal.err).not.toContain('    at ');
    });

    it('refuses to overwrite an archive, to read something that is not one, and to back up PostgreSQL', async () => {
      await expect(backupDataDir(t.ctx.config, archive())).rejects.toThrow(/exists/);
      const bogus = path.join(work, 'bogus.tar.gz');
      writeFileSync(bogus, 'not an archive');
      const empty = path.join(work, 'empty-target');
      await expect(restoreDataDir({ CC_DATA_DIR: empty }, bogus)).rejects.toThrow(
        new OpsError(`${bogus} is not a Chat Commons backup (TAR_BAD_ARCHIVE: Unrecognized archive format).`),
      );
      // Nothing is left behind by the failed restore (the directory it created is gone again).
      expect(existsSync(empty)).toBe(false);
      const pg = {
        ...t.ctx.config,
        data: { ...t.ctx.config.data, database_url: 'postgres://x@127.0.0.1/db' },
      };
      await expect(backupDataDir(pg, path.join(work, 'pg.tar.gz'))).rejects.toThrow(/pg_dump/);
      // The live app's records are untouched by all this.
      expect(await conversationRepository(t.ctx.dbHandle.db).findByUuid(finishedId)).toBeDefined();
    });
  },
);
