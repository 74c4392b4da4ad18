import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import type { Plugin } from 'vite';

/** API server the dev and preview servers proxy to (the chat websocket included). */
const apiTarget = process.env.CC_API_TARGET ?? 'http://127.0.0.1:8000';
const proxy = { '/api': { target: apiTarget, ws: true, changeOrigin: false } };

/** Text files worth compressing; smaller ones go as they are (the headers would outweigh the saving). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/;
const MIN_COMPRESS_BYTES = 1024;

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside every text file of the build, once, at the best levels: the
 * server sends the copy a browser accepts (fastify-static `preCompressed`) with no compression work per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? walk(file) : [file];
    });
  return {
    name: 'cc-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const data = readFileSync(file);
        if (data.length < MIN_COMPRESS_BYTES) continue;
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(data, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  server: { host: '127.0.0.1', port: 5173, proxy },
  preview: { host: '127.0.0.1', port: 4173, proxy },
  build: {
    outDir: process.env.CC_WEB_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // The markdown engine (KaTeX, highlight.js) is a lazy chunk of its own; the app shell stays below this.
    chunkSizeWarningLimit: 900,
    // /login opened directly is a page of its own (login.html): its first load is the login form alone.
    rollupOptions: { input: { index: 'index.html', login: 'login.html' } },
  },
});
