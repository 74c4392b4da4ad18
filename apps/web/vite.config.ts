import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** API server the dev and preview servers proxy to (the chat websocket included). */
const apiTarget = process.env.CC_API_TARGET ?? 'http://127.0.0.1:8000';
const proxy = { '/api': { target: apiTarget, ws: true, changeOrigin: false } };

export default defineConfig({
  plugins: [react()],
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
