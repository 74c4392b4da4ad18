/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies and events */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import { finalMessages, textOf, webAsk } from './test-helpers';
import type { Emulator } from './index';

let emu: Emulator;
const TOKEN = 'web-token-abc';
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  emu = await startEmulator({ webAccessToken: TOKEN });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

async function startUpload(name: string, size: number): Promise<{ upload_url: string; file_id: string }> {
  const res = await fetch(`${emu.webBaseUrl}files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ file_name: name, file_size: size, use_case: 'multimodal' }),
  });
  expect(res.status).toBe(200);
  const body: any = await res.json();
  expect(body.status).toBe('success');
  return body;
}

describe('file upload flow', () => {
  it('create → blob PUT (no Authorization) → uploaded → download', async () => {
    const bytes = Buffer.from('hello blob host');
    const start = await startUpload('notes.txt', bytes.length);
    expect(start.file_id).toMatch(/^file-[A-Za-z0-9]{24}$/);
    expect(start.upload_url.startsWith(`${emu.url}/blob/${start.file_id}?`)).toBe(true);

    const put = await fetch(start.upload_url, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2020-04-08', 'content-type': 'text/plain' },
      body: bytes,
    });
    expect(put.status).toBe(201);
    const putRecord = emu.requests.find((r) => r.method === 'PUT' && r.path === `/blob/${start.file_id}`);
    expect(putRecord?.hadAuthorization).toBe(false);
    expect(putRecord?.headers['authorization']).toBeUndefined();
    expect(putRecord?.bodyBytes).toBe(bytes.length);

    const uploaded = await fetch(`${emu.webBaseUrl}files/${start.file_id}/uploaded`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{}',
    });
    expect(uploaded.status).toBe(200);
    const info: any = await uploaded.json();
    expect(info.status).toBe('success');
    expect(info.download_url.startsWith(`${emu.url}/blob/${start.file_id}`)).toBe(true);

    const again = await fetch(`${emu.webBaseUrl}files/${start.file_id}/uploaded`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{}',
    });
    expect(again.status).toBe(400);

    const download: any = await (
      await fetch(`${emu.webBaseUrl}files/${start.file_id}/download`, { headers: auth })
    ).json();
    expect(download.status).toBe('success');
    const got = Buffer.from(await (await fetch(download.download_url)).arrayBuffer());
    expect(got.equals(bytes)).toBe(true);
  });

  it('refuses to create a file declared larger than 512 MB, before any bytes are sent', async () => {
    const create = (size: number) =>
      fetch(`${emu.webBaseUrl}files`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ file_name: 'big.zip', file_size: size, use_case: 'my_files' }),
      });
    const tooBig = await create(700 * 1024 * 1024);
    expect(tooBig.status).toBe(400);
    expect(tooBig.headers.get('content-type')).toContain('application/json');
    const body: any = await tooBig.json();
    expect(body.detail).toMatch(/too large.*536870912/);
    expect(body.upload_url).toBeUndefined();
    expect((await create(512 * 1024 * 1024)).status).toBe(200);
  });

  it('records an Authorization header sent to the blob host', async () => {
    const start = await startUpload('leak.txt', 4);
    await fetch(start.upload_url, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', authorization: `Bearer ${TOKEN}` },
      body: 'leak',
    });
    const record = await emu.waitForRequest((r) => r.path.startsWith('/blob/') && r.method === 'PUT');
    expect(record.hadAuthorization).toBe(true);
  });

  it('enforces the blob headers and signature, and uploaded before PUT', async () => {
    const start = await startUpload('a.png', 3);
    const noType = await fetch(start.upload_url, { method: 'PUT', body: 'abc' });
    expect(noType.status).toBe(400);
    const badSig = await fetch(start.upload_url.replace(/sig=[0-9a-f]+/, 'sig=bad'), {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob' },
      body: 'abc',
    });
    expect(badSig.status).toBe(403);
    const early = await fetch(`${emu.webBaseUrl}files/${start.file_id}/uploaded`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{}',
    });
    expect(early.status).toBe(400);
    const missing = await fetch(`${emu.webBaseUrl}files/file-doesnotexist/download`, { headers: auth });
    expect(missing.status).toBe(404);
    expect((await fetch(`${emu.url}/blob/file-doesnotexist`)).status).toBe(404);
  });

  it('hands out upload and download URLs on another origin when told to, until reset', async () => {
    emu.setBlobOrigin('http://blob.example:9000');
    const start = await startUpload('a.txt', 3);
    expect(start.upload_url.startsWith(`http://blob.example:9000/blob/${start.file_id}?`)).toBe(true);
    // The bytes still go to the emulator's own /blob/ route.
    const put = await fetch(start.upload_url.replace('http://blob.example:9000', emu.url), {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob' },
      body: 'abc',
    });
    expect(put.status).toBe(201);
    const download = await fetch(`${emu.webBaseUrl}files/${start.file_id}/download`, { headers: auth });
    expect(((await download.json()) as any).download_url).toMatch(/^http:\/\/blob\.example:9000\/blob\//);
    emu.reset();
    expect((await startUpload('b.txt', 3)).upload_url.startsWith(`${emu.url}/blob/`)).toBe(true);
  });

  it('answers a question about an uploaded image with image parts that reference it', async () => {
    const bytes = Buffer.from('not really a png');
    const start = await startUpload('cat.png', bytes.length);
    await fetch(start.upload_url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: bytes });
    await fetch(`${emu.webBaseUrl}files/${start.file_id}/uploaded`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{}',
    });
    const pointer = `file-service://${start.file_id}`;
    const r = await webAsk(emu.webBaseUrl, 'What is this?', {
      headers: auth,
      content: {
        content_type: 'multimodal_text',
        parts: [
          { content_type: 'image_asset_pointer', asset_pointer: pointer, size_bytes: 1, width: 8, height: 6 },
          {
            content_type: 'image_asset_pointer',
            asset_pointer: 'file-service://file-NEVERUPLOADED',
            size_bytes: 1,
            width: 1,
            height: 1,
          },
          'What is this?',
        ],
      },
    });
    const [, echo, answer] = finalMessages(r.snapshots);
    expect(echo.author.role).toBe('assistant');
    expect(echo.content.content_type).toBe('multimodal_text');
    expect(echo.content.parts).toEqual([
      {
        content_type: 'image_asset_pointer',
        asset_pointer: pointer,
        size_bytes: bytes.length,
        width: 8,
        height: 6,
      },
      'Here is the image you uploaded.',
    ]);
    expect(textOf(answer)).toContain(pointer);
    expect(answer.end_turn).toBe(true);
  });
});
