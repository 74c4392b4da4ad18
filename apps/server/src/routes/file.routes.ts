import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ERROR_DETAILS,
  FileIdParams,
  LocalUploadQuery,
  OpenaiWebFileIdParams,
  StartUploadRequest,
  StartUploadResponse,
  UploadedFileInfo,
  envelope,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { currentUser } from '../http/auth';
import { sendDownload } from '../http/download';
import { ok } from '../http/envelope';
import { isTruncatedMultipart } from '../http/error-handler';
import { fail } from '../errors/app-error';
import { presentFile } from '../presenters/file.presenter';
import {
  completeUpload,
  openLocalFile,
  openaiWebDownloadUrl,
  openaiWebFileContent,
  relayToOpenaiWeb,
  startUpload,
  uploadLocalFile,
} from '../services/file.service';

/** Uploads (local copy and openai_web, SPEC §3/§4) and downloads of stored and upstream files. */
export function fileRoutes(app: FastifyInstance, ctx: AppContext): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['files'];
  const access = { access: 'user' } as const;

  r.post(
    '/api/files/local/upload',
    {
      config: access,
      schema: {
        tags,
        consumes: ['multipart/form-data'],
        querystring: LocalUploadQuery,
        response: { 201: envelope(UploadedFileInfo) },
      },
    },
    async (request, reply) => {
      const actor = currentUser(request).user;
      // One file part. Busboy refuses a second one (`files: 1`), but only a reader that goes on to the end of the
      // form hears of it: `request.file()` stops at the first part and would let a second file pass unnoticed.
      const form = request.files({ limits: { fileSize: ctx.config.data.max_file_upload_size, files: 1 } });
      const first = await form.next().catch((e: unknown) => {
        throw isTruncatedMultipart(e) ? e : fail.invalidRequest(ERROR_DETAILS.multipartExpected);
      });
      const part = first.done ? undefined : first.value;
      if (!part || part.fieldname !== 'file') {
        part?.file.resume();
        throw fail.invalidRequest(ERROR_DETAILS.multipartExpected);
      }
      const restOfForm = async () => {
        // Busboy's limits (a second file, too many parts) reach the error handler: 400 `multipartLimit`.
        const next = await form.next();
        if (!next.done) {
          next.value.file.resume();
          throw fail.invalidRequest(ERROR_DETAILS.multipartLimit);
        }
      };
      const row = await uploadLocalFile(ctx, {
        actor,
        file: { stream: part.file, filename: part.filename, mimetype: part.mimetype },
        useCase: request.query.use_case,
        restOfForm,
      });
      return reply.status(201).send(ok(presentFile(row), 201));
    },
  );

  r.get(
    '/api/files/local/download/:id',
    { config: access, schema: { tags, params: FileIdParams } },
    async (request, reply) => {
      const { row, size, stream, contentType } = await openLocalFile(
        ctx,
        currentUser(request).user,
        request.params.id,
      );
      return sendDownload(reply, {
        body: stream,
        size,
        contentType,
        fileName: row.original_filename,
      });
    },
  );

  r.post(
    '/api/files/openai-web/upload-start',
    {
      config: access,
      schema: { tags, body: StartUploadRequest, response: { 200: envelope(StartUploadResponse) } },
    },
    async (request) => {
      const started = await startUpload(ctx, { actor: currentUser(request).user, request: request.body });
      return ok({
        strategy: started.strategy,
        file_max_size: started.fileMaxSize,
        upload_file_info: started.file ? presentFile(started.file) : null,
      });
    },
  );

  r.post(
    '/api/files/openai-web/upload-complete/:id',
    {
      config: access,
      schema: { tags, params: FileIdParams, response: { 200: envelope(UploadedFileInfo) } },
    },
    async (request) =>
      ok(presentFile(await completeUpload(ctx, currentUser(request).user, request.params.id))),
  );

  r.post(
    '/api/files/local/upload-to-openai-web/:id',
    {
      config: access,
      schema: { tags, params: FileIdParams, response: { 200: envelope(UploadedFileInfo) } },
    },
    async (request) =>
      ok(presentFile(await relayToOpenaiWeb(ctx, currentUser(request).user, request.params.id))),
  );

  r.get(
    '/api/files/openai-web/:file_id/download-url',
    {
      config: access,
      schema: { tags, params: OpenaiWebFileIdParams, response: { 200: envelope(z.string()) } },
    },
    async (request) => ok(await openaiWebDownloadUrl(ctx, currentUser(request).user, request.params.file_id)),
  );

  r.get(
    '/api/files/openai-web/:file_id/content',
    { config: access, schema: { tags, params: OpenaiWebFileIdParams } },
    async (request, reply) =>
      sendDownload(reply, await openaiWebFileContent(ctx, currentUser(request).user, request.params.file_id)),
  );
}
