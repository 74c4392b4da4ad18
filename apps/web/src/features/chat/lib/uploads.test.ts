import { describe, expect, it, vi } from 'vitest';
import type { StartUploadResponse, UploadedFileInfo, UserRead } from '@cc/contracts';
import { ApiError, NetworkError } from '../../../lib/api-client';
import {
  UploadFailure,
  admitFiles,
  classifyFile,
  describeUploadError,
  groupRejections,
  runUpload,
  sizeProblem,
  toAskFiles,
  uploadPermissions,
} from './uploads';
import type { UploadItem, UploadPermissions, UploadTransport } from './uploads';

const ALL: UploadPermissions = { attachments: true, images: true };

function png(name = 'a.png', size = 10): File {
  return new File([new Uint8Array(size)], name, { type: 'image/png' });
}

function text(name = 'notes.txt', size = 5): File {
  return new File([new Uint8Array(size)], name, { type: 'text/plain' });
}

function info(overrides: Partial<UploadedFileInfo> = {}): UploadedFileInfo {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    original_filename: 'a.png',
    size: 10,
    storage_path: null,
    content_type: 'image/png',
    upload_time: '2026-01-01T00:00:00Z',
    uploader_id: 1,
    openai_web_info: { file_id: 'file-abc', use_case: 'multimodal', upload_url: null, download_url: 'x' },
    extra_info: null,
    ...overrides,
  };
}

function item(overrides: Partial<UploadItem> = {}): UploadItem {
  return {
    key: `k${Math.random()}`,
    file: png(),
    kind: 'image',
    useCase: 'multimodal',
    width: 2,
    height: 3,
    previewUrl: null,
    status: 'done',
    progress: 1,
    problem: null,
    info: info(),
    ...overrides,
  };
}

type Mocked<T> = { [K in keyof T]: ReturnType<typeof vi.fn> & T[K] };

function fakeTransport(start: StartUploadResponse): Mocked<UploadTransport> {
  return {
    start: vi.fn().mockResolvedValue(start),
    putBlob: vi.fn(async (_url: string, _file: Blob, o: { onProgress?: (f: number) => void }) => {
      o.onProgress?.(0.5);
      o.onProgress?.(1);
    }),
    complete: vi.fn().mockResolvedValue(info()),
    uploadLocal: vi.fn(async (_f: File, _u: string, o: { onProgress?: (f: number) => void }) => {
      o.onProgress?.(1);
      return info({ id: '22222222-2222-4222-8222-222222222222', openai_web_info: null, storage_path: 'x' });
    }),
    relay: vi
      .fn()
      .mockResolvedValue(info({ openai_web_info: { ...info().openai_web_info!, file_id: 'file-rel' } })),
  };
}

describe('uploadPermissions', () => {
  const user = {
    setting: {
      openai_web: {
        allow_to_use: true,
        allow_uploading_attachments: true,
        allow_uploading_multimodal_images: false,
      },
    },
  } as unknown as UserRead;

  it('follows the user flags on openai_web GPT-4 models only', () => {
    expect(uploadPermissions(user, 'openai_web', 'gpt_4')).toEqual({ attachments: true, images: false });
    expect(uploadPermissions(user, 'openai_web', 'gpt_4_code_interpreter').attachments).toBe(true);
    expect(uploadPermissions(user, 'openai_web', 'gpt_3_5')).toEqual({ attachments: false, images: false });
    expect(uploadPermissions(user, 'openai_api', 'gpt_4')).toEqual({ attachments: false, images: false });
    expect(uploadPermissions(undefined, 'openai_web', 'gpt_4')).toEqual({
      attachments: false,
      images: false,
    });
  });
});

describe('classifyFile', () => {
  it('sends supported images as image parts, everything else as attachments', () => {
    expect(classifyFile(png(), ALL)).toEqual({ kind: 'image', useCase: 'multimodal' });
    expect(classifyFile(text(), ALL)).toEqual({ kind: 'file', useCase: 'my_files' });
    expect(classifyFile({ type: 'image/svg+xml' }, ALL)).toEqual({ kind: 'file', useCase: 'my_files' });
    expect(classifyFile(png(), { attachments: true, images: false })).toEqual({
      kind: 'file',
      useCase: 'my_files',
    });
    expect(classifyFile(text(), { attachments: false, images: true })).toBeNull();
  });
});

describe('admitFiles', () => {
  it('takes at most 4 images per question with the "up to 4 images" message', () => {
    const five = [1, 2, 3, 4, 5].map((i) => png(`${i}.png`));
    const { accepted, rejected } = admitFiles([], [...five, text()], ALL, null);
    expect(accepted.map((a) => a.file.name)).toEqual(['1.png', '2.png', '3.png', '4.png', 'notes.txt']);
    expect(rejected).toEqual([{ file: five[4], problem: { key: 'validation.tooManyImages' } }]);
  });

  it('counts the images already in the list, but not failed ones', () => {
    const current = [item(), item(), item({ status: 'uploading' }), item({ status: 'error' })];
    const { accepted, rejected } = admitFiles(current, [png('x.png'), png('y.png')], ALL, null);
    expect(accepted).toHaveLength(1);
    expect(rejected[0]?.problem.key).toBe('validation.tooManyImages');
  });

  it('refuses files the user may not upload', () => {
    const { accepted, rejected } = admitFiles([], [text()], { attachments: false, images: true }, null);
    expect(accepted).toEqual([]);
    expect(rejected[0]?.problem.key).toBe('errors.uploadingNotAllowed');
  });

  it('refuses a file over the server limit before uploading when every file goes through the server', () => {
    const limits = { strategy: 'server_upload_only' as const, fileMaxSize: 8 };
    const { accepted, rejected } = admitFiles([], [png('big.png', 9), png('ok.png', 8)], ALL, limits);
    expect(accepted.map((a) => a.file.name)).toEqual(['ok.png']);
    expect(rejected[0]?.problem).toEqual({ key: 'upload.tooLarge', values: { max: '8 B' } });
  });

  it('refuses a file over the upstream limit before uploading under the browser strategies too', () => {
    const tooLarge = { key: 'upload.tooLarge', values: { max: '512.00 MB' } };
    const max = 512 * 1024 * 1024;
    expect(sizeProblem(max + 1, { strategy: 'browser_upload_only', fileMaxSize: max })).toEqual(tooLarge);
    expect(
      sizeProblem(max + 1, { strategy: 'browser_upload_when_file_size_exceed', fileMaxSize: max }),
    ).toEqual(tooLarge);
    expect(sizeProblem(max, { strategy: 'browser_upload_only', fileMaxSize: max })).toBeNull();
    // Before the server first answered, the limit is unknown: upload-start refuses.
    expect(sizeProblem(max + 1, null)).toBeNull();
  });

  it('refuses an empty file with its own message', () => {
    const { accepted, rejected } = admitFiles([], [text('empty.txt', 0), text()], ALL, null);
    expect(accepted.map((a) => a.file.name)).toEqual(['notes.txt']);
    expect(rejected.map((r) => [r.file.name, r.problem])).toEqual([
      ['empty.txt', { key: 'upload.emptyFile' }],
    ]);
  });
});

describe('groupRejections', () => {
  it('tells the refused files of one drop once per problem', () => {
    const files = Array.from({ length: 25 }, (_, i) => text(`${i}.txt`));
    const { rejected } = admitFiles([], [...files, text('empty.txt', 0)], ALL, null);
    expect(groupRejections(rejected)).toEqual([
      {
        problem: { key: 'upload.tooManyFiles', values: { max: 20 } },
        files: files.slice(20),
      },
      { problem: { key: 'upload.emptyFile' }, files: [expect.objectContaining({ name: 'empty.txt' })] },
    ]);
  });
});

describe('runUpload', () => {
  const base = { file: png(), useCase: 'multimodal' as const, width: 2, height: 3 };

  it('browser strategy: PUT to the signed URL, then upload-complete; never through the server', async () => {
    const transport = fakeTransport({
      strategy: 'browser_upload_only',
      file_max_size: 100,
      upload_file_info: info({
        openai_web_info: {
          file_id: 'file-abc',
          use_case: 'multimodal',
          upload_url: 'https://blob/x?sig=1',
          download_url: null,
        },
      }),
    });
    const progress: number[] = [];
    const onLimits = vi.fn();
    const done = await runUpload(base, { transport, onLimits, onProgress: (p) => progress.push(p) });
    expect(transport.start).toHaveBeenCalledWith({
      file_name: 'a.png',
      file_size: 10,
      width: 2,
      height: 3,
      mime_type: 'image/png',
      use_case: 'multimodal',
    });
    expect(transport.putBlob).toHaveBeenCalledWith('https://blob/x?sig=1', base.file, expect.anything());
    expect(transport.complete).toHaveBeenCalledWith('11111111-1111-4111-8111-111111111111');
    expect(transport.uploadLocal).not.toHaveBeenCalled();
    expect(transport.relay).not.toHaveBeenCalled();
    expect(onLimits).toHaveBeenCalledWith({ strategy: 'browser_upload_only', fileMaxSize: 100 });
    expect(done.openai_web_info?.file_id).toBe('file-abc');
    expect(progress).toEqual([0.475, 0.95, 1]);
  });

  it('server strategy: multipart upload to the server, then the relay', async () => {
    const transport = fakeTransport({
      strategy: 'server_upload_only',
      file_max_size: 100,
      upload_file_info: null,
    });
    const done = await runUpload(base, { transport });
    expect(transport.uploadLocal).toHaveBeenCalledWith(base.file, 'multimodal', expect.anything());
    expect(transport.relay).toHaveBeenCalledWith('22222222-2222-4222-8222-222222222222');
    expect(transport.putBlob).not.toHaveBeenCalled();
    expect(done.openai_web_info?.file_id).toBe('file-rel');
  });

  it('server strategy: a file over file_max_size is refused before its bytes are sent', async () => {
    const transport = fakeTransport({
      strategy: 'browser_upload_when_file_size_exceed',
      file_max_size: 4,
      upload_file_info: null,
    });
    await expect(runUpload(base, { transport })).rejects.toEqual(
      new UploadFailure({ key: 'upload.tooLarge', values: { max: '4 B' } }),
    );
    expect(transport.uploadLocal).not.toHaveBeenCalled();
  });

  it('fails clearly without an upload URL or a resulting file id', async () => {
    const noUrl = fakeTransport({
      strategy: 'browser_upload_only',
      file_max_size: 1,
      upload_file_info: info(),
    });
    await expect(runUpload(base, { transport: noUrl })).rejects.toBeInstanceOf(UploadFailure);
    const noId = fakeTransport({
      strategy: 'server_upload_only',
      file_max_size: 100,
      upload_file_info: null,
    });
    noId.relay.mockResolvedValue(info({ openai_web_info: null }));
    await expect(runUpload(base, { transport: noId })).rejects.toEqual(
      new UploadFailure({ key: 'upload.noFileId' }),
    );
  });

  it('stops after a step when cancelled', async () => {
    const controller = new AbortController();
    const response = { strategy: 'server_upload_only' as const, file_max_size: 100, upload_file_info: null };
    const transport = {
      ...fakeTransport(response),
      start: () => {
        controller.abort();
        return Promise.resolve(response);
      },
    };
    await expect(runUpload(base, { transport, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(transport.uploadLocal).not.toHaveBeenCalled();
  });
});

describe('describeUploadError', () => {
  it('puts failures in words', () => {
    expect(
      describeUploadError(new ApiError(413, 'errors.fileTooLarge', { max_size: 2048 }, 413, '/api/x')),
    ).toEqual({
      key: 'upload.tooLarge',
      values: { max: '2.00 KB' },
    });
    expect(
      describeUploadError(new ApiError(10403, 'errors.uploadingNotAllowed', 'images', 403, '/api/x')),
    ).toEqual({
      key: 'errors.uploadingNotAllowed',
    });
    expect(describeUploadError(new NetworkError('x', 'https://blob.example/f', null))).toEqual({
      key: 'upload.blobUnreachable',
    });
    expect(describeUploadError(new NetworkError('x', 'https://blob.example/f', 403))).toEqual({
      key: 'upload.blobFailed',
      values: { status: 403 },
    });
    expect(describeUploadError(new NetworkError('x', '/api/files/local/upload', null))).toEqual({
      key: 'errors.requestError',
    });
    expect(describeUploadError(new Error('?'))).toEqual({ key: 'upload.failed' });
  });
});

describe('toAskFiles', () => {
  it('sends every finished file as an attachment and images also as image parts', () => {
    const image = item();
    const file = item({
      kind: 'file',
      useCase: 'my_files',
      file: text(),
      width: null,
      height: null,
      info: info({
        original_filename: 'notes.txt',
        size: 5,
        content_type: 'text/plain',
        openai_web_info: { file_id: 'file-txt', use_case: 'my_files', upload_url: null, download_url: null },
      }),
    });
    const pending = item({ status: 'uploading', info: null });
    const failed = item({ status: 'error', info: null });
    expect(toAskFiles([image, file, pending, failed], ALL)).toEqual({
      openai_web_attachments: [
        { name: 'a.png', id: 'file-abc', size: 10, mime_type: 'image/png', width: 2, height: 3 },
        { name: 'notes.txt', id: 'file-txt', size: 5, mime_type: 'text/plain' },
      ],
      openai_web_multimodal_image_parts: [
        { asset_pointer: 'file-service://file-abc', size_bytes: 10, width: 2, height: 3 },
      ],
    });
  });

  it('leaves images out of the attachments when attachments are not allowed, and is empty without files', () => {
    expect(toAskFiles([item()], { attachments: false, images: true })).toEqual({
      openai_web_attachments: null,
      openai_web_multimodal_image_parts: [
        { asset_pointer: 'file-service://file-abc', size_bytes: 10, width: 2, height: 3 },
      ],
    });
    expect(toAskFiles([], ALL)).toEqual({
      openai_web_attachments: null,
      openai_web_multimodal_image_parts: null,
    });
  });

  it('prefers the dimensions the server measured', () => {
    const files = toAskFiles([item({ info: info({ extra_info: { width: 20, height: 30 } }) })], ALL);
    expect(files.openai_web_multimodal_image_parts?.[0]).toMatchObject({ width: 20, height: 30 });
  });
});
