import { Readable } from 'node:stream';
import { withoutInvisible } from '@cc/contracts';
import type { FastifyReply } from 'fastify';

/**
 * `attachment` (or `inline`) with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 5987). Control and
 * invisible format characters are dropped first: a right-to-left override would show "invoice<RLO>fdp.exe" as
 * "invoiceexe.pdf" in the browser's download bar.
 */
export function contentDisposition(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const fileName = withoutInvisible(name) || 'file';
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'file';
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

export interface Download {
  body: Readable | AsyncIterable<Uint8Array>;
  contentType: string;
  size: number | null;
  fileName: string;
}

export interface DownloadOptions {
  /** `inline` for a file a page shows (images); default `attachment`. */
  disposition?: 'attachment' | 'inline';
  /** Default `private, no-store`; never a value that lets shared caches keep the bytes. */
  cacheControl?: `private, ${string}`;
}

/**
 * Sends file bytes: by default as an attachment with its original name, never sniffed, never cached by shared
 * caches. The type is one the caller vetted (images as themselves, everything else as opaque bytes).
 */
export function sendDownload(reply: FastifyReply, d: Download, options: DownloadOptions = {}): FastifyReply {
  reply
    .header('content-type', d.contentType)
    .header('content-disposition', contentDisposition(d.fileName, options.disposition))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', options.cacheControl ?? 'private, no-store');
  if (d.size !== null) reply.header('content-length', String(d.size));
  return reply.send(d.body instanceof Readable ? d.body : Readable.from(d.body));
}
