import { deflateSync } from 'node:zlib';
import { prng } from './util';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

const cache = new Map<string, Buffer>();

/**
 * A real PNG (RGB, horizontal gradient between two seed-derived colours). Every row is identical, so the
 * "Up" filter makes it compress to a few kilobytes even at 1024×1024. Results are cached.
 */
export function gradientPng(seed: number, width: number, height: number): Buffer {
  const key = `${seed}:${width}x${height}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const rand = prng(seed);
  const from = [rand() * 255, rand() * 255, rand() * 255];
  const to = [rand() * 255, rand() * 255, rand() * 255];
  const rowLength = 1 + width * 3;
  const raw = Buffer.alloc(rowLength * height); // rows after the first stay zero: filter 2 (Up), no change
  raw[0] = 0;
  for (let x = 0; x < width; x++) {
    const t = width > 1 ? x / (width - 1) : 0;
    for (let c = 0; c < 3; c++) {
      raw[1 + x * 3 + c] = Math.round((from[c] ?? 0) * (1 - t) + (to[c] ?? 0) * t);
    }
  }
  for (let y = 1; y < height; y++) raw[y * rowLength] = 2;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  cache.set(key, png);
  return png;
}
