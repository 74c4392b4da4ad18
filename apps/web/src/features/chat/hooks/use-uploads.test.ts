import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UploadedFileInfo } from '@cc/contracts';
import type { UploadTransport } from '../lib/uploads';
import { useUploads } from './use-uploads';

const done: UploadedFileInfo = {
  id: '11111111-1111-4111-8111-111111111111',
  original_filename: 'a.png',
  size: 3,
  storage_path: null,
  content_type: 'image/png',
  upload_time: '2026-01-01T00:00:00Z',
  uploader_id: 1,
  openai_web_info: { file_id: 'file-a', use_case: 'multimodal', upload_url: null, download_url: 'x' },
  extra_info: null,
};

/** Images "load" at once with a fixed size (jsdom decodes nothing). */
class FakeImage {
  naturalWidth = 4;
  naturalHeight = 5;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  set src(_: string) {
    queueMicrotask(() => this.onload?.());
  }
}

const permissions = { attachments: true, images: true };
const png = (name: string) => new File(['abc'], name, { type: 'image/png' });

function transport(): UploadTransport {
  return {
    start: vi.fn().mockResolvedValue({
      strategy: 'browser_upload_only',
      file_max_size: 100,
      upload_file_info: { ...done, openai_web_info: { ...done.openai_web_info!, upload_url: 'https://b/x' } },
    }),
    putBlob: vi.fn().mockResolvedValue(undefined),
    complete: vi.fn().mockResolvedValue(done),
    uploadLocal: vi.fn(),
    relay: vi.fn(),
  };
}

const revokeObjectURL = vi.fn();

beforeEach(() => {
  vi.stubGlobal('Image', FakeImage);
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = revokeObjectURL;
});
afterEach(() => vi.unstubAllGlobals());

describe('useUploads', () => {
  it('uploads each admitted file, refuses a 5th image, and reads image sizes', async () => {
    const t = transport();
    const { result } = renderHook(() => useUploads(permissions, t));
    let rejected: ReturnType<typeof result.current.add> = [];
    act(() => {
      rejected = result.current.add(['1', '2', '3', '4', '5'].map((n) => png(`${n}.png`)));
    });
    expect(rejected.map((r) => [r.file.name, r.problem.key])).toEqual([
      ['5.png', 'validation.tooManyImages'],
    ]);
    expect(result.current.items).toHaveLength(4);
    expect(result.current.uploading).toBe(true);
    await waitFor(() => expect(result.current.items.every((i) => i.status === 'done')).toBe(true));
    expect(result.current.items[0]).toMatchObject({
      width: 4,
      height: 5,
      progress: 1,
      previewUrl: 'blob:preview',
    });
    expect(t.start).toHaveBeenCalledWith(
      expect.objectContaining({ width: 4, height: 5, use_case: 'multimodal' }),
    );
    // A full list still refuses images.
    act(() => {
      rejected = result.current.add([png('6.png')]);
    });
    expect(rejected).toHaveLength(1);
  });

  it('shows a failure next to the file, retries it, and removes files (freeing the preview)', async () => {
    const t = transport();
    vi.mocked(t.complete).mockRejectedValueOnce(new Error('boom'));
    const { result } = renderHook(() => useUploads(permissions, t));
    act(() => void result.current.add([png('a.png')]));
    await waitFor(() => expect(result.current.failed).toBe(true));
    expect(result.current.items[0]?.problem).toEqual({ key: 'upload.failed' });
    act(() => result.current.retry(result.current.items[0]!.key));
    await waitFor(() => expect(result.current.items[0]?.status).toBe('done'));
    act(() => result.current.remove(result.current.items[0]!.key));
    expect(result.current.items).toEqual([]);
    expect(revokeObjectURL).toHaveBeenCalledWith('blob:preview');
  });

  it('detaches the list for a question and restores it when the question is withdrawn', async () => {
    const { result } = renderHook(() => useUploads(permissions, transport()));
    act(() => void result.current.add([png('a.png')]));
    await waitFor(() => expect(result.current.items[0]?.status).toBe('done'));
    let taken: ReturnType<typeof result.current.detach> = [];
    act(() => {
      taken = result.current.detach();
    });
    expect(result.current.items).toEqual([]);
    act(() => result.current.restore(taken));
    expect(result.current.items).toHaveLength(1);
  });
});
