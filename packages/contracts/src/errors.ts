/**
 * The error catalogue: every failure the API can report, with its envelope code, HTTP status and the i18n
 * message key the web client translates (both languages carry every key).
 */
export const ERRORS = {
  // auth and access
  notLoggedIn: { code: 10401, status: 401, message: 'errors.userNotLogin' },
  loginExpired: { code: 10401, status: 401, message: 'errors.loginExpired' },
  badCredentials: { code: 10401, status: 401, message: 'errors.badCredentials' },
  unauthorized: { code: 10401, status: 401, message: 'errors.unauthorized' },
  /** An imported account whose old password cannot be checked: an administrator sets a new one. */
  passwordResetRequired: { code: 10401, status: 401, message: 'errors.passwordResetRequired' },
  accessDenied: { code: 10403, status: 403, message: 'errors.accessDenied' },
  originNotAllowed: { code: 10403, status: 403, message: 'errors.originNotAllowed' },
  tooManyRequests: { code: 429, status: 429, message: 'errors.tooManyRequests' },
  // generic
  notFound: { code: 404, status: 404, message: 'errors.notFound' },
  invalidParams: { code: 422, status: 422, message: 'errors.invalidParams' },
  invalidRequest: { code: 400, status: 400, message: 'errors.invalidRequest' },
  internal: { code: 500, status: 500, message: 'errors.internal' },
  unknownError: { code: 500, status: 500, message: 'errors.unknownError' },
  httpError: { code: 502, status: 502, message: 'errors.httpError' },
  timeout: { code: 504, status: 504, message: 'errors.timeout' },
  config: { code: 500, status: 500, message: 'errors.config' },
  /** `/api/readyz`: a check failed or the instance is draining; `result` is the `ReadinessStatus`. */
  notReady: { code: 503, status: 503, message: 'errors.notReady' },
  /** A shared service (Redis) does not answer: the request was not carried out; it works again by itself. */
  temporarilyUnavailable: { code: 503, status: 503, message: 'errors.temporarilyUnavailable' },
  // users
  userNotExist: { code: 404, status: 404, message: 'errors.userNotExist' },
  userAlreadyExists: { code: 409, status: 409, message: 'errors.userAlreadyExists' },
  /**
   * A new username looks like another user's (UTS #39 confusables, in any case: "rn" for "m", a Cyrillic "а"):
   * the result names that user to an admin (`usernameLookAlikeOf`), never to someone choosing their own name.
   */
  usernameLookAlike: { code: 409, status: 409, message: 'errors.usernameLookAlike' },
  noUserSelected: { code: 400, status: 400, message: 'errors.noUserSelected' },
  cannotDeleteSelf: { code: 409, status: 409, message: 'errors.cannotDeleteSelf' },
  cannotDemoteSelf: { code: 409, status: 409, message: 'errors.cannotDemoteSelf' },
  cannotDeactivateSelf: { code: 409, status: 409, message: 'errors.cannotDeactivateSelf' },
  /** Demoting, deactivating or deleting the last active superuser would lock everyone out of the admin. */
  lastActiveSuperuser: { code: 409, status: 409, message: 'errors.lastActiveSuperuser' },
  // user groups
  groupNotExist: { code: 404, status: 404, message: 'errors.groupNotExist' },
  /** params `{name}` */
  groupAlreadyExists: { code: 409, status: 409, message: 'errors.groupAlreadyExists' },
  // sign-in for teams
  /** An invite link that is unknown, revoked, expired or used up (the message says which: `result.reason`). */
  inviteNotUsable: { code: 410, status: 410, message: 'errors.inviteNotUsable' },
  /** Single sign-on is off, or its provider could not be reached or refused the sign-in. */
  ssoUnavailable: { code: 503, status: 503, message: 'errors.ssoUnavailable' },
  // conversations
  conversationNotFound: { code: 404, status: 404, message: 'errors.conversationNotFound' },
  conversationAlreadyDeleted: { code: 409, status: 409, message: 'errors.conversationAlreadyDeleted' },
  conversationTitleAlreadyGenerated: {
    code: 409,
    status: 409,
    message: 'errors.conversationTitleAlreadyGenerated',
  },
  /** params `{max}`: a user pins at most `max` conversations. */
  tooManyPinnedConversations: { code: 409, status: 409, message: 'errors.tooManyPinnedConversations' },
  missingMessageContent: { code: 422, status: 422, message: 'errors.missingMessageContent' },
  missingConversationId: { code: 422, status: 422, message: 'errors.missingConversationId' },
  failedToGetReply: { code: 502, status: 502, message: 'errors.failedToGetReply' },
  generateTitleFailed: { code: 502, status: 502, message: 'errors.generateTitleFailed' },
  // quotas and permissions (order of checks: see chat/quota)
  userNotAllowToUseChatType: { code: 10403, status: 403, message: 'errors.userNotAllowToUseChatType' },
  chatTypeNotEnabled: { code: 10403, status: 403, message: 'errors.chatTypeNotEnabled' },
  userChatTypeExpired: { code: 10403, status: 403, message: 'errors.userChatTypeExpired' },
  userNotAllowToAskAtThisTime: { code: 10403, status: 403, message: 'errors.userNotAllowToAskAtThisTime' },
  /** params `{seconds, max}`: at most `max` questions per `seconds`. */
  rateLimited: { code: 429, status: 429, message: 'errors.rateLimited' },
  userNotAllowToUseModel: { code: 10403, status: 403, message: 'errors.userNotAllowToUseModel' },
  paidModelNotAvailable: { code: 10403, status: 403, message: 'errors.paidModelNotAvailable' },
  modelNotEnabled: { code: 10403, status: 403, message: 'errors.modelNotEnabled' },
  noAvailableTotalAskCount: { code: 10403, status: 403, message: 'errors.noAvailableTotalAskCount' },
  noAvailableGpt4AskCount: { code: 10403, status: 403, message: 'errors.noAvailableGpt4AskCount' },
  noAvailableModelAskCount: { code: 10403, status: 403, message: 'errors.noAvailableModelAskCount' },
  /** The total spend budget is spent. */
  budgetSpent: { code: 10403, status: 403, message: 'errors.budgetSpent' },
  /** params `{time}`: the daily budget is spent until then (UTC midnight). */
  dailyBudgetSpent: { code: 10403, status: 403, message: 'errors.dailyBudgetSpent' },
  /** params `{time}`: the monthly budget is spent until then (the 1st, UTC). */
  monthlyBudgetSpent: { code: 10403, status: 403, message: 'errors.monthlyBudgetSpent' },
  /** The ask's reservation is more than the whole daily or monthly budget: it could never fit, whatever the day. */
  askOverBudget: { code: 10403, status: 403, message: 'errors.askOverBudget' },
  maxConversationCountReached: { code: 10403, status: 403, message: 'errors.maxConversationCountReached' },
  cannotConnectMoreThanOneClient: {
    code: 409,
    status: 409,
    message: 'errors.cannotConnectMoreThanOneClient',
  },
  uploadingNotAllowed: { code: 10403, status: 403, message: 'errors.uploadingNotAllowed' },
  tooManyImages: { code: 422, status: 422, message: 'errors.tooManyImages' },
  /** params `{max}`: a question's text is longer than that many characters. */
  messageTooLong: { code: 422, status: 422, message: 'errors.messageTooLong' },
  tooManyPlugins: { code: 422, status: 422, message: 'errors.tooManyPlugins' },
  fileTooLarge: { code: 413, status: 413, message: 'errors.fileTooLarge' },
  queueTimeout: { code: 504, status: 504, message: 'errors.queueTimeout' },
  invalidAskRequest: { code: 422, status: 422, message: 'errors.invalidAskRequest' },
  // servers
  machineFieldsRequired: { code: 422, status: 422, message: 'errors.machineFieldsRequired' },
  // tasks
  taskAlreadyRunning: { code: 409, status: 409, message: 'errors.taskAlreadyRunning' },
  // upstream
  upstreamError: { code: 502, status: 502, message: 'errors.upstreamError' },
} as const satisfies Record<string, ErrorDef>;

export interface ErrorDef {
  /** Envelope `code`: 10401/10403 for auth, otherwise an HTTP-like number. */
  code: number;
  /** Real HTTP status of the response. */
  status: number;
  /** i18n key of the message. */
  message: string;
}

export type ErrorName = keyof typeof ERRORS;

/** Upstream statuses that have their own message; any other status maps to `unknown`. */
export const UPSTREAM_ERROR_STATUSES = [401, 403, 404, 429, 500] as const;

/** i18n key for an upstream failure with the given HTTP status. */
export function upstreamErrorKey(status: number | null | undefined): string {
  return (UPSTREAM_ERROR_STATUSES as readonly number[]).includes(status ?? -1)
    ? `errors.openai.${status}`
    : 'errors.openai.unknown';
}

/**
 * Detail keys: what the server sends as an error's `result` (HTTP) or `error_detail` (websocket) when it has more
 * to say than the message. The client translates them with the error's `params` (named in the comments).
 */
export const ERROR_DETAILS = {
  /** `{username}` */
  username: 'errors.detail.username',
  /** `{username}`: the existing user whose name a new one looks like. */
  usernameLookAlikeOf: 'errors.detail.usernameLookAlikeOf',
  conversationGoneUpstream: 'errors.detail.conversationGoneUpstream',
  interpreterWebOnly: 'errors.detail.interpreterWebOnly',
  fileNotFound: 'errors.detail.fileNotFound',
  fileNoServerCopy: 'errors.detail.fileNoServerCopy',
  fileMissingOnServer: 'errors.detail.fileMissingOnServer',
  fileAccessDenied: 'errors.detail.fileAccessDenied',
  notBrowserUpload: 'errors.detail.notBrowserUpload',
  imageTypeUnsupported: 'errors.detail.imageTypeUnsupported',
  assetPointerUnsupported: 'errors.detail.assetPointerUnsupported',
  noUploadUrl: 'errors.detail.noUploadUrl',
  webSourceNotAllowed: 'errors.detail.webSourceNotAllowed',
  imagesNotAllowed: 'errors.detail.imagesNotAllowed',
  attachmentsNotAllowed: 'errors.detail.attachmentsNotAllowed',
  uploadNeedsGpt4Web: 'errors.detail.uploadNeedsGpt4Web',
  serverUploadsOff: 'errors.detail.serverUploadsOff',
  pluginsNeedPlus: 'errors.detail.pluginsNeedPlus',
  pluginNotFound: 'errors.detail.pluginNotFound',
  serverNotFound: 'errors.detail.serverNotFound',
  taskNotFound: 'errors.detail.taskNotFound',
  noWebUpstream: 'errors.detail.noWebUpstream',
  statsRangeOrder: 'errors.detail.statsRangeOrder',
  /** `{days}` */
  statsRangeTooLong: 'errors.detail.statsRangeTooLong',
  // the ask pipeline
  /** `{date}` (ISO 8601) */
  validUntil: 'errors.detail.validUntil',
  parentNotInConversation: 'errors.detail.parentNotInConversation',
  /** `{model}` */
  unknownModel: 'errors.detail.unknownModel',
  sourceMismatch: 'errors.detail.sourceMismatch',
  pluginsNeedPluginsModel: 'errors.detail.pluginsNeedPluginsModel',
  notAQuestion: 'errors.detail.notAQuestion',
  notAnAnswer: 'errors.detail.notAnAnswer',
  notInConversation: 'errors.detail.notInConversation',
  noServerOnline: 'errors.detail.noServerOnline',
  // the upstream could not be reached (the internal code goes to the log only)
  networkRefused: 'errors.detail.networkRefused',
  networkDns: 'errors.detail.networkDns',
  /** A user's own API address is on this machine or a private network, which the config does not allow. */
  networkAddressNotAllowed: 'errors.detail.networkAddressNotAllowed',
  networkClosed: 'errors.detail.networkClosed',
  networkTls: 'errors.detail.networkTls',
  networkStreamCut: 'errors.detail.networkStreamCut',
  networkFailed: 'errors.detail.networkFailed',
  // requests Fastify refuses before a route runs
  invalidJson: 'errors.detail.invalidJson',
  badUrl: 'errors.detail.badUrl',
  emptyJson: 'errors.detail.emptyJson',
  bodyTooLarge: 'errors.detail.bodyTooLarge',
  unsupportedMediaType: 'errors.detail.unsupportedMediaType',
  contentLengthMismatch: 'errors.detail.contentLengthMismatch',
  multipartExpected: 'errors.detail.multipartExpected',
  multipartLimit: 'errors.detail.multipartLimit',
  multipartTruncated: 'errors.detail.multipartTruncated',
  /** `{seconds}` */
  retryAfter: 'errors.detail.retryAfter',
  // conversation import
  /** A message's parents lead back to itself: the file is not a tree. */
  importCycle: 'errors.detail.importCycle',
  /** No user, assistant or system message with text, images or files. */
  importEmpty: 'errors.detail.importEmpty',
} as const;

/** Every message key the client must translate (errors, upstream errors, field messages, tips). */
export const VALIDATION_MESSAGES = {
  moneyDecimals: 'validation.moneyDecimals',
  budget: 'validation.budget',
  usernameRequired: 'validation.usernameRequired',
  /** More than USERNAME_MAX_CHARS (the text names the number). */
  usernameTooLong: 'validation.usernameTooLong',
  /** Latin letters mixed with Cyrillic or Greek ones, and the like (see `mixesScripts`). */
  usernameMixedScript: 'validation.usernameMixedScript',
  passwordRequired: 'validation.passwordRequired',
  nicknameRequired: 'validation.nicknameRequired',
  /** More than NICKNAME_MAX_CHARS (the text names the number). */
  nicknameTooLong: 'validation.nicknameTooLong',
  emailRequired: 'validation.emailRequired',
  invalidEmail: 'validation.invalidEmail',
  /** An avatar that is neither an http(s) URL nor a `data:image/…` URL. */
  avatarUrl: 'validation.avatarUrl',
  passwordRule: 'validation.passwordRule',
  modelRequired: 'validation.modelRequired',
  pluginCountExceeded: 'validation.pluginCountExceeded',
  tooManyImages: 'validation.tooManyImages',
  /** params `{max}` (a question's text; see MAX_ASK_TEXT_CHARS). */
  messageTooLong: 'validation.messageTooLong',
  machineFieldsRequired: 'validation.machineFieldsRequired',
  /** A server address that is neither an IP address nor a host name (e.g. 999.1.1.1). */
  machineAddress: 'validation.machineAddress',
  grantTypePassword: 'validation.grantTypePassword',
  timeFormat: 'validation.timeFormat',
  bootstrapOnly: 'validation.bootstrapOnly',
  /** A URL whose password is still the mask while the rest of it changed. */
  maskedPassword: 'validation.maskedPassword',
  groupNameRequired: 'validation.groupNameRequired',
  /** A log's keeping time of 0 (it would delete the whole log): -1 or at least 1. */
  keepSeconds: 'validation.keepSeconds',
} as const;

export const TIPS = {
  requestSuccess: 'tips.requestSuccess',
  queueing: 'tips.queueing',
  waiting: 'tips.waiting',
  finished: 'tips.finished',
  terminated: 'tips.terminated',
  stopped: 'tips.stopped',
  /** The answer was cut off because its server shut down; what arrived is kept. */
  interrupted: 'tips.interrupted',
} as const;

export const ALL_MESSAGE_KEYS: readonly string[] = [
  ...new Set(Object.values(ERRORS).map((e) => e.message)),
  ...UPSTREAM_ERROR_STATUSES.map((s) => `errors.openai.${s}`),
  'errors.openai.unknown',
  ...Object.values(ERROR_DETAILS),
  'errors.answerNotFound',
  ...Object.values(VALIDATION_MESSAGES),
  ...Object.values(TIPS),
  'errors.openaiResponseUnknownError',
  'errors.tooManyLoginAttempts',
  'errors.tooManySockets',
  'errors.serverRestarting',
  'validation.usernameNoSpaces',
  'validation.usernameInvisible',
];
