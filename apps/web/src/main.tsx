import './styles/mantine-shell.css';
import './styles/app.css';
import './i18n';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { startLikelyLoads } from './app/route-loads';
import { queryClient } from './lib/query-client';

const root = document.getElementById('root');
if (root) {
  startLikelyLoads(queryClient, new URL(window.location.href));
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
