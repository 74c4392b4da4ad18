import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AssignParams,
  ConversationBulkRequest,
  ConversationBulkResult,
  ConversationHistory,
  ConversationIdParams,
  ConversationSearchHit,
  ConversationSearchQuery,
  ConversationRead,
  CurrentNodeUpdate,
  GenTitleQuery,
  InterpreterDownloadQuery,
  InterpreterInfo,
  ListAllQuery,
  OwnListQuery,
  PinUpdate,
  RenameQuery,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { currentUser } from '../http/auth';
import { sendDownload } from '../http/download';
import { ok } from '../http/envelope';
import { presentConversation } from '../presenters/conversation.presenter';
import {
  assignConversation,
  bulkConversationAction,
  deleteConversation,
  generateTitle,
  getConversationFor,
  getHistory,
  interpreterDownloadContent,
  interpreterDownloadUrl,
  interpreterInfo,
  listConversationsPage,
  listOwnConversations,
  renameConversation,
  setConversationPinned,
  setCurrentNode,
  vanishConversation,
} from '../services/conversation.service';
import { searchConversations } from '../services/search.service';

export function conversationRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['conversation'];
  const params = ConversationIdParams;

  r.get(
    '/api/conv',
    {
      config: { access: 'user' },
      schema: { tags, querystring: OwnListQuery, response: { 200: envelope(z.array(ConversationRead)) } },
    },
    async (request) =>
      ok(
        (await listOwnConversations(ctx, currentUser(request).user.id, request.query)).map(
          presentConversation,
        ),
      ),
  );

  r.put(
    '/api/conv/:conversation_id/pin',
    {
      config: { access: 'user' },
      schema: { tags, params, body: PinUpdate, response: { 200: envelope(ConversationRead) } },
    },
    async (request) => {
      const { user } = currentUser(request);
      const row = await getConversationFor(ctx, user, request.params.conversation_id);
      return ok(presentConversation(await setConversationPinned(ctx, user, row, request.body.pinned)));
    },
  );

  r.get(
    '/api/conv/search',
    {
      config: { access: 'user' },
      schema: {
        tags,
        querystring: ConversationSearchQuery,
        response: { 200: envelope(z.array(ConversationSearchHit)) },
      },
    },
    async (request) => ok(await searchConversations(ctx, currentUser(request).user.id, request.query)),
  );

  r.get(
    '/api/conv/all',
    {
      config: { access: 'superuser' },
      schema: { tags, querystring: ListAllQuery, response: { 200: envelope(z.array(ConversationRead)) } },
    },
    async (request, reply) => {
      const page = await listConversationsPage(ctx, request.query);
      reply.header('x-total-count', String(page.total));
      return ok(page.rows.map((row) => ({ ...presentConversation(row), username: row.username })));
    },
  );

  r.post(
    '/api/conv/bulk',
    {
      config: { access: 'superuser' },
      schema: {
        tags,
        body: ConversationBulkRequest,
        response: { 200: envelope(ConversationBulkResult) },
      },
    },
    async (request) => ok(await bulkConversationAction(ctx, request.body, auditActor(request))),
  );

  r.get(
    '/api/conv/:conversation_id',
    {
      config: { access: 'user' },
      schema: { tags, params, response: { 200: envelope(ConversationHistory) } },
    },
    async (request) =>
      ok(
        await getHistory(
          ctx,
          await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id),
        ),
      ),
  );

  r.patch(
    '/api/conv/:conversation_id',
    {
      config: { access: 'user' },
      schema: { tags, params, querystring: RenameQuery, response: { 200: envelope(ConversationRead) } },
    },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(presentConversation(await renameConversation(ctx, row, request.query.title)));
    },
  );

  r.put(
    '/api/conv/:conversation_id/current-node',
    {
      config: { access: 'user' },
      schema: { tags, params, body: CurrentNodeUpdate, response: { 200: envelope(ConversationRead) } },
    },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(presentConversation(await setCurrentNode(ctx, row, request.body.current_node)));
    },
  );

  r.delete(
    '/api/conv/:conversation_id',
    { config: { access: 'user' }, schema: { tags, params, response: { 200: envelope(z.null()) } } },
    async (request) => {
      await deleteConversation(
        ctx,
        await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id),
        auditActor(request),
      );
      return ok(null);
    },
  );

  r.delete(
    '/api/conv/:conversation_id/vanish',
    { config: { access: 'superuser' }, schema: { tags, params, response: { 200: envelope(z.null()) } } },
    async (request) => {
      await vanishConversation(
        ctx,
        await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id),
        auditActor(request),
      );
      return ok(null);
    },
  );

  r.patch(
    '/api/conv/:conversation_id/assign/:username',
    {
      config: { access: 'superuser' },
      schema: { tags, params: AssignParams, response: { 200: envelope(ConversationRead) } },
    },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(
        presentConversation(await assignConversation(ctx, row, request.params.username, auditActor(request))),
      );
    },
  );

  r.patch(
    '/api/conv/:conversation_id/gen_title',
    {
      config: { access: 'user' },
      schema: { tags, params, querystring: GenTitleQuery, response: { 200: envelope(z.string()) } },
    },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(await generateTitle(ctx, row, request.query.message_id));
    },
  );

  r.get(
    '/api/conv/:conversation_id/interpreter/download-url',
    {
      config: { access: 'user' },
      schema: {
        tags,
        params,
        querystring: InterpreterDownloadQuery,
        response: { 200: envelope(z.string()) },
      },
    },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(await interpreterDownloadUrl(ctx, row, request.query.message_id, request.query.sandbox_path));
    },
  );

  r.get(
    '/api/conv/:conversation_id/interpreter/download',
    { config: { access: 'user' }, schema: { tags, params, querystring: InterpreterDownloadQuery } },
    async (request, reply) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return sendDownload(
        reply,
        await interpreterDownloadContent(ctx, row, request.query.message_id, request.query.sandbox_path),
      );
    },
  );

  r.get(
    '/api/conv/:conversation_id/interpreter',
    { config: { access: 'user' }, schema: { tags, params, response: { 200: envelope(InterpreterInfo) } } },
    async (request) =>
      ok(
        await interpreterInfo(
          ctx,
          await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id),
        ),
      ),
  );
}
