import { mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rotatingFile } from '../log/rotating-file';
import { tailFile } from './log.service';

const dir = mkdtempSync(path.join(tmpdir(), 'cc-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tailFile', () => {
  it('returns the last lines in order, skips excluded ones, and handles a missing file', async () => {
    const file = path.join(dir, 'small.log');
    writeFileSync(file, ['one', 'two ignore-me', 'three', 'four', 'fünf ✓', ''].join('\n'));
    expect((await tailFile(file, 3)).lines).toEqual(['three', 'four', 'fünf ✓']);
    expect((await tailFile(file, 10)).lines).toEqual(['one', 'two ignore-me', 'three', 'four', 'fünf ✓']);
    expect((await tailFile(file, 10, ['ignore'])).lines).toEqual(['one', 'three', 'four', 'fünf ✓']);
    expect((await tailFile(path.join(dir, 'missing.log'), 5)).lines).toEqual([]);
  });

  it('keeps lines whole across chunk boundaries (multi-byte text)', async () => {
    const file = path.join(dir, 'chunks.log');
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} ${'字'.repeat(i % 97)} end`);
    writeFileSync(file, lines.join('\n') + '\n');
    expect((await tailFile(file, 2500)).lines).toEqual(lines.slice(-2500));
  });

  it('reads only the tail of a 50 MB file', async () => {
    const file = path.join(dir, 'big.log');
    const fd = openSync(file, 'w');
    const line = (i: number) => `{"level":30,"time":${i},"msg":"line ${i} ${'x'.repeat(80)}"}\n`;
    const total = 500_000;
    let block = '';
    for (let i = 0; i < total; i++) {
      block += line(i);
      if (block.length > 1 << 20) {
        writeSync(fd, block);
        block = '';
      }
    }
    writeSync(fd, block);
    closeSync(fd);
    const started = performance.now();
    const r = await tailFile(file, 100);
    const ms = performance.now() - started;
    expect(r.lines).toHaveLength(100);
    expect(r.lines[0]).toBe(line(total - 100).trimEnd());
    expect(r.lines[99]).toBe(line(total - 1).trimEnd());
    // Only a chunk or two of the ~50 MB were read.
    expect(r.bytesRead).toBeLessThanOrEqual(128 * 1024);
    console.info(
      `tail of a ${(total * line(0).length) / 1e6} MB file: ${ms.toFixed(1)} ms, ${r.bytesRead} bytes read`,
    );
  });

  it('picks up lines from the rotated file through the rotating writer', async () => {
    const file = path.join(dir, 'rot', 'server.log');
    const out = rotatingFile({ file, maxBytes: 1024, backupCount: 2 });
    for (let i = 0; i < 40; i++) out.write(`entry ${String(i).padStart(3, '0')} ${'y'.repeat(40)}\n`);
    out.end();
    const current = (await tailFile(file, 1000)).lines;
    const rotated = (await tailFile(`${file}.1`, 1000)).lines;
    expect(current.length).toBeGreaterThan(0);
    expect(rotated.length).toBeGreaterThan(0);
    expect(rotated.at(-1)! < current[0]!).toBe(true);
  });
});
