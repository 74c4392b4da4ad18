import type { RawData } from 'ws';

/** A websocket message as text, whatever buffer shape ws delivered it in. */
export function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
