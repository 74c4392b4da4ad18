import { describe, expect, it } from 'vitest';
import { CHAT_CLOSE, CLOSE_CODE, ERROR_DETAILS, upstreamErrorKey } from '@cc/contracts';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import { fail, isAppError } from './app-error';
import {
  describeFailure,
  desensitize,
  toErrorEnvelope,
  toErrorFrame,
  upstreamText,
} from './describe-failure';
import { NoServerError, QueueTimeoutError } from './queue-errors';

/**
 * The websocket mapping as it was in chat/ask.service.ts `reportFailure` before describeFailure (commit f140fba),
 * minus the detail text: tips and close codes/reasons must stay exactly these.
 */
function legacyTipAndClose(e: unknown): { tip: string; close: { code: number; reason: string } } {
  const frame = (tip: string, close: { code: number; reason: string }) => ({
    tip,
    close: { code: close.code, reason: close.reason || tip },
  });
  if (isAppError(e)) return frame(e.messageKey, { code: CHAT_CLOSE.refused.code, reason: e.messageKey });
  if (e instanceof QueueTimeoutError)
    return frame('errors.queueTimeout', { code: 1001, reason: 'errors.queueTimeout' });
  if (e instanceof NoServerError) return frame('errors.config', CHAT_CLOSE.unknownError);
  if (e instanceof UpstreamError) return frame(upstreamErrorKey(e.status), CHAT_CLOSE.upstreamError);
  if (e instanceof UpstreamTimeout) return frame('errors.timeout', CHAT_CLOSE.timeout);
  if (e instanceof UpstreamNetworkError) return frame('errors.httpError', CHAT_CLOSE.httpError);
  return frame('errors.unknownError', CHAT_CLOSE.unknownError);
}

const SAMPLES: [string, unknown][] = [
  ['app error', fail.noAvailableTotalAskCount()],
  ['rate limit', fail.rateLimited(null, { seconds: 60, max: 5 })],
  ['queue timeout', new QueueTimeoutError()],
  ['no server', new NoServerError('openai_web')],
  ['upstream 429', new UpstreamError(429, '{"error":{"message":"Rate limit reached"}}')],
  ['upstream 418', new UpstreamError(418, 'teapot')],
  ['upstream stream error', new UpstreamError(null, 'boom')],
  ['upstream timeout', new UpstreamTimeout('UND_ERR_HEADERS_TIMEOUT')],
  ['network', new UpstreamNetworkError('UND_ERR_SOCKET other side closed', 'UND_ERR_SOCKET')],
  ['unknown', new Error('secret internal detail')],
];

/** Everything the user can read of a failure, over HTTP and over the websocket. */
function userVisible(e: unknown): string {
  const d = describeFailure(e);
  return JSON.stringify([toErrorEnvelope(d), toErrorFrame(d), d.close.reason]);
}

describe('describeFailure: websocket semantics are those of the old reportFailure', () => {
  it.each(SAMPLES)('%s: same tip and close code/reason', (_name, e) => {
    const d = describeFailure(e);
    const legacy = legacyTipAndClose(e);
    expect({ tip: toErrorFrame(d).tip, close: d.close }).toEqual(legacy);
  });

  it('names every close code', () => {
    expect(CLOSE_CODE).toEqual({
      normal: 1000,
      goingAway: 1001,
      invalidPayload: 1007,
      policy: 1008,
      internal: 1011,
      serviceRestart: 1012,
      tryAgainLater: 1013,
      badGateway: 1014,
      answerNotFound: 4404,
    });
    expect(CHAT_CLOSE.queueTimeout).toEqual({ code: 1001, reason: 'errors.queueTimeout' });
    expect(CHAT_CLOSE.noServer).toEqual({ code: 1011, reason: 'errors.unknownError' });
  });

  it.each(SAMPLES)('%s: nothing internal reaches the user', (_name, e) => {
    const text = userVisible(e);
    expect(text).not.toMatch(/UND_ERR|secret internal detail|window_seconds/);
  });
});

describe('describeFailure by kind', () => {
  it('an application error: its status, code, key, params and result; 1008 with the key', () => {
    const d = describeFailure(fail.rateLimited(null, { seconds: 60, max: 5 }));
    expect(d).toMatchObject({
      kind: 'app',
      status: 429,
      code: 429,
      messageKey: 'errors.rateLimited',
      params: { seconds: 60, max: 5 },
      detail: null,
      close: { code: CLOSE_CODE.policy, reason: 'errors.rateLimited' },
      level: 'none',
    });
    expect(toErrorEnvelope(d)).toEqual({
      code: 429,
      message: 'errors.rateLimited',
      result: null,
      params: { seconds: 60, max: 5 },
    });
    expect(toErrorFrame(d)).toEqual({
      type: 'error',
      tip: 'errors.rateLimited',
      error_detail: null,
      params: { seconds: 60, max: 5 },
    });
  });

  it('an application error keeps the envelope code (10403) apart from the HTTP status', () => {
    const d = describeFailure(fail.userAlreadyExists(ERROR_DETAILS.username, { username: 'ann' }));
    expect(d).toMatchObject({ status: 409, code: 409 });
    const denied = describeFailure(fail.accessDenied());
    expect(denied).toMatchObject({ status: 403, code: 10403 });
    expect(denied).not.toHaveProperty('params');
    expect(toErrorFrame(d)).toEqual({
      type: 'error',
      tip: 'errors.userAlreadyExists',
      error_detail: 'errors.detail.username',
      params: { username: 'ann' },
    });
  });

  it('structured results stay in the HTTP result; the frame gets no JSON', () => {
    const d = describeFailure(fail.fileTooLarge({ max_size: 10 }));
    expect(toErrorEnvelope(d)).toEqual({
      code: 413,
      message: 'errors.fileTooLarge',
      result: { max_size: 10 },
    });
    expect(toErrorFrame(d).error_detail).toBeNull();
    expect(toErrorEnvelope(describeFailure(fail.notFound()))).not.toHaveProperty('params');
  });

  it('an upstream error: its 4xx/5xx status (else 502), the status key, the provider text desensitized', () => {
    const body = JSON.stringify({
      error: { message: 'Quota exceeded for ann@example.com, see https://platform.example.com/usage' },
    });
    const d = describeFailure(new UpstreamError(429, body));
    expect(d).toMatchObject({
      kind: 'upstream',
      status: 429,
      code: 429,
      messageKey: 'errors.openai.429',
      detail: 'Quota exceeded for ***@***, see https://pl***',
      close: CHAT_CLOSE.upstreamError,
      level: 'warn',
    });
    expect(describeFailure(new UpstreamError(418, 'x'))).toMatchObject({
      status: 418,
      messageKey: 'errors.openai.unknown',
    });
    expect(describeFailure(new UpstreamError(null, 'x'))).toMatchObject({
      status: 502,
      code: 502,
      messageKey: 'errors.openai.unknown',
    });
    expect(describeFailure(new UpstreamError(302, ''))).toMatchObject({ status: 502, detail: null });
  });

  it('an upstream timeout: 504 errors.timeout, close 1001', () => {
    const d = describeFailure(new UpstreamTimeout('UND_ERR_BODY_TIMEOUT'));
    expect(d).toMatchObject({
      kind: 'upstreamTimeout',
      status: 504,
      code: 504,
      messageKey: 'errors.timeout',
      detail: null,
      close: { code: CLOSE_CODE.goingAway, reason: 'errors.timeout' },
      log: { internal_code: 'UND_ERR_BODY_TIMEOUT' },
    });
  });

  it('a network failure: 502 errors.httpError with a translated cause; the code only in the log', () => {
    const cases: [UpstreamNetworkError, string][] = [
      [
        new UpstreamNetworkError('UND_ERR_SOCKET other side closed', 'UND_ERR_SOCKET'),
        ERROR_DETAILS.networkClosed,
      ],
      [
        new UpstreamNetworkError('ECONNREFUSED connect ECONNREFUSED', 'ECONNREFUSED'),
        ERROR_DETAILS.networkRefused,
      ],
      [new UpstreamNetworkError('ENOTFOUND getaddrinfo', 'ENOTFOUND'), ERROR_DETAILS.networkDns],
      [new UpstreamNetworkError('x', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'), ERROR_DETAILS.networkTls],
      [new UpstreamNetworkError('the upstream stream ended', 'STREAM_CUT'), ERROR_DETAILS.networkStreamCut],
      // An older throw site with the code only in its message.
      [new UpstreamNetworkError('UND_ERR_SOCKET other side closed'), ERROR_DETAILS.networkClosed],
      [new UpstreamNetworkError('something odd'), ERROR_DETAILS.networkFailed],
    ];
    for (const [e, detail] of cases) {
      const d = describeFailure(e);
      expect(d).toMatchObject({
        kind: 'upstreamNetwork',
        status: 502,
        code: 502,
        messageKey: 'errors.httpError',
        detail,
        close: { code: CLOSE_CODE.badGateway, reason: 'errors.httpError' },
        level: 'warn',
      });
      expect(toErrorFrame(d).error_detail).toBe(detail);
    }
    expect(describeFailure(cases[0]![0]).log).toMatchObject({ internal_code: 'UND_ERR_SOCKET' });
  });

  it('queue timeout and no server online', () => {
    expect(describeFailure(new QueueTimeoutError())).toMatchObject({
      kind: 'queueTimeout',
      status: 504,
      messageKey: 'errors.queueTimeout',
      detail: null,
      close: { code: CLOSE_CODE.goingAway, reason: 'errors.queueTimeout' },
      level: 'none',
    });
    const none = describeFailure(new NoServerError('openai_web'));
    expect(none).toMatchObject({
      kind: 'noServer',
      status: 500,
      messageKey: 'errors.config',
      detail: ERROR_DETAILS.noServerOnline,
      close: { code: CLOSE_CODE.internal, reason: 'errors.unknownError' },
      level: 'warn',
    });
    expect(toErrorFrame(none, 'c1')).toEqual({
      type: 'error',
      tip: 'errors.config',
      error_detail: ERROR_DETAILS.noServerOnline,
      conversation_id: 'c1',
    });
  });

  it('the database not there or not taking work: 503 temporarily unavailable, close 1013, not an internal error', () => {
    const pg = (code: string, message: string) => Object.assign(new Error(message), { code });
    const unavailable = [
      pg('57P01', 'terminating connection due to administrator command'),
      pg('53300', 'sorry, too many clients already'),
      pg('08006', 'connection failure'),
      pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      pg('55000', 'database "cc" is not currently accepting connections'),
      pg('SQLITE_BUSY', 'database is locked'),
    ];
    for (const e of unavailable) {
      expect(describeFailure(e), e.message).toMatchObject({
        kind: 'unavailable',
        status: 503,
        messageKey: 'errors.temporarilyUnavailable',
        detail: null,
        close: { code: 1013, reason: 'errors.temporarilyUnavailable' },
        level: 'warn',
      });
    }
    // A fault of the statement itself is still a bug.
    for (const e of [pg('42703', 'column "nope" does not exist'), pg('SQLITE_ERROR', 'no such table: nope')])
      expect(describeFailure(e).kind).toBe('unknown');
  });

  it('anything else: 500 errors.internal over HTTP, errors.unknownError on the socket, logged as error', () => {
    const d = describeFailure(new TypeError('secret internal detail'));
    expect(d).toMatchObject({
      kind: 'unknown',
      status: 500,
      code: 500,
      messageKey: 'errors.internal',
      tip: 'errors.unknownError',
      detail: null,
      close: { code: CLOSE_CODE.internal, reason: 'errors.unknownError' },
      level: 'error',
    });
    expect(describeFailure('a string').kind).toBe('unknown');
    expect(describeFailure(null).kind).toBe('unknown');
  });
});

describe('upstream text', () => {
  it('takes the message out of a JSON body and the text out of an HTML page', () => {
    expect(upstreamText('{"error":{"message":"model not found","type":"invalid_request_error"}}')).toBe(
      'model not found',
    );
    expect(upstreamText('{"detail":"Unauthorized"}')).toBe('Unauthorized');
    expect(upstreamText('{"foo":1}')).toBe('');
    expect(upstreamText('<html><style>x{}</style><body><h1>502 Bad Gateway</h1></body></html>')).toBe(
      '502 Bad Gateway',
    );
    expect(upstreamText('plain words')).toBe('plain words');
  });

  it('desensitizes: e-mails, URLs, internal codes; at most 1000 characters', () => {
    expect(desensitize('mail a.b@c.io at https://x.example/y?k=1 UND_ERR_SOCKET ECONNRESET done')).toBe(
      'mail ***@*** at https://x.*** done',
    );
    expect(desensitize('ERROR: overloaded')).toBe('ERROR: overloaded');
    expect(desensitize('x'.repeat(2000))).toHaveLength(1000);
  });
});
