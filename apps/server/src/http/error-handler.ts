import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ERRORS, ERROR_DETAILS } from '@cc/contracts';
import type { ValidationIssue } from '@cc/contracts';
import { describeFailure, toErrorEnvelope } from '../errors/describe-failure';

function toLoc(context: string | undefined, instancePath: string): (string | number)[] {
  const parts = instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return [context ?? 'body', ...parts];
}

/** Fastify's (and its plugins') own client errors, by code → the detail key the user reads. */
const CLIENT_ERROR_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ERROR_DETAILS.invalidJson,
  FST_ERR_CTP_EMPTY_JSON_BODY: ERROR_DETAILS.emptyJson,
  FST_ERR_CTP_BODY_TOO_LARGE: ERROR_DETAILS.bodyTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ERROR_DETAILS.unsupportedMediaType,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ERROR_DETAILS.contentLengthMismatch,
  FST_INVALID_MULTIPART_CONTENT_TYPE: ERROR_DETAILS.multipartExpected,
  FST_REQ_FILE_TOO_LARGE: ERROR_DETAILS.bodyTooLarge,
  FST_PARTS_LIMIT: ERROR_DETAILS.multipartLimit,
  FST_FILES_LIMIT: ERROR_DETAILS.multipartLimit,
  FST_FIELDS_LIMIT: ERROR_DETAILS.multipartLimit,
};

/**
 * Too many parts, files or fields in a multipart form. @fastify/multipart raises them as 413, but 413 says the body
 * is too large (the web client reads it as "file too large"); a form of the wrong shape is a bad request: 400
 * `invalidRequest` with `multipartLimit`, the catalogue's status for it, whichever limit it hit.
 */
const MULTIPART_COUNT_LIMITS = new Set(['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT']);

/**
 * Busboy's errors when the body ends inside a multipart form (a dropped or cut-off upload): "Unexpected end of
 * multipart data" on the form, and "Part terminated early due to unexpected end of multipart data" ("Preamble …"
 * before the first part) on the part being read, which is the file stream a route pipes from. Busboy raises them
 * as plain `Error`s, without a code or a class of their own, and @fastify/multipart passes them on as they are
 * (it tells them apart by message too), so the message is all there is. The client sent too little: a 400.
 */
const MULTIPART_TRUNCATED =
  /^(?:(?:Part|Preamble) terminated early due to u|U)nexpected end of multipart data$/;

/** Whether an error is the one of a multipart body that ended too early (answered 400 `multipartTruncated`). */
export function isTruncatedMultipart(error: unknown): boolean {
  return error instanceof Error && MULTIPART_TRUNCATED.test(error.message) && !(error as FastifyError).code;
}

/** Seconds until @fastify/rate-limit lets the client in again (it sets `retry-after` before refusing). */
function retryAfterSeconds(reply: FastifyReply): number | null {
  const value = Number(reply.getHeader('retry-after'));
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

/**
 * A request Fastify cannot read before routing — a URL it cannot decode ("%zz") — answered 400 with the envelope
 * and strict headers of its own (no hook runs for it, helmet's neither; a body that is not a page: nothing loads
 * from it, nothing frames it, nothing sniffs it).
 */
export function refuseUndecodableRequest(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  request.log.info({ code: error.code, reason: error.message }, 'client error');
  void reply
    .status(400)
    .headers({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
    })
    .send({ code: 400, message: ERRORS.invalidRequest.message, result: ERROR_DETAILS.badUrl });
}

/**
 * One handler turns every failure into the envelope with a real HTTP status: `describeFailure` for application,
 * upstream and queue errors; validation and Fastify's own client errors here. Unexpected errors become a 500
 * whose details stay in the log, keyed by the request id the client sees.
 */
export function registerErrorHandlers(app: FastifyInstance, options: { spaFallback: boolean }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
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
    const failure = describeFailure(error);
    if (failure.kind === 'unknown') {
      const truncated = isTruncatedMultipart(error);
      const status = truncated || MULTIPART_COUNT_LIMITS.has(error.code) ? 400 : (error.statusCode ?? 500);
      if (status === 429) {
        const seconds = retryAfterSeconds(reply);
        return reply.status(429).send({
          code: 429,
          message: ERRORS.tooManyRequests.message,
          result: seconds === null ? null : ERROR_DETAILS.retryAfter,
          ...(seconds === null ? {} : { params: { seconds } }),
        });
      }
      if (status >= 400 && status < 500) {
        // Fastify's own client errors: bad JSON, unsupported media type, body too large, a cut-off form, …
        request.log.info({ code: error.code, reason: error.message }, 'client error');
        return reply.status(status).send({
          code: status,
          message: ERRORS.invalidRequest.message,
          result: truncated ? ERROR_DETAILS.multipartTruncated : (CLIENT_ERROR_DETAILS[error.code] ?? null),
        });
      }
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send({ ...toErrorEnvelope(failure), result: { request_id: request.id } });
    }
    if (failure.level === 'error')
      request.log.error({ err: error, ...failure.log }, `${failure.kind} failure`);
    else if (failure.level === 'warn') request.log.warn({ ...failure.log }, `${failure.kind} failure`);
    return reply.status(failure.status).send(toErrorEnvelope(failure));
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
