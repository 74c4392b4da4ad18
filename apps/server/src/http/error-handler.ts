import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ERRORS, upstreamErrorKey } from '@cc/contracts';
import type { ValidationIssue } from '@cc/contracts';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import { isAppError } from './errors';

function toLoc(context: string | undefined, instancePath: string): (string | number)[] {
  const parts = instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return [context ?? 'body', ...parts];
}

/**
 * One handler turns every failure into the envelope with a real HTTP status. Unexpected errors become a 500
 * whose details stay in the log, keyed by the request id the client sees.
 */
export function registerErrorHandlers(app: FastifyInstance, options: { spaFallback: boolean }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isAppError(error)) {
      return reply.status(error.status).send({
        code: error.def.code === error.def.status ? error.status : error.def.code,
        message: error.messageKey,
        result: error.result,
      });
    }
    if (error instanceof UpstreamError) {
      const status = error.status && error.status >= 400 ? error.status : 502;
      request.log.warn({ status: error.status }, 'upstream error');
      return reply
        .status(status)
        .send({ code: status, message: upstreamErrorKey(error.status), result: error.body.slice(0, 500) });
    }
    if (error instanceof UpstreamTimeout) {
      return reply.status(504).send({ code: 504, message: ERRORS.timeout.message, result: null });
    }
    if (error instanceof UpstreamNetworkError) {
      return reply.status(502).send({ code: 502, message: ERRORS.httpError.message, result: null });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const detail: ValidationIssue[] = error.validation.map((v) => ({
        loc: toLoc(error.validationContext, v.instancePath),
        msg: v.message ?? 'invalid',
        type: v.keyword,
      }));
      return reply.status(422).send({ code: 422, message: ERRORS.invalidParams.message, result: { detail } });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause.issues }, 'response did not match its contract');
      return reply
        .status(500)
        .send({ code: 500, message: ERRORS.internal.message, result: { request_id: request.id } });
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send({ code: 429, message: ERRORS.tooManyRequests.message, result: null });
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON, unsupported media type, body too large, …
      return reply
        .status(status)
        .send({ code: status, message: ERRORS.invalidRequest.message, result: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .status(500)
      .send({ code: 500, message: ERRORS.internal.message, result: { request_id: request.id } });
  });

  app.setNotFoundHandler((request, reply) => {
    // Client-side routes of the web app get its index page; unknown API paths get the 404 envelope.
    if (options.spaFallback && request.method === 'GET' && !request.url.startsWith('/api/')) {
      return reply.type('text/html').sendFile('index.html');
    }
    return reply.status(404).send({
      code: 404,
      message: ERRORS.notFound.message,
      result: `${request.method} ${request.url.split('?')[0]}`,
    });
  });
}
