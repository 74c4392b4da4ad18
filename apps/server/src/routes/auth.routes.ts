import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LoginForm, SESSION_COOKIE, UserCreate, UserReadAdmin, envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { currentUser } from '../http/auth';
import { ok } from '../http/envelope';
import { presentUser } from '../presenters/user.presenter';
import { login, logout } from '../services/auth.service';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_S, DEVICE_COOKIE_PATH } from '../services/device-trust';
import { createUser } from '../services/user.service';

/** Multipart login forms become a plain object before validation (urlencoded ones already are). */
async function multipartToObject(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const fields: Record<string, string> = {};
  for await (const part of request.parts({ limits: { fileSize: 0, files: 0, fields: 16 } })) {
    if (part.type === 'field' && typeof part.value === 'string') fields[part.fieldname] = part.value;
  }
  request.body = fields;
}

/**
 * The session cookie's attributes, the same when it is set and when it is cleared: HttpOnly, SameSite=Lax, and
 * Secure whenever the request is HTTPS (TLS to this server, or X-Forwarded-Proto from a trusted proxy).
 */
function cookieOptions(request: FastifyRequest, maxAge?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    ...(maxAge === undefined ? {} : { maxAge }),
  };
}

export function authRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/auth/login',
    {
      config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
      preValidation: multipartToObject,
      schema: {
        tags: ['auth'],
        summary: 'Log in with username and password (form); sets the HttpOnly session cookie',
        consumes: ['multipart/form-data', 'application/x-www-form-urlencoded'],
        body: LoginForm,
        response: { 200: envelope(z.null()) },
      },
    },
    async (request, reply) => {
      const result = await login(ctx, {
        username: request.body.username,
        password: request.body.password,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
        device: request.cookies[DEVICE_COOKIE],
      });
      reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(request, result.maxAgeSeconds));
      reply.setCookie(DEVICE_COOKIE, result.device, {
        ...cookieOptions(request, DEVICE_COOKIE_MAX_AGE_S),
        path: DEVICE_COOKIE_PATH,
        sameSite: 'strict',
      });
      return ok(null);
    },
  );

  r.post(
    '/api/auth/logout',
    { config: { access: 'user' }, schema: { tags: ['auth'], response: { 200: envelope(z.null()) } } },
    async (request, reply) => {
      await logout(ctx, currentUser(request).session.id);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
      return ok(null);
    },
  );

  r.post(
    '/api/auth/register',
    {
      config: { access: 'superuser' },
      schema: {
        tags: ['auth'],
        summary: 'Superuser creates a user (there is no self-signup)',
        body: UserCreate,
        response: { 201: envelope(UserReadAdmin) },
      },
    },
    async (request, reply) => {
      const user = await createUser(ctx, { user: request.body, actor: auditActor(request) });
      return reply.status(201).send(ok(presentUser(user, { admin: true }) as UserReadAdmin, 201));
    },
  );
}
