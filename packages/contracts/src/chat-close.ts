/** Websocket close codes (RFC 6455 §7.4.1) the chat socket uses, by meaning. */
export const CLOSE_CODE = {
  /** The answer is complete. */
  normal: 1000,
  /** The server ends the exchange: stopped, timed out, or the upstream failed. */
  goingAway: 1001,
  /** The AskRequest did not validate. */
  invalidPayload: 1007,
  /** Refused: not logged in, foreign origin, another ask running, quota or permission. */
  policy: 1008,
  /** Something unexpected on our side. */
  internal: 1011,
  /** This instance is restarting (draining): connect again, the load balancer picks another instance. */
  serviceRestart: 1012,
  /** A service the ask needs (Redis) is out for a moment: ask again in a few seconds. */
  tryAgainLater: 1013,
  /** The upstream could not be reached. */
  badGateway: 1014,
  /** A resume named an answer that is not (or no longer) kept. */
  answerNotFound: 4404,
} as const;
export type CloseCode = (typeof CLOSE_CODE)[keyof typeof CLOSE_CODE];

/** Websocket close codes and reasons (reasons are i18n keys). */
export const CHAT_CLOSE = {
  finished: { code: CLOSE_CODE.normal, reason: 'tips.finished' },
  /** The user stopped the answer (from any tab): what arrived is kept. */
  stopped: { code: CLOSE_CODE.normal, reason: 'tips.stopped' },
  terminated: { code: CLOSE_CODE.goingAway, reason: 'tips.terminated' },
  unauthorized: { code: CLOSE_CODE.policy, reason: 'errors.unauthorized' },
  originNotAllowed: { code: CLOSE_CODE.policy, reason: 'errors.originNotAllowed' },
  moreThanOneClient: { code: CLOSE_CODE.policy, reason: 'errors.cannotConnectMoreThanOneClient' },
  /** The user already has the most chat sockets open that one user may (MAX_SOCKETS_PER_USER). */
  tooManySockets: { code: CLOSE_CODE.policy, reason: 'errors.tooManySockets' },
  invalidAskRequest: { code: CLOSE_CODE.invalidPayload, reason: 'errors.invalidAskRequest' },
  /** Quota and permission refusals close 1008 with the error key as reason. */
  refused: { code: CLOSE_CODE.policy, reason: '' },
  /** Waited longer than the queue timeout for a free upstream slot. */
  queueTimeout: { code: CLOSE_CODE.goingAway, reason: 'errors.queueTimeout' },
  /** No upstream server of the source is online (the tip says `errors.config`). */
  noServer: { code: CLOSE_CODE.internal, reason: 'errors.unknownError' },
  timeout: { code: CLOSE_CODE.goingAway, reason: 'errors.timeout' },
  upstreamError: { code: CLOSE_CODE.goingAway, reason: 'errors.openaiResponseUnknownError' },
  httpError: { code: CLOSE_CODE.badGateway, reason: 'errors.httpError' },
  unknownError: { code: CLOSE_CODE.internal, reason: 'errors.unknownError' },
  /** Redis is out: the ask was not started (nothing charged); asking again in a few seconds works. */
  unavailable: { code: CLOSE_CODE.tryAgainLater, reason: 'errors.temporarilyUnavailable' },
  /**
   * This instance is shutting down and takes no new asks or resumes: the client connects again at once (another
   * instance answers) with the same message. Answers already running here are not closed this way.
   */
  draining: { code: CLOSE_CODE.serviceRestart, reason: 'errors.serverRestarting' },
  /**
   * The instance shut down before the answer ended: what arrived is kept (a cut-off answer), the user may ask again.
   */
  interrupted: { code: CLOSE_CODE.goingAway, reason: 'tips.interrupted' },
  /** A resume found no such answer (finished long ago, or never started): reload the conversation instead. */
  answerNotFound: { code: CLOSE_CODE.answerNotFound, reason: 'errors.answerNotFound' },
} as const satisfies Record<string, { code: CloseCode; reason: string }>;

/**
 * Close codes a client uses. 1000 stops the answer (older clients stop by closing, some without a code: 1005);
 * `detach` leaves it running (the page navigates away); a dropped connection (1001 going away, 1006) also does.
 */
export const CLIENT_CLOSE = { stop: CLOSE_CODE.normal, stopWithoutCode: 1005, detach: 4000 } as const;
