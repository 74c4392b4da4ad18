import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuthOptions,
  InviteAccept,
  InviteCreate,
  InviteCreated,
  InviteIdParams,
  InviteRead,
  InviteStatus,
  InviteTokenParams,
  SESSION_COOKIE,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { ok } from '../http/envelope';
import {
  acceptInvite,
  createInvite,
  inviteStatus,
  listInvites,
  revokeInvite,
} from '../services/invite.service';
import {
  SSO_CALLBACK_PATH,
  SSO_START_PATH,
  SSO_STATE_COOKIE,
  SSO_STATE_SECONDS,
  ssoButton,
} from '../services/sso-options';
import { SsoError, finishSso, startSso } from '../services/sso.service';

/** Cookie attributes as for the session cookie: HttpOnly, SameSite=Lax, Secure on HTTPS. */
function cookieOptions(request: FastifyRequest, path: string, maxAge?: number) {
  return {
    path,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    ...(maxAge === undefined ? {} : { maxAge }),
  };
}

/** The callback URL as the browser reaches this server (its own origin; behind a trusted proxy, the forwarded one). */
const callbackUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}${SSO_CALLBACK_PATH}`;

/** Where a failed sign-in lands: the login page, which names the reason. */
const failedPath = (reason: string) => `/login?sso_error=${encodeURIComponent(reason)}`;

/** Sign-in for teams: single sign-on (OpenID Connect) and invite links. */
export function signInRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['auth'];

  r.get(
    '/api/auth/options',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'What the login page offers besides the password',
        response: { 200: envelope(AuthOptions) },
      },
    },
    async () => ok({ sso: ssoButton(ctx) }),
  );

  r.get(
    SSO_START_PATH,
    {
      config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'Starts single sign-on: redirects to the provider (a browser navigation)',
        querystring: z.object({ invite: z.string().min(1).max(128).optional() }),
      },
    },
    async (request, reply) => {
      try {
        const started = await startSso(ctx, {
          redirectUri: callbackUrl(request),
          invite: request.query.invite ?? null,
        });
        reply.setCookie(
          SSO_STATE_COOKIE,
          started.stateCookie,
          cookieOptions(request, SSO_CALLBACK_PATH, SSO_STATE_SECONDS),
        );
        return reply.redirect(started.url, 302);
      } catch (e) {
        if (!(e instanceof SsoError)) throw e;
        request.log.warn({ err: e.detail }, 'single sign-on could not start');
        return reply.redirect(failedPath(e.reason), 302);
      }
    },
  );

  r.get(
    SSO_CALLBACK_PATH,
    {
      config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: { tags, summary: "The provider's answer: opens a session and goes to the chat" },
    },
    async (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      reply.clearCookie(SSO_STATE_COOKIE, cookieOptions(request, SSO_CALLBACK_PATH));
      try {
        const result = await finishSso(ctx, {
          query,
          stateCookie: request.cookies[SSO_STATE_COOKIE],
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
        reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(request, '/', result.maxAgeSeconds));
        // The web app marks the login on its side (its login flag), then goes on to the chat.
        return reply.redirect('/login?sso=done', 302);
      } catch (e) {
        if (!(e instanceof SsoError)) throw e;
        request.log.warn({ err: e.detail }, `single sign-on ${e.reason}`);
        return reply.redirect(failedPath(e.reason), 302);
      }
    },
  );

  r.get(
    '/api/system/invites',
    {
      config: { access: 'superuser' },
      schema: { tags: ['system'], response: { 200: envelope(z.array(InviteRead)) } },
    },
    async () => ok(await listInvites(ctx)),
  );

  r.post(
    '/api/system/invites',
    {
      config: { access: 'superuser' },
      schema: { tags: ['system'], body: InviteCreate, response: { 201: envelope(InviteCreated) } },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(await createInvite(ctx, { invite: request.body, actor: auditActor(request) }), 201);
    },
  );

  r.delete(
    '/api/system/invites/:invite_id',
    {
      config: { access: 'superuser' },
      schema: { tags: ['system'], params: InviteIdParams, response: { 200: envelope(InviteRead) } },
    },
    async (request) => ok(await revokeInvite(ctx, request.params.invite_id, auditActor(request))),
  );

  r.get(
    '/api/invite/:token',
    {
      config: { access: 'public', rateLimit: { max: 60, timeWindow: '1 minute' } },
      schema: { tags, params: InviteTokenParams, response: { 200: envelope(InviteStatus) } },
    },
    async (request) => ok(await inviteStatus(ctx, request.params.token)),
  );

  r.post(
    '/api/invite/:token',
    {
      config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'Creates an account through an invite link (then log in with it)',
        params: InviteTokenParams,
        body: InviteAccept,
        response: { 201: envelope(z.null()) },
      },
    },
    async (request, reply) => {
      await acceptInvite(ctx, { token: request.params.token, account: request.body, ip: request.ip });
      reply.code(201);
      return ok(null, 201);
    },
  );
}
