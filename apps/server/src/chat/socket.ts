import { randomUUID } from 'node:crypto';
import { Duplex, Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import {
  AskRequest,
  CHAT_CLOSE,
  CLIENT_CLOSE,
  ERROR_DETAILS,
  ERRORS,
  MAX_ASK_TEXT_CHARS,
  MAX_IMAGES_PER_ASK,
  MAX_PLUGINS_PER_CONVERSATION,
  ResumeRequest,
  StopRequest,
  VALIDATION_MESSAGES,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserRow } from '../db/schema';
import { isOriginAllowed } from '../http/auth';
import { AnswerChannel, appendedText } from './answer-channel';
import type { FrameOutput } from './answer-channel';
import { worthCompressing } from './inline-deflate';
import { askQuestion } from './ask.service';
import type { AbortCause } from './ask.service';
import { rawText } from './raw-text';

const FIRST_MESSAGE_TIMEOUT_MS = 30_000;
/** Chat sockets one user may hold open on one instance (several tabs, a reconnect overlapping its old socket). */
export const MAX_SOCKETS_PER_USER = 8;
const PING_INTERVAL_MS = 20_000;

/** A client closing with these stops its answer; any other close (network, reload, detach) leaves it running. */
const STOP_CODES = new Set<number>([CLIENT_CLOSE.stop, CLIENT_CLOSE.stopWithoutCode]);

/** The websocket library's connection underneath a socket (not part of its public interface: may be missing). */
function connectionOf(socket: WebSocket): Duplex | null {
  const raw = (socket as unknown as { _socket?: unknown })._socket;
  return raw instanceof Duplex ? raw : null;
}

/** Frames up to this many bytes go out as one buffer, header and payload together (see `writeFramesWhole`). */
const WHOLE_FRAME_BYTES = 16 * 1024;

/**
 * Each frame in one piece: the websocket library writes a frame's header and its payload as two writes to the
 * connection (a writev of two buffers, with the stream's bookkeeping for each and a cork around them). A streamed
 * answer's frames are a few dozen bytes: copying the payload behind its header costs less than the second write.
 * Larger frames go as the library sends them.
 */
function writeFramesWhole(socket: WebSocket): void {
  type Piece = Buffer | string;
  const sender = (socket as unknown as { _sender?: { sendFrame?: unknown } })._sender;
  const connection = connectionOf(socket);
  if (!sender || typeof sender.sendFrame !== 'function' || !connection) return;
  const sendFrame = (sender.sendFrame as (list: Piece[], cb?: (err?: Error | null) => void) => void).bind(
    sender,
  );
  sender.sendFrame = (list: Piece[], cb?: (err?: Error | null) => void) => {
    const [header, payload] = list;
    if (list.length !== 2 || !Buffer.isBuffer(header) || payload === undefined) return sendFrame(list, cb);
    // (A text frame sent uncompressed carries its payload as the string itself.)
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    if (size > WHOLE_FRAME_BYTES) return sendFrame(list, cb);
    const whole = Buffer.allocUnsafe(header.length + size);
    header.copy(whole, 0);
    if (typeof payload === 'string') whole.write(payload, header.length);
    else whole.set(payload, header.length);
    connection.write(whole, cb);
  };
}

/**
 * The websocket library ends its frame reader when a close frame arrives, then again at the connection's end and at
 * its close, and ends the connection again at its end: each later call makes and drops an
 * ERR_STREAM_ALREADY_FINISHED with its stack trace (three a socket, ~1.5 % of a short ask's CPU). On a stream that
 * has ended and is not corked, `end()` without arguments does nothing else: here such a call returns at once.
 */
function endOnce(stream: unknown): void {
  if (!(stream instanceof Writable)) return;
  const end = stream.end.bind(stream) as (...args: unknown[]) => Writable;
  stream.end = ((...args: unknown[]) =>
    args.length === 0 && stream.writableEnded && stream.writableCorked === 0
      ? stream
      : end(...args)) as Writable['end'];
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The message that carries appended text (delta mode): the text alone, as binary UTF-8. Text with half a surrogate
 * pair (its other half in the next chunk) has no UTF-8 form: it goes as an `append` frame, which keeps it whole.
 */
export function appendMessage(text: string): Buffer | string {
  return LONE_SURROGATE.test(text) ? JSON.stringify({ type: 'append', text }) : Buffer.from(text);
}

const COMPRESSED = { compress: true } as const;
const UNCOMPRESSED = { compress: false } as const;

function output(socket: WebSocket, ctx: AppContext): FrameOutput {
  const connection = connectionOf(socket);
  endOnce(connection);
  endOnce((socket as unknown as { _receiver?: unknown })._receiver);
  let corked = false;
  const uncork = () => {
    corked = false;
    connection?.uncork();
  };
  /**
   * Frames sent in one turn of the event loop go out in one write (a refusal's error frame and its close frame, say):
   * each write to a socket whose reader waits costs a wake-up of the reader, ~0.1 ms of this process's CPU.
   */
  const gather = () => {
    if (corked || !connection) return;
    corked = true;
    connection.cork();
    process.nextTick(uncork);
  };
  const delivered = (err?: Error) => {
    if (err) ctx.log.debug({ err }, 'frame not delivered');
  };
  const send = (data: string | Buffer, compress = true) => {
    if (socket.readyState !== socket.OPEN) return;
    gather();
    socket.send(data, compress ? COMPRESSED : UNCOMPRESSED, delivered);
  };
  return {
    send: (data) => send(data),
    append(text) {
      const message = appendMessage(text);
      send(message, typeof message === 'string' || worthCompressing(socket, message.length));
    },
    close(code, reason) {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
        gather();
        socket.close(code, reason.slice(0, 120));
      }
    },
  };
}

function refuse(
  out: FrameOutput,
  tip: string,
  detail: string | null,
  close: { code: number; reason: string },
  params?: Record<string, number>,
) {
  if (tip) out.send(JSON.stringify({ type: 'error', tip, error_detail: detail, ...(params && { params }) }));
  out.close(close.code, close.reason || tip);
}

function parseJson(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): unknown {
  if (isBinary) return null;
  try {
    return JSON.parse(rawText(data));
  } catch {
    return null;
  }
}

/** Later messages on a socket that asked or resumed: only a stop is understood. */
function isStop(value: unknown): boolean {
  return StopRequest.safeParse(value).success;
}

/**
 * Invalid questions the user can put right, refused as such (close 1008 with their own tip and a translatable
 * detail) rather than as a malformed request: more than 4 images and more than 3 plugins (SPEC §5), no text, a
 * follow-up without its conversation, a text over the limit (said with the limit).
 */
const USER_REFUSALS: {
  issue: string;
  tip: string;
  detail: string | null;
  params?: Record<string, number>;
}[] = [
  {
    issue: VALIDATION_MESSAGES.tooManyImages,
    tip: ERRORS.tooManyImages.message,
    detail: VALIDATION_MESSAGES.tooManyImages,
    params: { max: MAX_IMAGES_PER_ASK },
  },
  {
    issue: VALIDATION_MESSAGES.pluginCountExceeded,
    tip: ERRORS.tooManyPlugins.message,
    detail: VALIDATION_MESSAGES.pluginCountExceeded,
    params: { max: MAX_PLUGINS_PER_CONVERSATION },
  },
  { issue: ERRORS.missingMessageContent.message, tip: ERRORS.missingMessageContent.message, detail: null },
  { issue: ERRORS.missingConversationId.message, tip: ERRORS.missingConversationId.message, detail: null },
  {
    issue: VALIDATION_MESSAGES.messageTooLong,
    tip: ERRORS.messageTooLong.message,
    detail: VALIDATION_MESSAGES.messageTooLong,
    params: { max: MAX_ASK_TEXT_CHARS },
  },
];

/** A new question on this socket: the answer runs at the server, this socket is its first viewer. */
function startAsk(ctx: AppContext, socket: WebSocket, user: UserRow, value: unknown): void {
  const out = output(socket, ctx);
  const parsed = AskRequest.safeParse(value);
  if (!parsed.success) {
    // Only when that is all that is wrong: a request that is malformed besides stays malformed.
    const refusalOf = (message: string) => USER_REFUSALS.find((r) => r.issue === message);
    const { issues } = parsed.error;
    const refusal = issues.every((i) => refusalOf(i.message)) ? refusalOf(issues[0]!.message) : undefined;
    if (refusal) {
      const { tip, detail, params } = refusal;
      return refuse(out, tip, detail, { code: CHAT_CLOSE.refused.code, reason: tip }, params);
    }
    // Not JSON (or not an object): said as such; otherwise which fields are wrong, for the client's developer.
    const detail =
      value === null || typeof value !== 'object'
        ? ERROR_DETAILS.invalidJson
        : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    return refuse(out, CHAT_CLOSE.invalidAskRequest.reason, detail, CHAT_CLOSE.invalidAskRequest);
  }
  const request = parsed.data;
  const askId = request.ask_id ?? randomUUID();
  const answers = ctx.coordination.answers;
  const channel = new AnswerChannel(answers, user.id, askId, out, request.stream_mode);
  const controller = new AbortController();
  const stop = (cause: AbortCause) => controller.abort(cause);
  const unsubscribe = answers.onStop(user.id, askId, stop);
  socket.on('close', (code) => (STOP_CODES.has(code) ? stop('user') : channel.detach()));
  socket.on('message', (data, isBinary) => isStop(parseJson(data, isBinary)) && stop('user'));
  // A shutdown that outlasts the drain stops it as a cut-off answer.
  const untrack = ctx.lifecycle.track(() => stop('shutdown'));
  askQuestion(ctx, { askId, user, request, sink: channel, signal: controller.signal })
    .catch((err: unknown) => {
      ctx.log.error({ err }, 'ask crashed');
      channel.close(CHAT_CLOSE.unknownError.code, CHAT_CLOSE.unknownError.reason);
    })
    .finally(() => {
      unsubscribe();
      untrack();
    });
}

/** A client that lost its socket (or another tab) follows an answer in flight from the last frame it saw. */
async function resumeAnswer(ctx: AppContext, socket: WebSocket, user: UserRow, request: ResumeRequest) {
  const out = output(socket, ctx);
  const controller = new AbortController();
  const answers = ctx.coordination.answers;
  const followed = await answers.follow(user.id, request.ask_id, request.after, controller.signal);
  if (!followed) return refuse(out, '', null, CHAT_CLOSE.answerNotFound);
  const requestStop = () =>
    answers
      .requestStop(user.id, followed.askId, 'user')
      .catch((err: unknown) => ctx.log.warn({ err }, 'stop request failed'));
  // Draining: the client follows the answer through another instance.
  const undrain = ctx.lifecycle.onDrain(() =>
    out.close(CHAT_CLOSE.draining.code, CHAT_CLOSE.draining.reason),
  );
  socket.on('close', (code) => {
    undrain();
    controller.abort();
    if (STOP_CODES.has(code)) void requestStop();
  });
  socket.on('message', (data, isBinary) => isStop(parseJson(data, isBinary)) && void requestStop());
  for await (const entry of followed.entries) {
    if ('frame' in entry) {
      const text = appendedText(entry.frame);
      if (text === null) out.send(entry.frame);
      else out.append(text);
    } else return out.close(entry.end.code, entry.end.reason);
  }
  // The answer's log expired while following it.
  out.close(CHAT_CLOSE.answerNotFound.code, CHAT_CLOSE.answerNotFound.reason);
}

/** The first message of a socket: a question, a resume, or a stop (from any tab). */
function handleFirstMessage(ctx: AppContext, socket: WebSocket, user: UserRow, value: unknown): void {
  if (ctx.lifecycle.draining && !StopRequest.safeParse(value).success) {
    // Shutting down: no new ask or resume here; the client sends the same message again (another instance).
    return output(socket, ctx).close(CHAT_CLOSE.draining.code, CHAT_CLOSE.draining.reason);
  }
  const resume = ResumeRequest.safeParse(value);
  if (resume.success) {
    resumeAnswer(ctx, socket, user, resume.data).catch((err: unknown) => {
      ctx.log.warn({ err }, 'resuming an answer failed');
      output(socket, ctx).close(CHAT_CLOSE.unknownError.code, CHAT_CLOSE.unknownError.reason);
    });
    return;
  }
  const stop = StopRequest.safeParse(value);
  if (stop.success) {
    const out = output(socket, ctx);
    ctx.coordination.answers
      .requestStop(user.id, stop.data.ask_id ?? null, 'user')
      .catch((err: unknown) => ctx.log.warn({ err }, 'stop request failed'))
      .finally(() => out.close(CHAT_CLOSE.stopped.code, CHAT_CLOSE.stopped.reason));
    return;
  }
  startAsk(ctx, socket, user, value);
}

/**
 * `/api/chat`: one connection = one question (or one resumed answer). Session cookie auth (the global hook resolved
 * it), Origin check, then the first message. The answer belongs to the server: it goes on when the socket drops.
 */
export function chatSocketRoute(app: FastifyInstance, ctx: AppContext): void {
  const open = new Map<number, number>();
  app.route({
    method: 'GET',
    url: '/api/chat',
    config: { access: 'public' },
    schema: { hide: true },
    // The socket's handshake (written by the websocket server) never carries the reply's headers: building the
    // security headers for it cost a good part of each connection. A request without an upgrade gets them, and the
    // same 404 envelope as any unknown API path.
    helmet: false,
    handler: (_request, reply) => {
      reply.helmet();
      reply.callNotFound();
    },
    wsHandler: (socket, request) => {
      writeFramesWhole(socket);
      const out = output(socket, ctx);
      const firstMessageTimer = setTimeout(
        () => out.close(CHAT_CLOSE.invalidAskRequest.code, CHAT_CLOSE.invalidAskRequest.reason),
        FIRST_MESSAGE_TIMEOUT_MS,
      );
      const ping = setInterval(() => socket.readyState === socket.OPEN && socket.ping(), PING_INTERVAL_MS);
      socket.on('close', () => {
        clearTimeout(firstMessageTimer);
        clearInterval(ping);
      });
      if (!isOriginAllowed(ctx, request)) {
        return out.close(CHAT_CLOSE.originNotAllowed.code, CHAT_CLOSE.originNotAllowed.reason);
      }
      const auth = request.auth;
      if (!auth) return out.close(CHAT_CLOSE.unauthorized.code, CHAT_CLOSE.unauthorized.reason);
      const userId = auth.user.id;
      const count = open.get(userId) ?? 0;
      if (count >= MAX_SOCKETS_PER_USER)
        return out.close(CHAT_CLOSE.tooManySockets.code, CHAT_CLOSE.tooManySockets.reason);
      open.set(userId, count + 1);
      socket.on('close', () => {
        const left = (open.get(userId) ?? 1) - 1;
        if (left > 0) open.set(userId, left);
        else open.delete(userId);
      });
      socket.once('message', (data, isBinary) => {
        clearTimeout(firstMessageTimer);
        handleFirstMessage(ctx, socket, auth.user, parseJson(data, isBinary));
      });
    },
  });
}
