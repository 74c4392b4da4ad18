import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  MachineCreate,
  MachineIdParams,
  MachineInfo,
  MachineQuery,
  MachineRead,
  MachineUpdate,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { ok } from '../http/envelope';
import { presentMachine } from '../presenters/machine.presenter';
import { resultText } from '../tasks/runner';
import {
  addServer,
  deleteServer,
  listServers,
  runServerHealthChecks,
  serverInfo,
  updateServer,
} from '../services/server.service';

/** Upstream servers (admin → machines). Every route is superuser-only. */
export function machineRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['servers'];
  const config = { access: 'superuser' as const };

  r.get(
    '/api/system/getAllMachine',
    { config, schema: { tags, response: { 200: envelope(z.array(MachineRead)) } } },
    async () => ok((await listServers(ctx)).map(presentMachine)),
  );

  r.get(
    '/api/system/queryMachine',
    {
      config,
      schema: { tags, querystring: MachineQuery, response: { 200: envelope(z.array(MachineRead)) } },
    },
    async (request) => ok((await listServers(ctx, request.query)).map(presentMachine)),
  );

  r.get(
    '/api/system/queryMachineInfo',
    {
      config,
      schema: {
        tags,
        querystring: MachineQuery.pick({ id: true }),
        response: { 200: envelope(z.array(MachineInfo)) },
      },
    },
    async (request) => ok(await serverInfo(ctx, request.query.id)),
  );

  r.post(
    '/api/system/addMachine',
    { config, schema: { tags, body: MachineCreate, response: { 201: envelope(MachineRead) } } },
    async (request, reply) =>
      reply
        .status(201)
        .send(ok(presentMachine(await addServer(ctx, request.body, auditActor(request))), 201)),
  );

  r.post(
    '/api/system/updateMachine',
    { config, schema: { tags, body: MachineUpdate, response: { 200: envelope(MachineRead) } } },
    async (request) => ok(presentMachine(await updateServer(ctx, request.body, auditActor(request)))),
  );

  r.delete(
    '/api/system/delMachine/:id',
    { config, schema: { tags, params: MachineIdParams, response: { 200: envelope(z.null()) } } },
    async (request) => {
      await deleteServer(ctx, request.params.id, auditActor(request));
      return ok(null);
    },
  );

  r.post(
    '/api/system/checkMachines',
    { config, schema: { tags, summary: 'Probe every server now', response: { 200: envelope(z.string()) } } },
    async () => ok(resultText(await runServerHealthChecks(ctx))),
  );
}
