import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { Authenticated } from '../services/auth.service';
import { authenticate } from '../services/auth.service';
import { fail } from '../errors/app-error';

/**
 * Who may call a route. Declared on every route as `config: { access }`; undeclared /api routes need a user.
 * `metrics`: a superuser session or the configured `auth.metrics_token` as a bearer token (a scraper has no session).
 */
export type Access = 'public' | 'user' | 'superuser' | 'metrics';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The logged-in user and session, when the request carried a live session. */
    auth: Authenticated | null;
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The local dev servers (this server, the Vite dev server): trusted only when NODE_ENV is development. */
export const DEVELOPMENT_ORIGINS = [
  'http://localhost:8000',
  'http://127.0.0.1:8000',
  'http://localhost:5173',
  'http://127.0.0.1:5173',
] as const;

/**
 * The page's own origin (the request's host), one of the configured origins, or in development a dev server's.
 * Absent Origin (non-browser client) passes. The Origin must be as a browser writes it (no user part, no path, a
 * lower-case scheme), and a plain-http page may not act on a site reached over https (a page injected into plain HTTP
 * on the same host); the other way round is a TLS-terminating proxy not listed in `http.trust_proxy`, and passes.
 */
export function isOriginAllowed(
  ctx: AppContext,
  request: { headers: { origin?: string; host?: string }; protocol: string },
): boolean {
  const { origin, host } = request.headers;
  if (!origin) return true;
  if (ctx.config.http.cors_allow_origins.includes(origin)) return true;
  if (process.env.NODE_ENV === 'development' && (DEVELOPMENT_ORIGINS as readonly string[]).includes(origin))
    return true;
  try {
    const page = new URL(origin);
    if (page.origin !== origin || page.host !== host) return false;
    return !(request.protocol === 'https' && page.protocol === 'http:');
  } catch {
    return false;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <token>` carries the configured metrics token (compared in constant time). */
export function hasMetricsToken(ctx: AppContext, authorization: string | undefined): boolean {
  const expected = ctx.config.auth.metrics_token;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!expected || !match) return false;
  // Digests have one length whatever was sent, so the comparison takes the same time for any token.
  return timingSafeEqual(digest(match[1]!), digest(expected));
}

/** The authenticated user of a request on a route that required one. */
export function currentUser(request: FastifyRequest): Authenticated {
  if (!request.auth) throw fail.notLoggedIn();
  return request.auth;
}

/**
 * Authorization runs first (onRequest, before the body is read or validated): anonymous callers of a protected
 * route get 10401 whatever they sent (a wrong metrics token too), non-superusers of an admin route 10403.
 * State-changing requests from a foreign Origin are refused.
 */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    if (STATE_CHANGING.has(request.method) && !isOriginAllowed(ctx, request)) {
      throw fail.originNotAllowed(request.headers.origin);
    }
    // An unmatched path has no route: it gets the 404 envelope, whoever asks.
    // Undeclared /api routes need a user; the web app's static files are public.
    const route = request.routeOptions.url;
    const access: Access =
      route === undefined
        ? 'public'
        : (request.routeOptions.config.access ?? (route.startsWith('/api/') ? 'user' : 'public'));
    const token = request.cookies[SESSION_COOKIE];
    if (token) request.auth = await authenticate(ctx, token, { markActive: access !== 'public' });
    if (access === 'public') return;
    if (access === 'metrics' && hasMetricsToken(ctx, request.headers.authorization)) return;
    if (!request.auth) throw token ? fail.loginExpired() : fail.notLoggedIn();
    if (access !== 'user' && request.auth.user.is_superuser !== 1) throw fail.accessDenied();
  });
}
