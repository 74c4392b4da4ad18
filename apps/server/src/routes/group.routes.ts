import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GroupIdParams, UserGroupRead, UserGroupWrite, envelope } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { ok } from '../http/envelope';
import { presentGroup } from '../presenters/group.presenter';
import { createGroup, deleteGroup, listGroups, updateGroup } from '../services/group.service';

/** User groups: settings templates a user may belong to (superuser only). */
export function groupRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['group'];
  const access = { access: 'superuser' as const };

  r.get(
    '/api/system/groups',
    { config: access, schema: { tags, response: { 200: envelope(z.array(UserGroupRead)) } } },
    async () => ok((await listGroups(ctx)).map(presentGroup)),
  );

  r.post(
    '/api/system/groups',
    {
      config: access,
      schema: {
        tags,
        summary: 'Create a group; a taken name → 409',
        body: UserGroupWrite,
        response: { 200: envelope(UserGroupRead) },
      },
    },
    async (request) => ok(presentGroup(await createGroup(ctx, request.body, auditActor(request)))),
  );

  r.put(
    '/api/system/groups/:group_id',
    {
      config: access,
      schema: {
        tags,
        summary: "Save a group: the fields it changes are written into every member's settings at once",
        params: GroupIdParams,
        body: UserGroupWrite,
        response: { 200: envelope(UserGroupRead) },
      },
    },
    async (request) =>
      ok(presentGroup(await updateGroup(ctx, request.params.group_id, request.body, auditActor(request)))),
  );

  r.delete(
    '/api/system/groups/:group_id',
    {
      config: access,
      schema: {
        tags,
        summary: 'Delete a group; its members leave it and get their own settings back',
        params: GroupIdParams,
        response: { 200: envelope(z.null()) },
      },
    },
    async (request) => {
      await deleteGroup(ctx, request.params.group_id, auditActor(request));
      return ok(null);
    },
  );
}
