import './styles/mantine-shell.css';
import './styles/app.css';
import './i18n';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { LoginApp } from './app/login-app';

/** /login opened directly: a page of its own, without the router, the query cache or the app's other code. */
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <LoginApp />
    </StrictMode>,
  );
}
