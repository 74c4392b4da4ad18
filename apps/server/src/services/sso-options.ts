import type { OidcConfig } from '@cc/contracts';
import type { AppContext } from '../app-context';

/** Where the login button leads (a full-page navigation) and where the provider sends the browser back. */
export const SSO_START_PATH = '/api/auth/oidc/start';
export const SSO_CALLBACK_PATH = '/api/auth/oidc/callback';
/** The short-lived cookie that carries state, nonce and PKCE verifier from the start to the callback. */
export const SSO_STATE_COOKIE = 'cc_oidc';
/** How long a started sign-in may take at the provider. */
export const SSO_STATE_SECONDS = 600;

/** The configured provider, when single sign-on is on and complete. */
export function provider(ctx: AppContext): (OidcConfig & { issuer: string; client_id: string }) | null {
  const c = ctx.config.auth.oidc;
  if (!c.enabled || !c.issuer || !c.client_id) return null;
  return { ...c, issuer: c.issuer, client_id: c.client_id };
}

/** The login page's button: its words and where it goes; null when single sign-on is off. */
export function ssoButton(ctx: AppContext): { label: string; start_path: string } | null {
  const p = provider(ctx);
  if (!p) return null;
  return { label: p.button_label ?? new URL(p.issuer).host, start_path: SSO_START_PATH };
}
