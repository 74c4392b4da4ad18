import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { AskRequestInput, AskResponse, ChatMessage, Config, UploadedFileInfo } from '@cc/contracts';
import { saveCredentials } from '../services/credentials.service';
import { OPENAI_WEB_MAX_FILE_SIZE } from '../services/file.service';
import { updateUserSettings } from '../services/user.service';
import { joinSettings } from '../presenters/user.presenter';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { multipartFile, pngBytes } from '../test/upload';

/** Small on purpose: the size-limit branches are cheap to reach. */
const MAX = 64 * 1024;
const TOKEN = 'web-token-for-files';

let t: TestApp;
let url: string;
let admin: string;
let emulator: Emulator;

type Settings = ReturnType<typeof joinSettings>;

beforeAll(async () => {
  t = await createTestApp({ data: { max_file_upload_size: MAX } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  emulator = t.ctx.demo!.emulator;
  // A real token pointed at the emulator: it must reach backend-api and never the blob host.
  await saveCredentials(t.ctx, { openai_web_access_token: TOKEN, openai_api_key: null });
  await setWeb({ chatgpt_base_url: emulator.webBaseUrl });
  await t.ctx.upstream.refresh();
});
afterAll(() => t.close());
beforeEach(() => setWeb({ file_upload_strategy: 'server_upload_only' }));

async function setWeb(patch: Partial<Config['openai_web']>): Promise<void> {
  const current = t.ctx.runtime.current();
  await t.ctx.runtime.save({ ...current, openai_web: { ...current.openai_web, ...patch } });
}

async function user(patch?: (s: Settings) => void): Promise<{ id: number; cookie: string }> {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_web.rate_limits = [];
  patch?.(s);
  await updateUserSettings(t.ctx, u.row.id, s);
  return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
}

function upload(
  cookie: string | null,
  data: Buffer,
  options: { filename?: string; contentType?: string; query?: string } = {},
) {
  const form = multipartFile(data, options);
  return t.app.inject({
    method: 'POST',
    url: `/api/files/local/upload${options.query ?? ''}`,
    headers: { ...form.headers, ...(cookie ? { cookie } : {}) },
    payload: form.payload,
  });
}

const post = (cookie: string, url: string, payload?: object) =>
  t.app.inject({ method: 'POST', url, headers: { cookie }, payload });
const get = (cookie: string | null, url: string) =>
  t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

async function uploaded(cookie: string, data: Buffer, options: Parameters<typeof upload>[2] = {}) {
  const res = await upload(cookie, data, options);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().result as UploadedFileInfo;
}

async function onUpstream(cookie: string, id: string): Promise<UploadedFileInfo> {
  const res = await post(cookie, `/api/files/local/upload-to-openai-web/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as UploadedFileInfo;
}

const uploadsDir = () => path.join(t.ctx.config.data.data_dir, 'uploads');
const storedNames = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);
const fileCount = async () => (await t.ctx.dbHandle.db.selectFrom('files').select('id').execute()).length;

const messages = (frames: AskResponse[]) =>
  frames.flatMap((f) => (f.type === 'message' && f.message ? [f.message] : []));
/** The last snapshot of each message, in order of first appearance. */
function finalMessages(frames: AskResponse[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  for (const m of messages(frames)) byId.set(m.id, m);
  return [...byId.values()];
}

describe('local upload and download', () => {
  it('stores under a generated name, reads image dimensions from the bytes, serves only uploader and superuser', async () => {
    const owner = await user();
    const other = await user();
    const png = pngBytes(37, 21);
    const info = await uploaded(owner.cookie, png, {
      filename: '../../etc/évil cat.png',
      // The client's claims about the type are not trusted for images.
      contentType: 'text/html',
    });
    expect(info).toMatchObject({
      original_filename: 'évil cat.png',
      size: png.length,
      content_type: 'image/png',
      uploader_id: owner.id,
      storage_path: `uploads/${info.id}`,
      openai_web_info: null,
      extra_info: { width: 37, height: 21 },
    });
    expect(readFileSync(path.join(uploadsDir(), info.id)).equals(png)).toBe(true);
    expect(storedNames().every((n) => /^[0-9a-f-]{36}$/.test(n))).toBe(true);

    const mine = await get(owner.cookie, `/api/files/local/download/${info.id}`);
    expect(mine.statusCode).toBe(200);
    expect(mine.rawPayload.equals(png)).toBe(true);
    expect(mine.headers['content-type']).toBe('image/png');
    expect(mine.headers['x-content-type-options']).toBe('nosniff');
    expect(mine.headers['content-disposition']).toBe(
      `attachment; filename="_vil cat.png"; filename*=UTF-8''%C3%A9vil%20cat.png`,
    );
    expect((await get(admin, `/api/files/local/download/${info.id}`)).statusCode).toBe(200);
    const foreign = await get(other.cookie, `/api/files/local/download/${info.id}`);
    expect([foreign.statusCode, foreign.json().code]).toEqual([403, 10403]);
    expect((await get(null, `/api/files/local/download/${info.id}`)).json().code).toBe(10401);
    expect((await get(owner.cookie, `/api/files/local/download/${randomUUID()}`)).json().code).toBe(404);
    expect((await get(owner.cookie, '/api/files/local/download/not-a-uuid')).json().code).toBe(422);

    // Anything but a known raster image is served as opaque bytes, whatever the client said it was.
    const html = await uploaded(owner.cookie, Buffer.from('<script>alert(1)</script>'), {
      filename: 'page.html',
      contentType: 'text/html',
    });
    expect(html).toMatchObject({ content_type: 'text/html', extra_info: null });
    const served = await get(owner.cookie, `/api/files/local/download/${html.id}`);
    expect(served.headers['content-type']).toBe('application/octet-stream');
  });

  it('refuses a file over max_file_upload_size with fileTooLarge and keeps nothing', async () => {
    const u = await user();
    const before = storedNames().length;
    const tooBig = await upload(u.cookie, randomBytes(MAX + 1), { filename: 'big.bin' });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toEqual({ code: 413, message: 'errors.fileTooLarge', result: { max_size: MAX } });
    expect(storedNames()).toHaveLength(before);
    const rows = await t.ctx.dbHandle.db
      .selectFrom('files')
      .select('id')
      .where('uploader_id', '=', u.id)
      .execute();
    expect(rows).toEqual([]);

    expect((await upload(u.cookie, randomBytes(MAX), { filename: 'exact.bin' })).statusCode).toBe(201);
    const notMultipart = await post(u.cookie, '/api/files/local/upload', { file: 'x' });
    expect(notMultipart.json()).toMatchObject({ code: 400, message: 'errors.invalidRequest' });
    const wrongField = multipartFile(Buffer.from('x'), { field: 'other' });
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/files/local/upload',
      headers: { ...wrongField.headers, cookie: u.cookie },
      payload: wrongField.payload,
    });
    expect(wrong.json()).toMatchObject({ code: 400, message: 'errors.invalidRequest' });
  });

  it('answers a truncated multipart upload with 400 and keeps nothing', async () => {
    const u = await user();
    const before = storedNames().length;
    const form = multipartFile(randomBytes(4096), { filename: 'cut.bin' });
    // The connection ends inside the file part: no closing boundary ever comes.
    for (const cut of [form.payload.length - 40, 60]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/files/local/upload',
        headers: { ...form.headers, cookie: u.cookie },
        payload: form.payload.subarray(0, cut),
      });
      expect([cut, res.statusCode]).toEqual([cut, 400]);
      expect(res.json()).toEqual({
        code: 400,
        message: 'errors.invalidRequest',
        result: 'errors.detail.multipartTruncated',
      });
    }
    expect(storedNames()).toHaveLength(before);
  });

  it('answers a body that ends inside the file part, however short, with 400 and keeps nothing', async () => {
    // These tests upload as the admin: every login counts against the login rate limit, which this file nearly uses up.
    const before = [storedNames().length, await fileCount()];
    const head = '--xx\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n';
    // Over a real connection busboy's report reaches the route on the file stream ("Part terminated early …"),
    // not only as the form's "Unexpected end of multipart data".
    for (const content of ['abc', 'x'.repeat(1000), 'abc\r\n--x', '']) {
      const res = await fetch(`${url}/api/files/local/upload`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=xx', cookie: admin },
        body: head + content,
      });
      expect([content.length, res.status]).toEqual([content.length, 400]);
      expect(await res.json()).toEqual({
        code: 400,
        message: 'errors.invalidRequest',
        result: 'errors.detail.multipartTruncated',
      });
    }
    expect([storedNames().length, await fileCount()]).toEqual(before);
  });

  it('refuses a form with a second file part with multipartLimit and keeps neither file', async () => {
    const before = [storedNames().length, await fileCount()];
    const boundary = 'twofiles';
    const part = (field: string, name: string, data: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        data,
        Buffer.from('\r\n'),
      ]);
    // The second file under the same field and under another one; small and large first parts (a large one is
    // still being written when the second part arrives).
    for (const [second, first] of [
      ['file', Buffer.from('first')],
      ['other', Buffer.from('first')],
      ['file', randomBytes(MAX - 10)],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/files/local/upload',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: admin },
        payload: Buffer.concat([
          part('file', 'one.bin', first),
          part(second, 'two.bin', Buffer.from('second')),
          Buffer.from(`--${boundary}--\r\n`),
        ]),
      });
      expect([second, first.length, res.statusCode]).toEqual([second, first.length, 400]);
      expect(res.json()).toEqual({
        code: 400,
        message: 'errors.invalidRequest',
        result: 'errors.detail.multipartLimit',
      });
    }
    expect([storedNames().length, await fileCount()]).toEqual(before);
  });

  it('refuses a form over the parts limit like a second file: 400 multipartLimit, nothing kept', async () => {
    // 413 is for bytes (the web client reads it as "file too large"); too many parts is a form this route does not
    // take, answered as a second file is.
    const before = [storedNames().length, await fileCount()];
    const form = multipartFile(Buffer.from('one file'));
    const boundary = form.headers['content-type']!.split('boundary=')[1]!;
    const field = `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nx\r\n`;
    const end = form.payload.lastIndexOf(`--${boundary}--`);
    // The file and 1000 fields: one part over @fastify/multipart's default of 1000.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/files/local/upload',
      headers: { ...form.headers, cookie: admin },
      payload: Buffer.concat([
        form.payload.subarray(0, end),
        Buffer.from(field.repeat(1000)),
        form.payload.subarray(end),
      ]),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 400,
      message: 'errors.invalidRequest',
      result: 'errors.detail.multipartLimit',
    });
    expect([storedNames().length, await fileCount()]).toEqual(before);
  });

  it('never stores or serves a declared image type for bytes that are not that image', async () => {
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    for (const contentType of ['image/png', 'IMAGE/GIF; x=y', 'image/svg+xml']) {
      const info = await uploaded(admin, html, { filename: 'evil.png', contentType });
      expect([contentType, info.content_type, info.extra_info]).toEqual([
        contentType,
        'application/octet-stream',
        null,
      ]);
      const served = await get(admin, `/api/files/local/download/${info.id}`);
      expect(served.headers['content-type']).toBe('application/octet-stream');
      expect(served.rawPayload.equals(html)).toBe(true);
    }
    // Real image bytes keep the type read from them; other declared types are kept as before.
    const png = await uploaded(admin, pngBytes(3, 3), { filename: 'p.png', contentType: 'image/gif' });
    expect(png.content_type).toBe('image/png');
    expect((await get(admin, `/api/files/local/download/${png.id}`)).headers['content-type']).toBe(
      'image/png',
    );
    const pdf = await uploaded(admin, Buffer.from('%PDF-1.4'), {
      filename: 'd.pdf',
      contentType: 'application/pdf',
    });
    expect(pdf.content_type).toBe('application/pdf');

    // A record stored before this check (a declared image type, no dimensions read) is served as opaque bytes.
    const legacy = await uploaded(admin, html, { filename: 'old.png', contentType: 'text/plain' });
    await t.ctx.dbHandle.db
      .updateTable('files')
      .set({ content_type: 'image/png' })
      .where('id', '=', legacy.id)
      .execute();
    const old = await get(admin, `/api/files/local/download/${legacy.id}`);
    expect(old.headers['content-type']).toBe('application/octet-stream');
  });

  it('deleting a user removes their uploaded files from disk and the records with them', async () => {
    const owner = await user();
    const keeper = await user();
    const a = await uploaded(owner.cookie, pngBytes(4, 4));
    const b = await uploaded(owner.cookie, Buffer.from('notes'), { filename: 'notes.txt' });
    const kept = await uploaded(keeper.cookie, Buffer.from('mine'), { filename: 'mine.txt' });
    expect(storedNames()).toEqual(expect.arrayContaining([a.id, b.id, kept.id]));

    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/user/${owner.id}`,
      headers: { cookie: admin },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(storedNames()).not.toContain(a.id);
    expect(storedNames()).not.toContain(b.id);
    expect(storedNames()).toContain(kept.id);
    expect((await get(admin, `/api/files/local/download/${a.id}`)).statusCode).toBe(404);
    expect((await get(admin, `/api/files/local/download/${kept.id}`)).statusCode).toBe(200);
  });
});

describe('upload strategies', () => {
  it('server_upload_only: start says "through the server", the server relays without its token at the blob', async () => {
    const u = await user();
    const other = await user();
    const start = await post(u.cookie, '/api/files/openai-web/upload-start', {
      file_name: 'notes.txt',
      file_size: 12,
      use_case: 'my_files',
    });
    expect(start.json().result).toEqual({
      strategy: 'server_upload_only',
      file_max_size: MAX,
      upload_file_info: null,
    });
    const tooBig = await post(u.cookie, '/api/files/openai-web/upload-start', {
      file_name: 'big.bin',
      file_size: MAX + 1,
      use_case: 'my_files',
    });
    expect(tooBig.json()).toMatchObject({ code: 413, message: 'errors.fileTooLarge' });

    const bytes = Buffer.from('hello, notes');
    const local = await uploaded(u.cookie, bytes, { filename: 'notes.txt', contentType: 'text/plain' });
    const denied = await post(other.cookie, `/api/files/local/upload-to-openai-web/${local.id}`);
    expect(denied.json().code).toBe(10403);
    const relayed = await onUpstream(u.cookie, local.id);
    expect(relayed.openai_web_info).toMatchObject({ use_case: 'my_files', upload_url: null });
    const fileId = relayed.openai_web_info!.file_id!;
    expect(fileId).toMatch(/^file-/);
    expect(relayed.openai_web_info!.download_url).toEqual(expect.any(String));

    const created = await emulator.waitForRequest(
      (r) =>
        r.method === 'POST' &&
        r.path === '/backend-api/files' &&
        (r.body as { file_name?: string } | undefined)?.file_name === 'notes.txt',
    );
    expect(created.hadAuthorization).toBe(true);
    expect(created.body).toEqual({ file_name: 'notes.txt', file_size: bytes.length, use_case: 'my_files' });
    const put = await emulator.waitForRequest((r) => r.method === 'PUT' && r.path === `/blob/${fileId}`);
    expect(put.hadAuthorization).toBe(false);
    expect(put.headers['x-ms-blob-type']).toBe('BlockBlob');
    expect(put.bodyBytes).toBe(bytes.length);
    expect(put.status).toBe(201);
    const marked = await emulator.waitForRequest(
      (r) => r.method === 'POST' && r.path === `/backend-api/files/${fileId}/uploaded`,
    );
    expect(marked.hadAuthorization).toBe(true);
    const blob = await fetch(relayed.openai_web_info!.download_url!);
    expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);

    // Done once: calling again returns the same upstream file.
    const again = await onUpstream(u.cookie, local.id);
    expect(again.openai_web_info!.file_id).toBe(fileId);
  });

  it('browser_upload_only: start creates the upstream file, the browser PUTs, complete clears the URL', async () => {
    await setWeb({ file_upload_strategy: 'browser_upload_only' });
    const u = await user();
    const other = await user();
    const refused = await upload(u.cookie, Buffer.from('x'), { filename: 'x.txt' });
    expect([refused.statusCode, refused.json().code, refused.json().message]).toEqual([
      403,
      10403,
      'errors.uploadingNotAllowed',
    ]);

    const png = pngBytes(20, 10);
    const start = await post(u.cookie, '/api/files/openai-web/upload-start', {
      file_name: 'photo.png',
      file_size: png.length,
      width: 20,
      height: 10,
      mime_type: 'image/png',
      use_case: 'multimodal',
    });
    expect(start.statusCode, start.body).toBe(200);
    const { strategy, upload_file_info: info } = start.json().result as {
      strategy: string;
      upload_file_info: UploadedFileInfo;
    };
    expect(strategy).toBe('browser_upload_only');
    expect(info).toMatchObject({
      original_filename: 'photo.png',
      size: png.length,
      storage_path: null,
      content_type: 'image/png',
      uploader_id: u.id,
      extra_info: { width: 20, height: 10 },
      openai_web_info: { use_case: 'multimodal', download_url: null },
    });
    const uploadUrl = info.openai_web_info!.upload_url!;
    expect(uploadUrl.startsWith(`${emulator.url}/blob/${info.openai_web_info!.file_id}?`)).toBe(true);

    // Completing before the bytes are at the blob is the upstream's refusal; the URL stays usable.
    const early = await post(u.cookie, `/api/files/openai-web/upload-complete/${info.id}`);
    expect(early.json().code).toBe(400);

    const put = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2020-04-08', 'content-type': 'image/png' },
      body: png,
    });
    expect(put.status).toBe(201);
    expect((await post(other.cookie, `/api/files/openai-web/upload-complete/${info.id}`)).json().code).toBe(
      10403,
    );
    const done = await post(u.cookie, `/api/files/openai-web/upload-complete/${info.id}`);
    expect(done.statusCode, done.body).toBe(200);
    const complete = done.json().result as UploadedFileInfo;
    expect(complete.openai_web_info).toMatchObject({
      file_id: info.openai_web_info!.file_id,
      upload_url: null,
      download_url: expect.any(String),
    });
    // Idempotent: a second call does not ask the upstream again (it allows `uploaded` once).
    const again = await post(u.cookie, `/api/files/openai-web/upload-complete/${info.id}`);
    expect(again.json().result).toEqual(complete);

    // The server's size limit does not apply to direct uploads.
    const huge = await post(u.cookie, '/api/files/openai-web/upload-start', {
      file_name: 'huge.pdf',
      file_size: MAX * 100,
      use_case: 'my_files',
    });
    expect(huge.json().result.upload_file_info.openai_web_info.upload_url).toEqual(expect.any(String));
    // A local file cannot be "completed", an unknown id is 404.
    await setWeb({ file_upload_strategy: 'server_upload_only' });
    const local = await uploaded(u.cookie, Buffer.from('abc'));
    expect((await post(u.cookie, `/api/files/openai-web/upload-complete/${local.id}`)).json().code).toBe(422);
    expect((await post(u.cookie, `/api/files/openai-web/upload-complete/${randomUUID()}`)).json().code).toBe(
      404,
    );
  });

  it('browser_upload_when_file_size_exceed: through the server when small, to the blob when too big', async () => {
    await setWeb({ file_upload_strategy: 'browser_upload_when_file_size_exceed' });
    const u = await user();
    const start = (size: number) =>
      post(u.cookie, '/api/files/openai-web/upload-start', {
        file_name: 'doc.pdf',
        file_size: size,
        use_case: 'ace_upload',
      }).then((r) => r.json().result as { strategy: string; upload_file_info: UploadedFileInfo | null });
    const small = await start(MAX);
    // Larger files go to the upstream directly: its limit is the one the browser can check.
    expect(small).toEqual({
      strategy: 'browser_upload_when_file_size_exceed',
      file_max_size: OPENAI_WEB_MAX_FILE_SIZE,
      upload_file_info: null,
    });
    expect((await upload(u.cookie, Buffer.from('small pdf'), { filename: 'doc.pdf' })).statusCode).toBe(201);
    const big = await start(MAX + 1);
    expect(big.upload_file_info?.openai_web_info).toMatchObject({
      use_case: 'ace_upload',
      upload_url: expect.stringContaining('/blob/'),
    });
  });
});

describe('upstream file size limit', () => {
  it('every strategy: too large is refused at upload-start with the maximum, the upstream not asked', async () => {
    // The admin: one more login would go over this file's login rate limit.
    const u = { cookie: admin };
    const strategies = [
      'browser_upload_only',
      'browser_upload_when_file_size_exceed',
      'server_upload_only',
    ] as const;
    for (const strategy of strategies) {
      await setWeb({ file_upload_strategy: strategy });
      const max = strategy === 'server_upload_only' ? MAX : OPENAI_WEB_MAX_FILE_SIZE;
      const creates = () => emulator.requests.filter((r) => r.path === '/backend-api/files').length;
      const before = creates();
      const res = await post(u.cookie, '/api/files/openai-web/upload-start', {
        file_name: 'video.mp4',
        file_size: 700 * 1024 * 1024,
        use_case: 'my_files',
      });
      expect([strategy, res.statusCode, res.json()]).toEqual([
        strategy,
        413,
        { code: 413, message: 'errors.fileTooLarge', result: { max_size: max } },
      ]);
      expect(creates()).toBe(before);
      const fits = await post(u.cookie, '/api/files/openai-web/upload-start', {
        file_name: 'video.mp4',
        file_size: max,
        use_case: 'my_files',
      });
      expect([strategy, fits.json().result.file_max_size]).toEqual([strategy, max]);
    }
  });
});

describe('upload permissions', () => {
  const startAs = (cookie: string, use_case: string) =>
    post(cookie, '/api/files/openai-web/upload-start', { file_name: 'f', file_size: 1, use_case }).then((r) =>
      r.json<{ code: number; message: string; result: unknown }>(),
    );
  const refused = { code: 10403, message: 'errors.uploadingNotAllowed' };

  it("enforces the user's flags at upload-start and upload", async () => {
    const noImages = await user((s) => (s.openai_web.allow_uploading_multimodal_images = false));
    expect(await startAs(noImages.cookie, 'multimodal')).toMatchObject({
      ...refused,
      result: 'errors.detail.imagesNotAllowed',
    });
    expect((await startAs(noImages.cookie, 'my_files')).code).toBe(200);
    const before = storedNames().length;
    const png = pngBytes(4, 4);
    expect((await upload(noImages.cookie, png, { filename: 'a.png' })).json()).toMatchObject(refused);
    expect(
      (await upload(noImages.cookie, png, { filename: 'a.png', query: '?use_case=multimodal' })).json(),
    ).toMatchObject(refused);
    expect(storedNames()).toHaveLength(before);
    // The same bytes as an attachment are fine.
    expect(
      (await upload(noImages.cookie, png, { filename: 'a.png', query: '?use_case=my_files' })).statusCode,
    ).toBe(201);

    const noFiles = await user((s) => (s.openai_web.allow_uploading_attachments = false));
    expect(await startAs(noFiles.cookie, 'my_files')).toMatchObject({
      ...refused,
      result: 'errors.detail.attachmentsNotAllowed',
    });
    expect(await startAs(noFiles.cookie, 'ace_upload')).toMatchObject(refused);
    expect((await startAs(noFiles.cookie, 'multimodal')).code).toBe(200);
    expect((await upload(noFiles.cookie, Buffer.from('text'), { filename: 't.txt' })).json()).toMatchObject(
      refused,
    );
    expect((await upload(noFiles.cookie, png, { filename: 'b.png' })).statusCode).toBe(201);

    const noWeb = await user((s) => (s.openai_web.allow_to_use = false));
    expect(await startAs(noWeb.cookie, 'my_files')).toMatchObject(refused);

    // An "image" that is not one.
    const fake = await upload(noFiles.cookie, Buffer.from('not an image'), {
      filename: 'fake.png',
      contentType: 'image/png',
      query: '?use_case=multimodal',
    });
    expect(fake.json()).toMatchObject({ code: 422, message: 'errors.invalidParams' });
  });

  it('enforces the global switches', async () => {
    const u = await user();
    try {
      await setWeb({ enable_uploading_multimodal_images: false });
      expect(await startAs(u.cookie, 'multimodal')).toMatchObject(refused);
      expect((await startAs(u.cookie, 'my_files')).code).toBe(200);
      expect((await upload(u.cookie, pngBytes(2, 2), { filename: 'c.png' })).json()).toMatchObject(refused);
      await setWeb({ enable_uploading_multimodal_images: true, enable_uploading_attachments: false });
      expect(await startAs(u.cookie, 'my_files')).toMatchObject(refused);
      expect((await startAs(u.cookie, 'multimodal')).code).toBe(200);
      expect((await upload(u.cookie, Buffer.from('t'), { filename: 't.txt' })).json()).toMatchObject(refused);
    } finally {
      await setWeb({ enable_uploading_multimodal_images: true, enable_uploading_attachments: true });
    }
  });
});

const askBase = { source: 'openai_web', model: 'gpt_4', new_conversation: true } as const;

describe('asks with files', () => {
  it('sends attachments and image parts in the web shape, and the answer shows them', async () => {
    const u = await user();
    const png = pngBytes(37, 21);
    const image = await onUpstream(u.cookie, (await uploaded(u.cookie, png, { filename: 'cat.png' })).id);
    const notes = Buffer.from('meeting notes');
    const doc = await onUpstream(
      u.cookie,
      (await uploaded(u.cookie, notes, { filename: 'notes.txt', contentType: 'text/plain' })).id,
    );
    const imageId = image.openai_web_info!.file_id!;
    const docId = doc.openai_web_info!.file_id!;
    const pointer = `file-service://${imageId}`;
    const request: AskRequestInput = {
      ...askBase,
      text_content: 'What do these show?',
      openai_web_attachments: [
        { id: docId, name: 'notes.txt', size: notes.length, mime_type: 'text/plain' },
        { id: imageId, name: 'cat.png', size: png.length, mime_type: 'image/png', width: 37, height: 21 },
      ],
      openai_web_multimodal_image_parts: [
        { asset_pointer: pointer, size_bytes: png.length, width: 37, height: 21 },
      ],
    };
    const r = await ask(url, request, { cookie: u.cookie });
    expect([r.code, r.reason]).toEqual([1000, 'tips.finished']);

    const sent = await emulator.waitForRequest(
      (x) =>
        x.method === 'POST' &&
        x.path === '/backend-api/conversation' &&
        JSON.stringify(x.body).includes(pointer),
    );
    expect(sent.hadAuthorization).toBe(true);
    const message = (sent.body as { messages: { content: unknown; metadata: unknown }[] }).messages[0]!;
    expect(message.content).toEqual({
      content_type: 'multimodal_text',
      parts: [
        {
          content_type: 'image_asset_pointer',
          asset_pointer: pointer,
          size_bytes: png.length,
          width: 37,
          height: 21,
        },
        'What do these show?',
      ],
    });
    expect(message.metadata).toEqual({
      attachments: [
        { id: docId, name: 'notes.txt', size: notes.length, mimeType: 'text/plain' },
        { id: imageId, name: 'cat.png', size: png.length, mimeType: 'image/png', width: 37, height: 21 },
      ],
    });

    const [userMessage, echo, answer] = finalMessages(r.frames);
    expect(userMessage).toMatchObject({ role: 'user', content: message.content, metadata: message.metadata });
    expect(echo).toMatchObject({
      role: 'assistant',
      content: { content_type: 'multimodal_text', parts: [{ asset_pointer: pointer }, expect.any(String)] },
    });
    const text = messageText(answer!);
    expect(text).toContain(pointer);
    expect(text).toContain('notes.txt');

    // The image now belongs to a conversation of the user's: it resolves through the server.
    const content = await get(u.cookie, `/api/files/openai-web/${imageId}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.rawPayload.equals(png)).toBe(true);
  });

  it('rejects a 5th image with tooManyImages', async () => {
    const u = await user();
    const part = { asset_pointer: 'file-service://file-x', size_bytes: 1, width: 1, height: 1 };
    const r = await ask(
      url,
      { ...askBase, text_content: 'five', openai_web_multimodal_image_parts: Array(5).fill(part) },
      { cookie: u.cookie },
    );
    expect(r.frames).toEqual([
      {
        type: 'error',
        tip: 'errors.tooManyImages',
        error_detail: 'validation.tooManyImages',
        params: { max: 4 },
      },
    ]);
    expect([r.code, r.reason]).toEqual([1008, 'errors.tooManyImages']);
  });

  it('enforces the upload permissions on asks (user flags and global switches)', async () => {
    const attachment = { id: 'file-abc', name: 'a.txt', size: 1 };
    const image = { asset_pointer: 'file-service://file-abc', size_bytes: 1, width: 1, height: 1 };
    const refusedAsk = (r: Awaited<ReturnType<typeof ask>>) => {
      expect(r.frames).toEqual([
        expect.objectContaining({ type: 'error', tip: 'errors.uploadingNotAllowed' }),
      ]);
      expect([r.code, r.reason]).toEqual([1008, 'errors.uploadingNotAllowed']);
    };
    const noFiles = await user((s) => (s.openai_web.allow_uploading_attachments = false));
    refusedAsk(
      await ask(
        url,
        { ...askBase, text_content: 'x', openai_web_attachments: [attachment] },
        { cookie: noFiles.cookie },
      ),
    );
    const noImages = await user((s) => (s.openai_web.allow_uploading_multimodal_images = false));
    refusedAsk(
      await ask(
        url,
        { ...askBase, text_content: 'x', openai_web_multimodal_image_parts: [image] },
        { cookie: noImages.cookie },
      ),
    );
    const u = await user();
    try {
      await setWeb({ enable_uploading_multimodal_images: false });
      refusedAsk(
        await ask(
          url,
          { ...askBase, text_content: 'x', openai_web_multimodal_image_parts: [image] },
          { cookie: u.cookie },
        ),
      );
      await setWeb({ enable_uploading_multimodal_images: true, enable_uploading_attachments: false });
      refusedAsk(
        await ask(
          url,
          { ...askBase, text_content: 'x', openai_web_attachments: [attachment] },
          { cookie: u.cookie },
        ),
      );
    } finally {
      await setWeb({ enable_uploading_multimodal_images: true, enable_uploading_attachments: true });
    }
  });

  it("refuses someone else's file in an ask", async () => {
    const owner = await user();
    const thief = await user();
    const file = await onUpstream(owner.cookie, (await uploaded(owner.cookie, Buffer.from('secret'))).id);
    const fileId = file.openai_web_info!.file_id!;
    const before = emulator.requests.length;
    const r = await ask(
      url,
      { ...askBase, text_content: 'read it', openai_web_attachments: [{ id: fileId, name: 'x', size: 6 }] },
      { cookie: thief.cookie },
    );
    expect(r.frames).toEqual([expect.objectContaining({ type: 'error', tip: 'errors.accessDenied' })]);
    expect([r.code, r.reason]).toEqual([1008, 'errors.accessDenied']);
    expect(emulator.requests.slice(before).some((x) => x.path === '/backend-api/conversation')).toBe(false);
  });
});

describe('upstream file downloads', () => {
  it('resolve only for the uploader, the owner of a conversation whose answer shows the file, or a superuser', async () => {
    const owner = await user();
    const other = await user();
    const r = await ask(url, { ...askBase, text_content: '#dalle a red fox' }, { cookie: owner.cookie });
    expect(r.code).toBe(1000);
    const tool = finalMessages(r.frames).find((m) => m.role === 'tool')!;
    const part = (tool.content as { parts: { asset_pointer: string }[] }).parts[0]!;
    const fileId = part.asset_pointer.replace('file-service://', '');

    const link = await get(owner.cookie, `/api/files/openai-web/${fileId}/download-url`);
    expect(link.statusCode, link.body).toBe(200);
    expect(link.json().result).toMatch(new RegExp(`^${emulator.url}/blob/${fileId}`));
    expect((await get(admin, `/api/files/openai-web/${fileId}/download-url`)).json().code).toBe(200);
    const foreign = await get(other.cookie, `/api/files/openai-web/${fileId}/download-url`);
    expect([foreign.statusCode, foreign.json().code]).toEqual([403, 10403]);
    expect((await get(other.cookie, `/api/files/openai-web/${fileId}/content`)).json().code).toBe(10403);
    expect((await get(null, `/api/files/openai-web/${fileId}/download-url`)).json().code).toBe(10401);
    expect((await get(owner.cookie, '/api/files/openai-web/..%2Fetc/download-url')).json().code).toBe(422);
    // A wildcard-looking id does not match other ids.
    expect((await get(owner.cookie, '/api/files/openai-web/file-%25/download-url')).json().code).toBe(422);
    expect(
      (await get(owner.cookie, `/api/files/openai-web/${fileId.slice(0, -1)}_/download-url`)).json().code,
    ).toBe(10403);
    expect((await get(admin, '/api/files/openai-web/file-doesnotexist/download-url')).json().code).toBe(404);

    const before = emulator.requests.length;
    const content = await get(owner.cookie, `/api/files/openai-web/${fileId}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-type']).toBe('image/png');
    expect(content.headers['x-content-type-options']).toBe('nosniff');
    expect(content.headers['content-disposition']).toMatch(/^attachment; filename="dalle-1\.png"/);
    expect(content.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const blobGet = emulator.requests.slice(before).find((x) => x.path === `/blob/${fileId}`);
    expect(blobGet?.hadAuthorization).toBe(false);
  });

  it("a file id pasted into a question as text grants nothing (only the server's own records do)", async () => {
    const owner = await user();
    const other = await user();
    const r = await ask(url, { ...askBase, text_content: '#dalle a grey owl' }, { cookie: owner.cookie });
    expect(r.code).toBe(1000);
    const tool = finalMessages(r.frames).find((m) => m.role === 'tool')!;
    const pointer = (tool.content as { parts: { asset_pointer: string }[] }).parts[0]!.asset_pointer;
    const fileId = pointer.replace('file-service://', '');

    // The other user types the pointer, then the bare id, as questions of their own conversation: the question
    // and the answer that quotes it are stored, yet neither is a record the server made about that file.
    for (const text of [pointer, fileId]) {
      const pasted = await ask(url, { ...askBase, text_content: text }, { cookie: other.cookie });
      expect(pasted.code).toBe(1000);
      expect(JSON.stringify(finalMessages(pasted.frames))).toContain(fileId);
    }
    expect((await get(other.cookie, `/api/files/openai-web/${fileId}/download-url`)).statusCode).toBe(403);
    expect((await get(other.cookie, `/api/files/openai-web/${fileId}/content`)).statusCode).toBe(403);
    const reuse = await ask(
      url,
      {
        ...askBase,
        text_content: 'describe it',
        openai_web_multimodal_image_parts: [{ asset_pointer: pointer, size_bytes: 1, width: 1, height: 1 }],
      },
      { cookie: other.cookie },
    );
    expect([reuse.code, reuse.reason]).toEqual([1008, 'errors.accessDenied']);

    // The owner's access comes from the tool message's image part, also after the history is read back from the
    // upstream (the same write path), and from a code-interpreter image in a tool message's metadata.
    const conv = r.frames.flatMap((f) => (f.type === 'message' ? [f.conversation_id] : []))[0]!;
    expect((await get(owner.cookie, `/api/conv/${conv}`)).statusCode).toBe(200);
    expect((await get(owner.cookie, `/api/files/openai-web/${fileId}/content`)).statusCode).toBe(200);
    const code = await ask(url, { ...askBase, text_content: '#code cubes' }, { cookie: owner.cookie });
    const codeTool = finalMessages(code.frames).find((m) => m.role === 'tool' && m.metadata)!;
    const aggregate = (codeTool.metadata as { aggregate_result: { messages: { image_url?: string }[] } })
      .aggregate_result;
    const imageId = aggregate.messages.find((m) => m.image_url)!.image_url!.replace('file-service://', '');
    expect((await get(owner.cookie, `/api/files/openai-web/${imageId}/content`)).statusCode).toBe(200);
    expect((await get(other.cookie, `/api/files/openai-web/${imageId}/content`)).statusCode).toBe(403);
  });

  it("fetches the upstream's download URLs only from its own host or the configured blob origins", async () => {
    // Another service the server can reach (an internal one, say) and an upstream that points downloads at it.
    const hits: string[] = [];
    const internal = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('internal secret');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const internalOrigin = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
    let downloadUrl = `${internalOrigin}/admin/export`;
    const upstream = http.createServer((req, res) => {
      if (!/^\/backend-api\/files\/[^/]+\/download$/.test(req.url ?? '')) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'success', download_url: downloadUrl, file_name: 'export.txt' }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamOrigin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const origins = t.ctx.runtime.current().openai_web.browser_upload_origins;
    const content = () => get(admin, '/api/files/openai-web/file-anything/content');
    try {
      await setWeb({ chatgpt_base_url: `${upstreamOrigin}/backend-api/` });
      await t.ctx.upstream.refresh();

      for (const url of [
        `${internalOrigin}/admin/export`,
        `${upstreamOrigin.replace('127.0.0.1', 'localhost')}/x`,
        'https://files.oaiusercontent.com.evil.example/x',
        'https://evil.example/.blob.core.windows.net/x',
        'https://blob.core.windows.net.evil.example/x',
      ]) {
        downloadUrl = url;
        const refused = await content();
        expect([url, refused.statusCode]).toEqual([url, 502]);
        expect(refused.body).not.toContain('internal secret');
      }
      expect(hits).toEqual([]);

      // The upstream's own host, and a host the admin lists as a blob origin, are fetched.
      downloadUrl = `${upstreamOrigin}/backend-api/files/file-anything/download`;
      expect((await content()).statusCode).toBe(200);
      downloadUrl = `${internalOrigin}/blob/file-anything?sig=1`;
      await setWeb({ browser_upload_origins: [...origins, internalOrigin] });
      const allowed = await content();
      expect(allowed.statusCode).toBe(200);
      expect(allowed.body).toBe('internal secret');
      expect(hits).toEqual(['/blob/file-anything?sig=1']);
    } finally {
      await setWeb({ chatgpt_base_url: emulator.webBaseUrl, browser_upload_origins: origins });
      await t.ctx.upstream.refresh();
      internal.closeAllConnections();
      upstream.closeAllConnections();
      await new Promise((resolve) => internal.close(resolve));
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  it('contacts no host but the upstream and the blob origins when the upstream hands back file URLs elsewhere', async () => {
    // A host the server can reach that the upstream points its upload and download URLs at: it records every
    // connection, so a request the server should not make cannot go unnoticed.
    const connections: string[] = [];
    const elsewhere = http.createServer((req, res) => res.writeHead(201).end());
    elsewhere.on('connection', (socket) => connections.push(String(socket.remotePort)));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const origins = t.ctx.runtime.current().openai_web.browser_upload_origins;
    const owner = await user();
    try {
      // A file already on the upstream (uploaded while its URLs pointed at itself).
      const before = await onUpstream(owner.cookie, (await uploaded(owner.cookie, Buffer.from('kept'))).id);
      const fileId = before.openai_web_info!.file_id!;
      emulator.setBlobOrigin(elsewhereOrigin);
      const markedUploaded = () => emulator.requests.filter((r) => r.path.endsWith('/uploaded')).length;
      const markedBefore = markedUploaded();

      // Upload relay: the PUT to the blob is refused before any request; the upstream is not told it was uploaded.
      const info = await uploaded(owner.cookie, Buffer.from('hello'));
      const relay = await post(owner.cookie, `/api/files/local/upload-to-openai-web/${info.id}`);
      expect(relay.statusCode).toBe(502);
      expect(relay.json().result).toBe(
        `the upstream returned an upload URL on a host that is not allowed: 127.0.0.1:${new URL(elsewhereOrigin).port}`,
      );
      // Download relay: the same.
      const download = await get(owner.cookie, `/api/files/openai-web/${fileId}/content`);
      expect(download.statusCode).toBe(502);
      expect(download.json().result).toContain('download URL on a host that is not allowed');
      expect(connections).toEqual([]);
      expect(markedUploaded()).toBe(markedBefore);

      // Listed as a blob origin, the same host is contacted: the host check is what kept it away.
      await setWeb({ browser_upload_origins: [...origins, elsewhereOrigin] });
      await post(owner.cookie, `/api/files/local/upload-to-openai-web/${info.id}`);
      expect(connections.length).toBeGreaterThan(0);
    } finally {
      emulator.setBlobOrigin(null);
      await setWeb({ browser_upload_origins: origins });
      elsewhere.closeAllConnections();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it('interpreter download: owner or superuser, through the URL or the server', async () => {
    const owner = await user();
    const other = await user();
    const r = await ask(url, { ...askBase, text_content: '#code squares' }, { cookie: owner.cookie });
    expect(r.code).toBe(1000);
    const conv = r.frames.flatMap((f) => (f.type === 'message' ? [f.conversation_id] : []))[0]!;
    const tool = finalMessages(r.frames).find((m) => m.role === 'tool')!;
    const q = `message_id=${tool.id}&sandbox_path=${encodeURIComponent('/mnt/data/chart.png')}`;
    const link = await get(owner.cookie, `/api/conv/${conv}/interpreter/download-url?${q}`);
    expect(link.statusCode, link.body).toBe(200);
    expect(link.json().result).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blob\/file-/);
    expect((await get(admin, `/api/conv/${conv}/interpreter/download-url?${q}`)).json().code).toBe(200);
    expect((await get(other.cookie, `/api/conv/${conv}/interpreter/download-url?${q}`)).json().code).toBe(
      10403,
    );
    const missing = `message_id=${randomUUID()}&sandbox_path=/mnt/data/x.txt`;
    expect(
      (await get(owner.cookie, `/api/conv/${conv}/interpreter/download-url?${missing}`)).json().code,
    ).toBe(404);

    const bytes = await get(owner.cookie, `/api/conv/${conv}/interpreter/download?${q}`);
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(bytes.headers['content-disposition']).toMatch(/filename="chart\.png"/);
    expect(bytes.rawPayload.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('large uploads', () => {
  it('streams a file bigger than the JSON body limit to disk', async () => {
    const big = await createTestApp();
    try {
      const current = big.ctx.runtime.current();
      await big.ctx.runtime.save({
        ...current,
        openai_web: { ...current.openai_web, file_upload_strategy: 'server_upload_only' },
      });
      const cookie = await big.login(ADMIN.username, ADMIN.password);
      const data = randomBytes(3 * 1024 * 1024);
      const form = multipartFile(data, { filename: 'big.bin' });
      const res = await big.app.inject({
        method: 'POST',
        url: '/api/files/local/upload',
        headers: { ...form.headers, cookie },
        payload: form.payload,
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().result.size).toBe(data.length);
    } finally {
      await big.close();
    }
  });
});
