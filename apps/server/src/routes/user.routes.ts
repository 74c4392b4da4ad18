import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  MyUsage,
  UserIdParams,
  UserListQuery,
  UserRead,
  UserReadAdmin,
  UserRef,
  UserRefsQuery,
  UserSettingUpdate,
  UserUpdateAdmin,
  UserUpdateSelf,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { currentUser } from '../http/auth';
import { ok } from '../http/envelope';
import { isSuperuser } from '../policies/user.policy';
import { presentUser } from '../presenters/user.presenter';
import { shownChatStatus, shownChatStatuses } from '../services/status.service';
import {
  deleteUser,
  getUser,
  listUserRefs,
  listUsersPage,
  resetChatStatus,
  updateUser,
  updateUserSettings,
} from '../services/user.service';
import { myUsage } from '../services/usage.service';

const SelfRead = z.union([UserReadAdmin, UserRead]);

export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['user'];

  r.get(
    '/api/user/me',
    { config: { access: 'user' }, schema: { tags, response: { 200: envelope(SelfRead) } } },
    async (request) => {
      const { user } = currentUser(request);
      const loaded = await getUser(ctx, user.id);
      const chatStatus = await shownChatStatus(ctx, user.id);
      return ok(
        presentUser(loaded, {
          admin: isSuperuser(user),
          effective: ctx.upstream.effectiveConfig(),
          chatStatus,
        }),
      );
    },
  );

  r.get(
    '/api/user/me/usage',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Own asks and tokens this calendar month (UTC) and the asks left per source and model',
        response: { 200: envelope(MyUsage) },
      },
    },
    async (request) => ok(await myUsage(ctx, currentUser(request).user.id)),
  );

  r.patch(
    '/api/user/me',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Change own nickname, email, avatar or password (nothing else)',
        body: UserUpdateSelf,
        response: { 200: envelope(SelfRead) },
      },
    },
    async (request) => {
      const { user, session } = currentUser(request);
      const loaded = await updateUser(ctx, {
        userId: user.id,
        patch: request.body,
        actingSessionId: session.id,
        actor: auditActor(request),
        vouched: isSuperuser(user),
      });
      return ok(presentUser(loaded, { admin: isSuperuser(user), effective: ctx.upstream.effectiveConfig() }));
    },
  );

  r.get(
    '/api/user',
    {
      config: { access: 'superuser' },
      schema: { tags, querystring: UserListQuery, response: { 200: envelope(z.array(UserReadAdmin)) } },
    },
    async (request, reply) => {
      const [page, statuses] = await Promise.all([listUsersPage(ctx, request.query), shownChatStatuses(ctx)]);
      reply.header('x-total-count', String(page.total));
      return ok(
        page.users.map(
          (u) =>
            presentUser(u, {
              admin: true,
              chatStatus: statuses(u.row.id),
              billing: ctx.runtime.current().billing,
            }) as UserReadAdmin,
        ),
      );
    },
  );

  r.get(
    '/api/user/refs',
    {
      config: { access: 'superuser' },
      schema: { tags, querystring: UserRefsQuery, response: { 200: envelope(z.array(UserRef)) } },
    },
    async (request) => ok(await listUserRefs(ctx, request.query)),
  );

  r.get(
    '/api/user/:user_id',
    {
      config: { access: 'superuser' },
      schema: { tags, params: UserIdParams, response: { 200: envelope(UserReadAdmin) } },
    },
    async (request) =>
      ok(
        presentUser(await getUser(ctx, request.params.user_id), {
          admin: true,
          billing: ctx.runtime.current().billing,
        }) as UserReadAdmin,
      ),
  );

  r.patch(
    '/api/user/:user_id',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        summary:
          'Update a user; refuses demoting or deactivating yourself, or the last active superuser (409)',
        params: UserIdParams,
        body: UserUpdateAdmin,
        response: { 200: envelope(UserReadAdmin) },
      },
    },
    async (request) => {
      const { session, user } = currentUser(request);
      const loaded = await updateUser(ctx, {
        userId: request.params.user_id,
        patch: request.body,
        actingSessionId: session.id,
        actorId: user.id,
        actor: auditActor(request),
        vouched: true,
      });
      return ok(presentUser(loaded, { admin: true }) as UserReadAdmin);
    },
  );

  r.delete(
    '/api/user/:user_id',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        summary: 'Delete a user; refuses deleting yourself or the last active superuser (409)',
        params: UserIdParams,
        response: { 200: envelope(z.null()) },
      },
    },
    async (request) => {
      await deleteUser(ctx, request.params.user_id, currentUser(request).user.id, auditActor(request));
      return ok(null);
    },
  );

  r.post(
    '/api/user/:user_id/reset-chat-status',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        summary:
          'Free a user whose chat status is stuck (asking/queueing → idling); quotas are left as they are',
        params: UserIdParams,
        response: { 200: envelope(UserReadAdmin) },
      },
    },
    async (request) =>
      ok(
        presentUser(await resetChatStatus(ctx, request.params.user_id, auditActor(request)), {
          admin: true,
        }) as UserReadAdmin,
      ),
  );

  r.patch(
    '/api/user/:user_id/setting',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        summary: "Replace a user's per-source settings, counters and credits",
        params: UserIdParams,
        body: UserSettingUpdate,
        response: { 200: envelope(UserReadAdmin) },
      },
    },
    async (request) =>
      ok(
        presentUser(
          await updateUserSettings(ctx, request.params.user_id, request.body, auditActor(request)),
          {
            admin: true,
          },
        ) as UserReadAdmin,
      ),
  );
}
