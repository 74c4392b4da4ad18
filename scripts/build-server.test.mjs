import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { keepSourceOneByte } from './build-server.mjs';

const dirs = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the server bundle', () => {
  it('holds no character beyond Latin-1 (V8 keeps such a source at two bytes a character), and means the same', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cc-build-'));
    dirs.push(dir);
    const file = path.join(dir, 'bundle.js');
    const source = [
      '// A comment — with a dash and a quote ’, as esbuild keeps them.',
      '/** A block comment: “quoted” ✓ */',
      "export const text = '«é» — “x” 😀';",
      'export const tpl = `— ${text.length}`;',
      'export const quotes = /^["“”]+|["“”.]+$/g;',
      'export const astral = /😀/u;',
      'export const ŝtato = 1;',
      '',
    ].join('\n');
    writeFileSync(file, source);
    keepSourceOneByte(file);
    const written = readFileSync(file, 'utf8');
    expect(written).not.toMatch(/[\u0100-\uffff]/);
    expect(written).toContain('«é»');
    const bundle = await import(pathToFileURL(file).href);
    expect(bundle.text).toBe('«é» — “x” 😀');
    expect(bundle.tpl).toBe(`— ${bundle.text.length}`);
    expect('“Paris”.'.replace(bundle.quotes, '')).toBe('Paris');
    expect(bundle.astral.test('a 😀 b')).toBe(true);
    expect(bundle.ŝtato).toBe(1);
  });
});
