import type { FastifyReply } from 'fastify';
import { TIPS } from '@cc/contracts';
import type { Envelope } from '@cc/contracts';

/** Success envelope. */
export function ok<T>(result: T, code = 200): Envelope<T> {
  return { code, message: TIPS.requestSuccess, result };
}

/**
 * Success envelope, serialized, around a result already serialized (an answer built as JSON text). Sent as the
 * body, it bypasses the route's response serializer: the text must match the route's response schema.
 */
export function okJson(resultJson: string, code = 200): string {
  return `{"code":${code},"message":${JSON.stringify(TIPS.requestSuccess)},"result":${resultJson}}`;
}

/**
 * Sends a JSON text built by okJson() as the body. Fastify passes a string body with a JSON content type through
 * untouched (no serializer runs); the response schema still documents it.
 */
export function sendJsonText(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
