import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { putToSignedUrl, isAbortError } from '../../../lib/upload';
import { completeUpload } from '../api/complete-upload';
import { startUpload } from '../api/start-upload';
import { uploadLocalFile } from '../api/upload-local-file';
import { uploadToOpenaiWeb } from '../api/upload-to-openai-web';
import { admitFiles, describeUploadError, runUpload } from '../lib/uploads';
import type {
  UploadItem,
  UploadLimits,
  UploadPermissions,
  UploadProblem,
  UploadTransport,
} from '../lib/uploads';

const httpTransport: UploadTransport = {
  start: startUpload,
  putBlob: putToSignedUrl,
  complete: completeUpload,
  uploadLocal: uploadLocalFile,
  relay: uploadToOpenaiWeb,
};

/** Natural size of an image file, or nulls when the browser cannot decode it (in time). */
function readImageSize(
  url: string,
  timeoutMs = 5000,
): Promise<{ width: number | null; height: number | null }> {
  return new Promise((resolve) => {
    const image = new Image();
    const timer = setTimeout(() => resolve({ width: null, height: null }), timeoutMs);
    image.onload = () => {
      clearTimeout(timer);
      resolve({ width: image.naturalWidth || null, height: image.naturalHeight || null });
    };
    image.onerror = () => {
      clearTimeout(timer);
      resolve({ width: null, height: null });
    };
    image.src = url;
  });
}

let keyCounter = 0;

export interface UseUploadsResult {
  items: UploadItem[];
  /** Adds and starts uploading files; returns the refused ones with the reason. */
  add: (files: File[]) => { file: File; problem: UploadProblem }[];
  remove: (key: string) => void;
  retry: (key: string) => void;
  /** Takes the list away for a question (its previews stay alive until {@link release} or unmount). */
  detach: () => UploadItem[];
  /** Puts detached items back (the question was withdrawn). */
  restore: (items: UploadItem[]) => void;
  /** Frees the previews of items that are no longer needed. */
  release: (items: UploadItem[]) => void;
  uploading: boolean;
  failed: boolean;
}

/**
 * The files attached to the next question: each uploads at once (with progress) and can be removed (cancelling
 * its upload) or retried. The 4-image rule and the known size limit are checked before anything is sent.
 */
export function useUploads(
  permissions: UploadPermissions,
  transport: UploadTransport = httpTransport,
): UseUploadsResult {
  const [items, setItems] = useState<UploadItem[]>([]);
  // The list as the callbacks last left it: they update it at once (several calls in one event see each other's
  // changes) and every commit brings it back in line with the state.
  const itemsRef = useRef(items);
  useLayoutEffect(() => {
    itemsRef.current = items;
  }, [items]);
  const limits = useRef<UploadLimits | null>(null);
  const controllers = useRef(new Map<string, AbortController>());
  const previews = useRef(new Set<string>());

  const update = useCallback((key: string, patch: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.key === key ? { ...item, ...patch } : item)));
  }, []);

  const start = useCallback(
    (item: UploadItem) => {
      controllers.current.get(item.key)?.abort();
      const controller = new AbortController();
      controllers.current.set(item.key, controller);
      const run = async () => {
        let sized = item;
        if (item.kind === 'image' && item.previewUrl && item.width === null) {
          sized = { ...item, ...(await readImageSize(item.previewUrl)) };
          update(item.key, { width: sized.width, height: sized.height });
        }
        const info = await runUpload(sized, {
          transport,
          signal: controller.signal,
          onLimits: (next) => {
            limits.current = next;
          },
          onProgress: (progress) => {
            if (!controller.signal.aborted) update(item.key, { progress });
          },
        });
        if (!controller.signal.aborted) update(item.key, { status: 'done', progress: 1, info });
      };
      run()
        .catch((error: unknown) => {
          if (controller.signal.aborted || isAbortError(error)) return;
          update(item.key, { status: 'error', problem: describeUploadError(error) });
        })
        .finally(() => {
          if (controllers.current.get(item.key) === controller) controllers.current.delete(item.key);
        });
    },
    [transport, update],
  );

  const add = useCallback(
    (files: File[]) => {
      const { accepted, rejected } = admitFiles(itemsRef.current, files, permissions, limits.current);
      const created = accepted.map(({ file, kind, useCase }): UploadItem => {
        keyCounter += 1;
        const previewUrl = kind === 'image' ? URL.createObjectURL(file) : null;
        if (previewUrl) previews.current.add(previewUrl);
        return {
          key: `upload_${keyCounter}`,
          file,
          kind,
          useCase,
          width: null,
          height: null,
          previewUrl,
          status: 'uploading',
          progress: 0,
          problem: null,
          info: null,
        };
      });
      if (created.length) {
        itemsRef.current = [...itemsRef.current, ...created];
        setItems(itemsRef.current);
        created.forEach(start);
      }
      return rejected;
    },
    [permissions, start],
  );

  const release = useCallback((released: UploadItem[]) => {
    for (const item of released) {
      if (!item.previewUrl) continue;
      URL.revokeObjectURL(item.previewUrl);
      previews.current.delete(item.previewUrl);
    }
  }, []);

  const remove = useCallback(
    (key: string) => {
      controllers.current.get(key)?.abort();
      controllers.current.delete(key);
      const removed = itemsRef.current.filter((item) => item.key === key);
      itemsRef.current = itemsRef.current.filter((item) => item.key !== key);
      setItems(itemsRef.current);
      release(removed);
    },
    [release],
  );

  const retry = useCallback(
    (key: string) => {
      const item = itemsRef.current.find((i) => i.key === key);
      if (!item || item.status !== 'error') return;
      const again = { ...item, status: 'uploading' as const, progress: 0, problem: null, info: null };
      update(key, again);
      start(again);
    },
    [start, update],
  );

  const detach = useCallback(() => {
    const taken = itemsRef.current;
    itemsRef.current = [];
    setItems([]);
    return taken;
  }, []);

  const restore = useCallback((restored: UploadItem[]) => {
    const keys = new Set(itemsRef.current.map((i) => i.key));
    itemsRef.current = [...restored.filter((i) => !keys.has(i.key)), ...itemsRef.current];
    setItems(itemsRef.current);
  }, []);

  useEffect(() => {
    const running = controllers.current;
    const urls = previews.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      for (const url of urls) URL.revokeObjectURL(url);
      urls.clear();
    };
  }, []);

  return {
    items,
    add,
    remove,
    retry,
    detach,
    restore,
    release,
    uploading: items.some((i) => i.status === 'uploading'),
    failed: items.some((i) => i.status === 'error'),
  };
}
