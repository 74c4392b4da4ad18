import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { rawText } from './raw-text';
import {
  AskRequest,
  AskResponse,
  CHAT_CLOSE,
  ERRORS,
  MAX_IMAGES_PER_ASK,
  VALIDATION_MESSAGES,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import { isOriginAllowed } from '../http/auth';
import { askQuestion } from './ask.service';
import type { FrameSink } from './frames';

const FIRST_MESSAGE_TIMEOUT_MS = 30_000;
const PING_INTERVAL_MS = 20_000;
const CHECK_FRAMES = process.env.NODE_ENV === 'test';

function socketSink(socket: WebSocket, ctx: AppContext): FrameSink {
  return {
    send(frame) {
      if (socket.readyState !== socket.OPEN) return;
      // The server never sends a frame the contract does not name: tests check every frame against it.
      const checked = CHECK_FRAMES ? AskResponse.parse(frame) : frame;
      socket.send(JSON.stringify(checked), (err) => {
        if (err) ctx.log.debug({ err }, 'frame not delivered');
      });
    },
    close(code, reason) {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
        socket.close(code, reason.slice(0, 120));
    },
  };
}

/**
 * `/api/chat`: one connection = one question. Session cookie auth (the global hook resolved it), Origin check,
 * one AskRequest, frames, close code. The client closing the socket stops the answer.
 */
export function chatSocketRoute(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/api/chat',
    { websocket: true, config: { access: 'public' }, schema: { hide: true } },
    (socket, request) => {
      const sink = socketSink(socket, ctx);
      const controller = new AbortController();
      let received = false;
      const firstMessageTimer = setTimeout(
        () => sink.close(CHAT_CLOSE.invalidAskRequest.code, 'errors.invalidAskRequest'),
        FIRST_MESSAGE_TIMEOUT_MS,
      );
      const ping = setInterval(() => socket.readyState === socket.OPEN && socket.ping(), PING_INTERVAL_MS);
      socket.on('close', () => {
        clearTimeout(firstMessageTimer);
        clearInterval(ping);
        controller.abort();
      });
      socket.on('error', () => controller.abort());

      if (!isOriginAllowed(ctx, request.headers.origin, request.headers.host)) {
        sink.close(CHAT_CLOSE.originNotAllowed.code, CHAT_CLOSE.originNotAllowed.reason);
        return;
      }
      const auth = request.auth;
      if (!auth) {
        sink.close(CHAT_CLOSE.unauthorized.code, CHAT_CLOSE.unauthorized.reason);
        return;
      }
      socket.on('message', (data, isBinary) => {
        if (received) return;
        received = true;
        clearTimeout(firstMessageTimer);
        let parsed;
        try {
          parsed = AskRequest.safeParse(isBinary ? null : JSON.parse(rawText(data)));
        } catch {
          parsed = null;
        }
        if (
          parsed &&
          !parsed.success &&
          parsed.error.issues.some((i) => i.message === VALIDATION_MESSAGES.tooManyImages)
        ) {
          // A refusal the user can act on (SPEC §5: up to 4 images), not a malformed request.
          const tip = ERRORS.tooManyImages.message;
          sink.send({
            type: 'error',
            tip,
            error_detail: `up to ${MAX_IMAGES_PER_ASK} images can be uploaded`,
          });
          sink.close(CHAT_CLOSE.refused.code, tip);
          return;
        }
        if (!parsed?.success) {
          const detail = parsed
            ? parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
            : 'not JSON';
          sink.send({ type: 'error', tip: CHAT_CLOSE.invalidAskRequest.reason, error_detail: detail });
          sink.close(CHAT_CLOSE.invalidAskRequest.code, CHAT_CLOSE.invalidAskRequest.reason);
          return;
        }
        askQuestion(ctx, { user: auth.user, request: parsed.data, sink, signal: controller.signal }).catch(
          (err: unknown) => {
            ctx.log.error({ err }, 'ask crashed');
            sink.close(CHAT_CLOSE.unknownError.code, CHAT_CLOSE.unknownError.reason);
          },
        );
      });
    },
  );
}
