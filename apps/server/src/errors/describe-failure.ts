import { CHAT_CLOSE, ERRORS, ERROR_DETAILS, upstreamErrorKey } from '@cc/contracts';
import type { AskResponse, ErrorDef, MessageParams } from '@cc/contracts';
import { isDatabaseUnavailable } from '../db/client';
import { ADDRESS_NOT_ALLOWED } from '../sources/address-guard';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import { isAppError } from './app-error';
import { CoordinationUnavailableError, NoServerError, QueueTimeoutError } from './queue-errors';

/** Which kind of failure it was. */
export type FailureKind =
  | 'app'
  | 'upstream'
  | 'upstreamTimeout'
  | 'upstreamNetwork'
  | 'queueTimeout'
  | 'noServer'
  | 'unavailable'
  | 'unknown';

/** How loudly the caller logs the failure: `none` for expected refusals, `error` for bugs. */
export type FailureLevel = 'none' | 'warn' | 'error';

/** One failure, told once for HTTP (the envelope) and for the chat websocket (error frame + close). */
export interface FailureDescription {
  kind: FailureKind;
  /** HTTP status of the response. */
  status: number;
  /** Envelope `code`: 10401/10403 for auth and access, otherwise HTTP-like. */
  code: number;
  /** i18n key the user reads: the envelope's `message`. */
  messageKey: string;
  /**
   * The websocket frame's `tip`: the same key, except for an unknown failure (`errors.unknownError` on the socket,
   * `errors.internal` over HTTP, as before).
   */
  tip: string;
  /** Interpolation values for `messageKey`/`tip`, and for `detail` when it is a key. */
  params?: MessageParams;
  /**
   * The envelope's `result`: a detail key, desensitized upstream text, or machine-readable data; null when there
   * is nothing to add. Never internal codes, stack traces or secrets.
   */
  detail: unknown;
  /** How the chat websocket closes after the error frame. */
  close: { code: number; reason: string };
  level: FailureLevel;
  /** Extra fields for the log line only (internal codes, upstream status, the raw message). */
  log?: Record<string, unknown>;
}

/** Node's system error codes a failed upstream connection carries. */
const SYSTEM_CODES =
  'ECONNRESET|ECONNREFUSED|ECONNABORTED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EPROTO';
/** Internal error codes that must never reach the user: undici's, Node's, OpenSSL's. */
const INTERNAL_CODE = new RegExp(
  `\\b(?:UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+|${SYSTEM_CODES}|UNABLE_TO_[A-Z_]+|[A-Z_]*SELF_SIGNED_CERT[A-Z_]*|CERT_[A-Z_]+)\\b`,
  'g',
);

/** Desensitized upstream detail: no e-mail addresses, URLs reduced to their scheme, no internal codes. */
export function desensitize(text: string): string {
  return text
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '***@***')
    .replace(/https?:\/\/[^\s"']+/g, (u) => `${u.slice(0, u.indexOf('//') + 4)}***`)
    .replace(INTERNAL_CODE, '')
    .replace(/\s{2,}/g, ' ')
    .trim()
    .slice(0, 1000);
}

/**
 * What the provider said, as text: the `error.message` (or `message`, `detail`) of a JSON body, the text of an
 * HTML page, else the body itself. Never JSON.
 */
export function upstreamText(body: string): string {
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      const found = messageIn(parsed);
      return found ?? '';
    } catch {
      // Not JSON after all: the raw text below.
    }
  }
  if (trimmed.startsWith('<')) {
    return trimmed
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  }
  return trimmed;
}

function messageIn(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length > 0 ? messageIn(value[0]) : null;
  if (!value || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail', 'error_description']) {
    const found = key in record ? messageIn(record[key]) : null;
    if (found) return found;
  }
  return null;
}

/** A network failure's internal code → the detail key the user reads. */
function networkDetail(code: string | null): string {
  if (!code) return ERROR_DETAILS.networkFailed;
  if (code === 'STREAM_CUT') return ERROR_DETAILS.networkStreamCut;
  if (code === 'ECONNREFUSED') return ERROR_DETAILS.networkRefused;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return ERROR_DETAILS.networkDns;
  if (code === ADDRESS_NOT_ALLOWED) return ERROR_DETAILS.networkAddressNotAllowed;
  if (/CERT|TLS|SSL|SIGNATURE/.test(code)) return ERROR_DETAILS.networkTls;
  if (
    /^(ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_SOCKET|UND_ERR_CLOSED|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)$/.test(
      code,
    )
  )
    return ERROR_DETAILS.networkClosed;
  return ERROR_DETAILS.networkFailed;
}

/** The internal code of a network failure: its own, else one named in its message (older throw sites). */
function networkCode(e: UpstreamNetworkError): string | null {
  if (e.code) return e.code;
  return new RegExp(`\\b(UND_ERR_[A-Z_]+|${SYSTEM_CODES})\\b`).exec(e.message)?.[1] ?? null;
}

/** A failure described by one catalogue entry: its status, code and key, and the close it ends a chat with. */
function fromCatalogue(
  kind: FailureKind,
  def: ErrorDef,
  close: { code: number; reason: string },
  rest: Pick<FailureDescription, 'detail' | 'level'> & Partial<Pick<FailureDescription, 'tip' | 'log'>>,
): FailureDescription {
  return {
    kind,
    status: def.status,
    code: def.code,
    messageKey: def.message,
    tip: def.message,
    close: { ...close },
    ...rest,
  };
}

/**
 * Every failure in one place: the HTTP envelope (status, code, message key, params, result) and the chat
 * websocket's error frame and close code/reason. Pure: the caller logs according to `level`.
 */
export function describeFailure(error: unknown): FailureDescription {
  if (isAppError(error)) {
    return {
      kind: 'app',
      status: error.status,
      code: error.def.code === error.def.status ? error.status : error.def.code,
      messageKey: error.messageKey,
      tip: error.messageKey,
      ...(error.params ? { params: error.params } : {}),
      detail: error.result ?? null,
      // Quota and permission refusals: 1008 with the error key as reason.
      close: { code: CHAT_CLOSE.refused.code, reason: error.messageKey },
      // (Not ready is logged by the readiness check when it changes, not at every probe.)
      level: error.status >= 500 && error.messageKey !== ERRORS.notReady.message ? 'warn' : 'none',
    };
  }
  if (error instanceof QueueTimeoutError)
    return fromCatalogue('queueTimeout', ERRORS.queueTimeout, CHAT_CLOSE.queueTimeout, {
      detail: null,
      level: 'none',
    });
  if (error instanceof CoordinationUnavailableError)
    return fromCatalogue('unavailable', ERRORS.temporarilyUnavailable, CHAT_CLOSE.unavailable, {
      detail: null,
      level: 'warn',
      log: { cause: error.cause },
    });
  if (error instanceof NoServerError) {
    return fromCatalogue('noServer', ERRORS.config, CHAT_CLOSE.noServer, {
      detail: ERROR_DETAILS.noServerOnline,
      level: 'warn',
      log: { source: error.message },
    });
  }
  if (error instanceof UpstreamError) {
    const status = error.status !== null && error.status >= 400 && error.status < 600 ? error.status : 502;
    const key = upstreamErrorKey(error.status);
    const text = desensitize(upstreamText(error.body));
    return {
      kind: 'upstream',
      status,
      code: status,
      messageKey: key,
      tip: key,
      detail: text || null,
      close: { ...CHAT_CLOSE.upstreamError },
      level: 'warn',
      log: { upstream_status: error.status },
    };
  }
  if (error instanceof UpstreamTimeout) {
    return fromCatalogue('upstreamTimeout', ERRORS.timeout, CHAT_CLOSE.timeout, {
      detail: null,
      level: 'warn',
      log: { internal_code: error.message || null },
    });
  }
  if (error instanceof UpstreamNetworkError) {
    const code = networkCode(error);
    return fromCatalogue('upstreamNetwork', ERRORS.httpError, CHAT_CLOSE.httpError, {
      detail: networkDetail(code),
      level: 'warn',
      log: { internal_code: code, reason: error.message },
    });
  }
  if (isDatabaseUnavailable(error))
    return fromCatalogue('unavailable', ERRORS.temporarilyUnavailable, CHAT_CLOSE.unavailable, {
      detail: null,
      level: 'warn',
      log: { cause: error },
    });
  return fromCatalogue('unknown', ERRORS.internal, CHAT_CLOSE.unknownError, {
    tip: CHAT_CLOSE.unknownError.reason,
    detail: null,
    level: 'error',
  });
}

/** The websocket's `error` frame for a failure (`error_detail` only when the detail is a string). */
export type ErrorFrame = Extract<AskResponse, { type: 'error' }>;

/**
 * The chat websocket's error frame: send it, then close with `failure.close.code` / `failure.close.reason`.
 * Structured details (HTTP-only machine data) are left out; their values travel in `params`.
 */
export function toErrorFrame(failure: FailureDescription, conversationId?: string | null): ErrorFrame {
  return {
    type: 'error',
    tip: failure.tip,
    error_detail: typeof failure.detail === 'string' ? failure.detail : null,
    ...(failure.params ? { params: failure.params } : {}),
    ...(conversationId !== undefined ? { conversation_id: conversationId } : {}),
  };
}

/** The envelope body of a failure over HTTP. */
export function toErrorEnvelope(failure: FailureDescription): {
  code: number;
  message: string;
  result: unknown;
  params?: MessageParams;
} {
  return {
    code: failure.code,
    message: failure.messageKey,
    result: failure.detail,
    ...(failure.params ? { params: failure.params } : {}),
  };
}
