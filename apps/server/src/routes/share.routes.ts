import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ConversationIdParams,
  ConversationImport,
  ConversationRead,
  ExportQuery,
  IMPORT_MAX_BYTES,
  ShareCreated,
  ShareFileParams,
  ShareIdParams,
  ShareRead,
  ShareTokenParams,
  SharedConversation,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { auditActor } from '../http/audit-actor';
import { currentUser } from '../http/auth';
import { contentDisposition, sendDownload } from '../http/download';
import { ok } from '../http/envelope';
import { getConversationFor, getHistory } from '../services/conversation.service';
import {
  exportAllZip,
  exportFileName,
  historyJson,
  historyMarkdown,
  importConversation,
} from '../services/export.service';
import {
  createShare,
  listOwnShares,
  openSharedFile,
  revokeConversationShares,
  revokeShare,
  viewShare,
} from '../services/share.service';

/** Share links (owner's, admin revocation, the public view) and export / import of conversations. */
export function shareRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['conversation'];
  const params = ConversationIdParams;

  r.get(
    '/api/conv/shares',
    { config: { access: 'user' }, schema: { tags, response: { 200: envelope(z.array(ShareRead)) } } },
    async (request) => ok(await listOwnShares(ctx, currentUser(request).user.id)),
  );

  r.post(
    '/api/conv/:conversation_id/shares',
    { config: { access: 'user' }, schema: { tags, params, response: { 201: envelope(ShareCreated) } } },
    async (request, reply) => {
      const user = currentUser(request).user;
      const row = await getConversationFor(ctx, user, request.params.conversation_id);
      reply.code(201);
      return ok(await createShare(ctx, user, row, auditActor(request)), 201);
    },
  );

  r.delete(
    '/api/conv/:conversation_id/shares',
    { config: { access: 'user' }, schema: { tags, params, response: { 200: envelope(z.number().int()) } } },
    async (request) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      return ok(await revokeConversationShares(ctx, row, auditActor(request)));
    },
  );

  r.delete(
    '/api/conv/shares/:share_id',
    {
      config: { access: 'user' },
      schema: { tags, params: ShareIdParams, response: { 200: envelope(ShareRead) } },
    },
    async (request) =>
      ok(await revokeShare(ctx, currentUser(request).user, request.params.share_id, auditActor(request))),
  );

  r.get(
    '/api/share/:token',
    {
      config: { access: 'public', rateLimit: { max: 60, timeWindow: '1 minute' } },
      schema: { tags, params: ShareTokenParams, response: { 200: envelope(SharedConversation) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store').header('referrer-policy', 'no-referrer');
      return ok(await viewShare(ctx, request.params.token));
    },
  );

  r.get(
    '/api/share/:token/files/:file_id',
    {
      // A page shows several images at once: a larger budget than the view itself, still per address.
      config: { access: 'public', rateLimit: { max: 120, timeWindow: '1 minute' } },
      schema: { tags, params: ShareFileParams },
    },
    async (request, reply) => {
      const file = await openSharedFile(ctx, request.params.token, request.params.file_id);
      reply.header('referrer-policy', 'no-referrer');
      // Images show on the page; anything else is saved. Kept briefly by the visitor's browser only.
      return sendDownload(reply, file, {
        disposition: file.contentType.startsWith('image/') ? 'inline' : 'attachment',
        cacheControl: 'private, max-age=300',
      });
    },
  );

  r.get(
    '/api/conv/:conversation_id/export',
    { config: { access: 'user' }, schema: { tags, params, querystring: ExportQuery } },
    async (request, reply) => {
      const row = await getConversationFor(ctx, currentUser(request).user, request.params.conversation_id);
      const history = await getHistory(ctx, row);
      const markdown = request.query.format === 'md';
      reply
        .header('content-type', markdown ? 'text/markdown; charset=utf-8' : 'application/json; charset=utf-8')
        .header(
          'content-disposition',
          contentDisposition(exportFileName(row.title, markdown ? 'md' : 'json')),
        )
        .header('cache-control', 'private, no-store');
      return markdown ? historyMarkdown(history) : historyJson(history);
    },
  );

  r.get('/api/conv/export.zip', { config: { access: 'user' }, schema: { tags } }, async (request, reply) => {
    const body = await exportAllZip(ctx, currentUser(request).user.id);
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', contentDisposition('conversations.zip'))
      .header('cache-control', 'private, no-store')
      .send(body);
  });

  r.post(
    '/api/conv/import',
    {
      config: { access: 'user' },
      bodyLimit: IMPORT_MAX_BYTES,
      schema: { tags, body: ConversationImport, response: { 201: envelope(ConversationRead) } },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(await importConversation(ctx, currentUser(request).user, request.body), 201);
    },
  );
}
